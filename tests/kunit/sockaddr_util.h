/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Test tables write addresses as strings; this turns them into sockaddrs.
 *   "10.0.0.1", "::1", "fe80::1%2"   AF_INET / AF_INET6 (scope after %)
 *   "ib:fe80::1"                      AF_IB, the GID after "ib:"; its
 *                                     service ID is the port, mask all ones
 *   "unix"                            AF_UNIX, nothing else set
 */
#ifndef XCMA_SOCKADDR_UTIL_H
#define XCMA_SOCKADDR_UTIL_H

#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/string.h>
#include <linux/un.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>

static inline void sockaddr_from_str(struct kunit *test,
				     struct sockaddr_storage *ss,
				     const char *str, u16 port)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (!strcmp(str, "unix")) {
		ss->ss_family = AF_UNIX;
		return;
	}
	if (!strncmp(str, "ib:", 3)) {
		sib->sib_family = AF_IB;
		KUNIT_ASSERT_EQ_MSG(test,
				    in6_pton(str + 3, -1, sib->sib_addr.sib_raw,
					     -1, NULL),
				    1, "bad GID in table: %s", str);
		sib->sib_sid = cpu_to_be64(port);
		sib->sib_sid_mask = cpu_to_be64(~0ULL);
		return;
	}
	KUNIT_ASSERT_EQ_MSG(test,
			    inet_pton_with_scope(&init_net, AF_UNSPEC, str,
						 NULL, ss),
			    0, "bad address in table: %s", str);
	if (ss->ss_family == AF_INET)
		sin->sin_port = htons(port);
	else
		sin6->sin6_port = htons(port);
}

#endif /* XCMA_SOCKADDR_UTIL_H */
