// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_addr: the sockaddr rules of cma/addr.c, one table per rule. The
 * expected values are the in-tree CM's (cma.c, ucma.c).
 */
#include <kunit/test.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/string.h>
#include <rdma/ib.h>

#include "../../cma/addr.h"
#include "sockaddr_util.h"
#include "xcma_kunit.h"

/* validate: family, and length where the API passes one (rdma_ucm) */

struct validate_case {
	const char *name;
	sa_family_t family;
	size_t len;
	size_t size;
	int validate;
	int validate_len;
};

static const struct validate_case validate_cases[] = {
	{ "inet", AF_INET, 16, 16, 0, 0 },
	{ "inet6", AF_INET6, 28, 28, 0, 0 },
	{ "ib", AF_IB, 48, 48, 0, 0 },
	{ "inet_len_of_inet6", AF_INET, 28, 16, 0, -EINVAL },
	{ "inet6_len_of_inet", AF_INET6, 16, 28, 0, -EINVAL },
	{ "ib_in_inet6_room", AF_IB, 28, 48, 0, -EINVAL },
	{ "inet_len_zero", AF_INET, 0, 16, 0, -EINVAL },
	{ "unspec", AF_UNSPEC, 16, 0, -EAFNOSUPPORT, -EINVAL },
	{ "unix", AF_UNIX, 0, 0, -EAFNOSUPPORT, -EINVAL },
	{ "packet", AF_PACKET, 16, 0, -EAFNOSUPPORT, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(validate, validate_cases, name);

static void addr_validate(struct kunit *test)
{
	const struct validate_case *c = test->param_value;
	struct sockaddr_storage ss = { .ss_family = c->family };
	struct sockaddr *sa = (struct sockaddr *)&ss;

	KUNIT_EXPECT_EQ(test, xcma_addr_size(sa), c->size);
	KUNIT_EXPECT_EQ(test, xcma_addr_validate(sa), c->validate);
	KUNIT_EXPECT_EQ(test, xcma_addr_validate_len(sa, c->len),
			c->validate_len);
}

/* zero, loopback, any */

struct any_case {
	const char *addr;
	bool zero;
	bool loopback;
};

static const struct any_case any_cases[] = {
	{ "0.0.0.0", true, false },
	{ "0.1.2.3", false, false },	/* only 0.0.0.0, as ipv4_is_zeronet */
	{ "127.0.0.1", false, true },
	{ "127.9.8.7", false, true },	/* all of 127/8 */
	{ "10.0.0.1", false, false },
	{ "255.255.255.255", false, false },
	{ "::", true, false },
	{ "::1", false, true },
	{ "::ffff:127.0.0.1", false, false },	/* mapped: neither */
	{ "::ffff:0.0.0.0", false, false },
	{ "fe80::1%2", false, false },
	{ "2001:db8::1", false, false },
	{ "ib:::", true, false },
	{ "ib:::1", false, true },
	{ "ib:fe80::2", false, false },
	{ "unix", false, false },
};

KUNIT_ARRAY_PARAM_DESC(any, any_cases, addr);

static void addr_any(struct kunit *test)
{
	const struct any_case *c = test->param_value;
	struct sockaddr_storage ss;
	struct sockaddr *sa = (struct sockaddr *)&ss;

	sockaddr_from_str(test, &ss, c->addr, 0);
	KUNIT_EXPECT_EQ(test, xcma_addr_is_zero(sa), c->zero);
	KUNIT_EXPECT_EQ(test, xcma_addr_is_loopback(sa), c->loopback);
	KUNIT_EXPECT_EQ(test, xcma_addr_is_any(sa), c->zero || c->loopback);
}

/* ports: get, set, any */

struct port_case {
	const char *name;
	const char *addr;
	u16 port;
	u64 ib_mask;		/* AF_IB only: the service ID mask */
	int set;		/* xcma_addr_set_port() */
};

static const struct port_case port_cases[] = {
	{ "inet_any", "10.0.0.1", 0, 0, 0 },
	{ "inet_4791", "10.0.0.1", 4791, 0, 0 },
	{ "inet_65535", "0.0.0.0", 65535, 0, 0 },
	{ "inet6_any", "::1", 0, 0, 0 },
	{ "inet6_1", "fe80::1%3", 1, 0, 0 },
	/* AF_IB: the port goes into the service ID (in-tree cma_bind_port()) */
	{ "ib_full_mask", "ib:fe80::1", 0x1234, ~0ULL, 0 },
	{ "ib_ps_mask_only", "ib:fe80::1", 0x1234, 0xffffffffffff0000ULL, 0 },
	{ "ib_no_mask", "ib:fe80::1", 0x1234, 0, 0 },
	{ "unix", "unix", 0, 0, -EAFNOSUPPORT },
};

KUNIT_ARRAY_PARAM_DESC(port, port_cases, name);

static void addr_port(struct kunit *test)
{
	const struct port_case *c = test->param_value;
	struct sockaddr_storage ss;
	struct sockaddr *sa = (struct sockaddr *)&ss;
	u16 expect = c->port;

	sockaddr_from_str(test, &ss, c->addr, c->port);
	if (ss.ss_family == AF_IB) {
		struct sockaddr_ib *sib = (struct sockaddr_ib *)&ss;

		/* the port bits of the service ID count only under the mask */
		sib->sib_sid = cpu_to_be64(0x0000000001060000ULL | c->port);
		sib->sib_sid_mask = cpu_to_be64(c->ib_mask);
		expect = c->port & c->ib_mask;
	}
	KUNIT_EXPECT_EQ(test, ntohs(xcma_addr_get_port(sa)), expect);
	KUNIT_EXPECT_EQ(test, xcma_addr_is_any_port(sa), !expect);

	KUNIT_EXPECT_EQ(test, xcma_addr_set_port(sa, htons(5000)), c->set);
	if (!c->set) {
		KUNIT_EXPECT_EQ(test, ntohs(xcma_addr_get_port(sa)), 5000);
		KUNIT_EXPECT_FALSE(test, xcma_addr_is_any_port(sa));
	}
	if (!c->set && ss.ss_family == AF_IB) {
		struct sockaddr_ib *sib = (struct sockaddr_ib *)&ss;

		/* the bits above the port stay as far as the mask kept them */
		KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid),
				(0x0000000001060000ULL & c->ib_mask) | 5000);
		KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid_mask), ~0ULL);
	}
}

/* compare: host address only, link-local within its scope */

struct cmp_case {
	const char *name;
	const char *a;
	u16 a_port;
	const char *b;
	u16 b_port;
	bool same;
};

static const struct cmp_case cmp_cases[] = {
	{ "inet_same", "10.0.0.1", 0, "10.0.0.1", 0, true },
	{ "inet_other", "10.0.0.1", 0, "10.0.0.2", 0, false },
	{ "inet_ports_ignored", "10.0.0.1", 1, "10.0.0.1", 2, true },
	{ "inet_any_vs_specific", "0.0.0.0", 0, "10.0.0.1", 0, false },
	{ "inet_vs_inet6_any", "0.0.0.0", 0, "::", 0, false },
	{ "inet_vs_mapped", "10.0.0.1", 0, "::ffff:10.0.0.1", 0, false },
	{ "inet6_same", "2001:db8::1", 0, "2001:db8::1", 0, true },
	{ "inet6_other", "2001:db8::1", 0, "2001:db8::2", 0, false },
	{ "linklocal_same_scope", "fe80::1%2", 0, "fe80::1%2", 0, true },
	{ "linklocal_other_scope", "fe80::1%2", 0, "fe80::1%3", 0, false },
	{ "linklocal_one_unscoped", "fe80::1", 0, "fe80::1%3", 0, false },
	{ "linklocal_other_addr", "fe80::1%2", 0, "fe80::2%2", 0, false },
	{ "ib_same", "ib:fe80::1", 1, "ib:fe80::1", 2, true },
	{ "ib_other", "ib:fe80::1", 0, "ib:fe80::2", 0, false },
	{ "ib_vs_inet6", "ib:fe80::1", 0, "fe80::1%1", 0, false },
	{ "unknown_family", "unix", 0, "unix", 0, false },
};

KUNIT_ARRAY_PARAM_DESC(cmp, cmp_cases, name);

static void addr_cmp(struct kunit *test)
{
	const struct cmp_case *c = test->param_value;
	struct sockaddr_storage a, b;

	sockaddr_from_str(test, &a, c->a, c->a_port);
	sockaddr_from_str(test, &b, c->b, c->b_port);
	KUNIT_EXPECT_EQ(test, !xcma_addr_cmp((struct sockaddr *)&a,
					     (struct sockaddr *)&b), c->same);
	KUNIT_EXPECT_EQ(test, !xcma_addr_cmp((struct sockaddr *)&b,
					     (struct sockaddr *)&a), c->same);
}

/*
 * The scope id differs while the addresses are global: set by hand, as
 * inet_pton_with_scope() parses a scope only for link-local addresses.
 */
static void addr_cmp_global_ignores_scope(struct kunit *test)
{
	struct sockaddr_storage a, b;

	sockaddr_from_str(test, &a, "2001:db8::1", 0);
	sockaddr_from_str(test, &b, "2001:db8::1", 0);
	((struct sockaddr_in6 *)&a)->sin6_scope_id = 2;
	((struct sockaddr_in6 *)&b)->sin6_scope_id = 3;
	KUNIT_EXPECT_EQ(test, xcma_addr_cmp((struct sockaddr *)&a,
					    (struct sockaddr *)&b), 0);
}

/* link-local needs a scope id */

struct linklocal_case {
	const char *addr;
	int ret;
	int bound_dev_if;	/* -1: left alone */
};

static const struct linklocal_case linklocal_cases[] = {
	{ "fe80::1", -EINVAL, -1 },
	{ "fe80::1%3", 0, 3 },
	{ "febf::1%7", 0, 7 },		/* last of fe80::/10 */
	{ "fec0::1", 0, -1 },		/* site-local, not link-local */
	{ "2001:db8::1", 0, -1 },
	{ "::", 0, -1 },
	{ "10.0.0.1", 0, -1 },
	{ "ib:fe80::1", 0, -1 },
};

KUNIT_ARRAY_PARAM_DESC(linklocal, linklocal_cases, addr);

static void addr_linklocal(struct kunit *test)
{
	const struct linklocal_case *c = test->param_value;
	struct sockaddr_storage ss;
	int bound = -1;

	sockaddr_from_str(test, &ss, c->addr, 0);
	KUNIT_EXPECT_EQ(test,
			xcma_addr_check_linklocal((struct sockaddr *)&ss, &bound),
			c->ret);
	KUNIT_EXPECT_EQ(test, bound, c->bound_dev_if);
	KUNIT_EXPECT_EQ(test,
			xcma_addr_check_linklocal((struct sockaddr *)&ss, NULL),
			c->ret);
}

/* copy: the family's size, nothing more */

struct copy_case {
	const char *addr;
	size_t size;
	int ret;
};

static const struct copy_case copy_cases[] = {
	{ "10.0.0.1", sizeof(struct sockaddr_in), 0 },
	{ "fe80::1%4", sizeof(struct sockaddr_in6), 0 },
	{ "ib:fe80::1", sizeof(struct sockaddr_ib), 0 },
	{ "unix", 0, -EAFNOSUPPORT },
};

KUNIT_ARRAY_PARAM_DESC(copy, copy_cases, addr);

static void addr_copy(struct kunit *test)
{
	const struct copy_case *c = test->param_value;
	struct sockaddr_storage src, dst;
	size_t i;

	sockaddr_from_str(test, &src, c->addr, 7);
	memset(&dst, 0xaa, sizeof(dst));
	KUNIT_ASSERT_EQ(test, xcma_addr_copy(&dst, (struct sockaddr *)&src),
			c->ret);
	KUNIT_EXPECT_MEMEQ(test, &dst, &src, c->size);
	for (i = c->size; i < sizeof(dst); i++)
		KUNIT_ASSERT_EQ_MSG(test, ((u8 *)&dst)[i], 0xaa, "byte %zu", i);
}

/* the wildcard source of a resolve without source address */

struct set_any_case {
	const char *like;
	u32 scope_id;
	int bound_dev_if;	/* -1: left alone */
	__be16 pkey;
};

static const struct set_any_case set_any_cases[] = {
	{ "10.0.0.1", 0, -1, 0 },
	{ "2001:db8::1", 0, -1, 0 },
	{ "fe80::1%4", 4, 4, 0 },
	{ "fe80::1", 0, 0, 0 },
	{ "ib:fe80::1", 0, -1, cpu_to_be16(0x8001) },
};

KUNIT_ARRAY_PARAM_DESC(set_any, set_any_cases, like);

static void addr_set_any(struct kunit *test)
{
	const struct set_any_case *c = test->param_value;
	struct sockaddr_storage like, any;
	struct sockaddr *sa = (struct sockaddr *)&any;
	int bound = -1;

	sockaddr_from_str(test, &like, c->like, 4791);
	if (like.ss_family == AF_IB)
		((struct sockaddr_ib *)&like)->sib_pkey = c->pkey;
	memset(&any, 0xaa, sizeof(any));
	xcma_addr_set_any(&any, (struct sockaddr *)&like, &bound);

	KUNIT_EXPECT_EQ(test, any.ss_family, like.ss_family);
	KUNIT_EXPECT_TRUE(test, xcma_addr_is_zero(sa));
	KUNIT_EXPECT_TRUE(test, xcma_addr_is_any_port(sa));
	KUNIT_EXPECT_EQ(test, bound, c->bound_dev_if);
	if (any.ss_family == AF_INET6)
		KUNIT_EXPECT_EQ(test, ((struct sockaddr_in6 *)sa)->sin6_scope_id,
				c->scope_id);
	if (any.ss_family == AF_IB) {
		KUNIT_EXPECT_EQ(test,
				be16_to_cpu(((struct sockaddr_ib *)sa)->sib_pkey),
				be16_to_cpu(c->pkey));
		KUNIT_EXPECT_EQ(test,
				be64_to_cpu(((struct sockaddr_ib *)sa)->sib_sid),
				0);
	}
	/* the wildcard it makes passes the link-local check */
	KUNIT_EXPECT_EQ(test, xcma_addr_check_linklocal(sa, NULL), 0);
}

static struct kunit_case addr_cases[] = {
	KUNIT_CASE_PARAM(addr_validate, validate_gen_params),
	KUNIT_CASE_PARAM(addr_any, any_gen_params),
	KUNIT_CASE_PARAM(addr_port, port_gen_params),
	KUNIT_CASE_PARAM(addr_cmp, cmp_gen_params),
	KUNIT_CASE(addr_cmp_global_ignores_scope),
	KUNIT_CASE_PARAM(addr_linklocal, linklocal_gen_params),
	KUNIT_CASE_PARAM(addr_copy, copy_gen_params),
	KUNIT_CASE_PARAM(addr_set_any, set_any_gen_params),
	{}
};

static struct kunit_suite addr_suite = {
	.name = "xcma_addr",
	.init = xcma_kunit_sweep_init,
	.test_cases = addr_cases,
};

kunit_test_suite(addr_suite);
