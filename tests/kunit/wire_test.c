// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_wire: the rdma_cm header, service IDs and private data limits of
 * cma/wire.c. The expected bytes are written by hand from the layout the
 * in-tree CM sends (cma.c: struct cma_hdr, cma_format_hdr), not produced
 * by the code under test, so a change of layout cannot pass unnoticed.
 */
#include <kunit/test.h>
#include <linux/string.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>

#include "../../cma/addr.h"
#include "../../cma/wire.h"
#include "sockaddr_util.h"
#include "xcma_kunit.h"

/*
 * Header bytes, one line per field group:
 *   version, ip_version, port (2 bytes)
 *   source address (16 bytes, two lines; IPv4 in the last 4)
 *   destination address (16 bytes, two lines)
 */

/* encode: exact bytes */

struct encode_case {
	const char *name;
	const char *src;
	u16 src_port;
	const char *dst;
	u16 dst_port;
	u8 bytes[XCMA_WIRE_HDR_LEN];
};

static const struct encode_case encode_cases[] = {
	{ "ipv4", "192.168.1.10", 4791, "192.168.1.20", 18515,
	  { 0x00, 0x40, 0x12, 0xb7,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0xc0, 0xa8, 0x01, 0x0a,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0xc0, 0xa8, 0x01, 0x14 } },
	{ "ipv4_any_src_port_65535", "0.0.0.0", 65535, "10.1.2.3", 1,
	  { 0x00, 0x40, 0xff, 0xff,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x0a, 0x01, 0x02, 0x03 } },
	{ "ipv6", "2001:db8::1", 1, "fe80::2:3%5", 80,
	  { 0x00, 0x60, 0x00, 0x01,
	    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03 } },
	{ "ipv6_loopback", "::1", 20049, "::1", 20050,
	  { 0x00, 0x60, 0x4e, 0x51,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 } },
};

KUNIT_ARRAY_PARAM_DESC(encode, encode_cases, name);

static void wire_encode_bytes(struct kunit *test)
{
	const struct encode_case *c = test->param_value;
	struct sockaddr_storage src, dst;
	u8 buf[IB_CM_REQ_PRIVATE_DATA_SIZE];
	size_t i;

	sockaddr_from_str(test, &src, c->src, c->src_port);
	sockaddr_from_str(test, &dst, c->dst, c->dst_port);
	/* the consumer's data is already in place behind the header */
	memset(buf, 0xee, sizeof(buf));
	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_encode(buf, sizeof(buf),
					     (struct sockaddr *)&src,
					     (struct sockaddr *)&dst), 0);
	KUNIT_EXPECT_MEMEQ(test, buf, c->bytes, XCMA_WIRE_HDR_LEN);
	for (i = XCMA_WIRE_HDR_LEN; i < sizeof(buf); i++)
		KUNIT_ASSERT_EQ_MSG(test, buf[i], 0xee, "byte %zu", i);
}

/* decode: what the in-tree CM (or xcma) sent */

struct decode_case {
	const char *name;
	u8 bytes[XCMA_WIRE_HDR_LEN];
	u64 service_id;
	const char *local;
	u16 local_port;
	const char *remote;
	u16 remote_port;
};

static const struct decode_case decode_cases[] = {
	{ "ipv4",
	  { 0x00, 0x40, 0x12, 0xb7,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0xc0, 0xa8, 0x01, 0x0a,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0xc0, 0xa8, 0x01, 0x14 },
	  0x0000000001064853ULL,
	  "192.168.1.20", 18515, "192.168.1.10", 4791 },
	/* only the high nibble and the last 4 bytes count, as in-tree */
	{ "ipv4_reserved_bits_ignored",
	  { 0x00, 0x4f, 0x00, 0x07,
	    0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x01,
	    0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x02 },
	  0x0000000001110001ULL,
	  "10.0.0.2", 1, "10.0.0.1", 7 },
	{ "ipv6",
	  { 0x00, 0x60, 0x00, 0x01,
	    0x20, 0x01, 0x0d, 0xb8, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x03 },
	  0x00000000013f0050ULL,
	  "fe80::2:3", 80, "2001:db8::1", 1 },
	/* the port space is not checked here; the listener lookup does */
	{ "ipv6_foreign_port_space",
	  { 0x00, 0x60, 0xff, 0xff,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 },
	  0x1234567899990000ULL,
	  "::", 0, "::", 65535 },
};

KUNIT_ARRAY_PARAM_DESC(decode, decode_cases, name);

static void wire_decode_bytes(struct kunit *test)
{
	const struct decode_case *c = test->param_value;
	struct sockaddr_storage local, remote, want;
	u8 buf[IB_CM_REQ_PRIVATE_DATA_SIZE] = {};

	memcpy(buf, c->bytes, XCMA_WIRE_HDR_LEN);
	memset(&local, 0x5a, sizeof(local));
	memset(&remote, 0x5a, sizeof(remote));
	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_decode(buf, sizeof(buf),
					     cpu_to_be64(c->service_id),
					     &local, &remote), 0);
	sockaddr_from_str(test, &want, c->local, c->local_port);
	KUNIT_EXPECT_MEMEQ(test, &local, &want, sizeof(want));
	sockaddr_from_str(test, &want, c->remote, c->remote_port);
	KUNIT_EXPECT_MEMEQ(test, &remote, &want, sizeof(want));

	/* either side may be left out */
	KUNIT_EXPECT_EQ(test, xcma_wire_hdr_decode(buf, sizeof(buf), 0,
						   NULL, NULL), 0);
}

/* encode then decode */

struct round_case {
	const char *name;
	const char *src;
	u16 src_port;
	const char *dst;
	u16 dst_port;
	enum rdma_ucm_port_space ps;
};

static const struct round_case round_cases[] = {
	{ "ipv4_tcp", "10.0.0.1", 40000, "10.0.0.2", 7471, RDMA_PS_TCP },
	{ "ipv4_udp", "172.16.0.1", 1, "172.16.255.254", 65535, RDMA_PS_UDP },
	{ "ipv6_ib", "2001:db8::10", 33000, "2001:db8::20", 4420, RDMA_PS_IB },
	{ "ipv6_ipoib", "fd00:99::1", 61000, "fd00:99::2", 9999,
	  RDMA_PS_IPOIB },
};

KUNIT_ARRAY_PARAM_DESC(round, round_cases, name);

static void wire_round_trip(struct kunit *test)
{
	const struct round_case *c = test->param_value;
	struct {
		struct sockaddr_storage src, dst, local, remote;
		u8 buf[IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE];
	} *t;
	__be64 sid;

	/* on the heap: KASAN makes the stack frame too big otherwise */
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	sockaddr_from_str(test, &t->src, c->src, c->src_port);
	sockaddr_from_str(test, &t->dst, c->dst, c->dst_port);
	sid = xcma_wire_addr_service_id(c->ps, (struct sockaddr *)&t->dst);
	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_encode(t->buf, sizeof(t->buf),
					     (struct sockaddr *)&t->src,
					     (struct sockaddr *)&t->dst), 0);
	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_decode(t->buf, sizeof(t->buf), sid,
					     &t->local, &t->remote), 0);
	/* the passive side sees the active side's view, mirrored */
	KUNIT_EXPECT_MEMEQ(test, &t->local, &t->dst, sizeof(t->dst));
	KUNIT_EXPECT_MEMEQ(test, &t->remote, &t->src, sizeof(t->src));
	KUNIT_EXPECT_EQ(test, xcma_wire_service_id_ps(sid), c->ps);
}

/* an IPv6 scope id does not travel: the peer's link is its own */
static void wire_round_trip_drops_scope(struct kunit *test)
{
	struct sockaddr_storage src, dst, local, remote;
	u8 buf[XCMA_WIRE_HDR_LEN];

	sockaddr_from_str(test, &src, "fe80::1%2", 100);
	sockaddr_from_str(test, &dst, "fe80::2%2", 200);
	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_encode(buf, sizeof(buf),
					     (struct sockaddr *)&src,
					     (struct sockaddr *)&dst), 0);
	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_decode(buf, sizeof(buf),
					     xcma_wire_service_id(RDMA_PS_TCP,
								  htons(200)),
					     &local, &remote), 0);
	KUNIT_EXPECT_EQ(test, ((struct sockaddr_in6 *)&local)->sin6_scope_id, 0);
	KUNIT_EXPECT_EQ(test, ((struct sockaddr_in6 *)&remote)->sin6_scope_id, 0);
	((struct sockaddr_in6 *)&src)->sin6_scope_id = 0;
	((struct sockaddr_in6 *)&dst)->sin6_scope_id = 0;
	KUNIT_EXPECT_MEMEQ(test, &local, &dst, sizeof(dst));
	KUNIT_EXPECT_MEMEQ(test, &remote, &src, sizeof(src));
}

/* decode rejects what the in-tree CM rejects, with its errno */

struct bad_case {
	const char *name;
	u8 version;
	u8 ip_version;
	size_t len;
	int ret;
};

static const struct bad_case bad_cases[] = {
	{ "version_1", 0x01, 0x40, XCMA_WIRE_HDR_LEN, -EINVAL },
	{ "version_ff", 0xff, 0x60, XCMA_WIRE_HDR_LEN, -EINVAL },
	{ "version_checked_first", 0x01, 0x00, XCMA_WIRE_HDR_LEN, -EINVAL },
	{ "ip_version_0", 0x00, 0x00, XCMA_WIRE_HDR_LEN, -EAFNOSUPPORT },
	{ "ip_version_5", 0x00, 0x50, XCMA_WIRE_HDR_LEN, -EAFNOSUPPORT },
	{ "ip_version_f", 0x00, 0xf0, XCMA_WIRE_HDR_LEN, -EAFNOSUPPORT },
	{ "ip_version_in_low_nibble", 0x00, 0x04, XCMA_WIRE_HDR_LEN,
	  -EAFNOSUPPORT },
	{ "short_by_one", 0x00, 0x40, XCMA_WIRE_HDR_LEN - 1, -EINVAL },
	{ "empty", 0x00, 0x40, 0, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(bad, bad_cases, name);

static void wire_decode_rejects(struct kunit *test)
{
	const struct bad_case *c = test->param_value;
	struct sockaddr_storage local, remote, untouched;
	u8 buf[XCMA_WIRE_HDR_LEN] = { c->version, c->ip_version };

	memset(&untouched, 0x5a, sizeof(untouched));
	local = untouched;
	remote = untouched;
	KUNIT_EXPECT_EQ(test,
			xcma_wire_hdr_decode(buf, c->len,
					     xcma_wire_service_id(RDMA_PS_TCP,
								  htons(1)),
					     &local, &remote), c->ret);
	KUNIT_EXPECT_MEMEQ(test, &local, &untouched, sizeof(untouched));
	KUNIT_EXPECT_MEMEQ(test, &remote, &untouched, sizeof(untouched));
}

/* encode refuses what has no header */

struct encode_bad_case {
	const char *name;
	const char *src;
	const char *dst;
	size_t len;
	int ret;
};

static const struct encode_bad_case encode_bad_cases[] = {
	{ "ib_has_no_header", "ib:fe80::1", "ib:fe80::2", 92, -EAFNOSUPPORT },
	{ "unknown_family", "unix", "unix", 92, -EAFNOSUPPORT },
	{ "families_differ", "10.0.0.1", "::1", 92, -EINVAL },
	{ "short_buffer", "10.0.0.1", "10.0.0.2", XCMA_WIRE_HDR_LEN - 1,
	  -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(encode_bad, encode_bad_cases, name);

static void wire_encode_rejects(struct kunit *test)
{
	const struct encode_bad_case *c = test->param_value;
	struct sockaddr_storage src, dst;
	u8 buf[92], untouched[92];

	sockaddr_from_str(test, &src, c->src, 1);
	sockaddr_from_str(test, &dst, c->dst, 2);
	memset(buf, 0xee, sizeof(buf));
	memset(untouched, 0xee, sizeof(untouched));
	KUNIT_EXPECT_EQ(test,
			xcma_wire_hdr_encode(buf, c->len,
					     (struct sockaddr *)&src,
					     (struct sockaddr *)&dst), c->ret);
	KUNIT_EXPECT_MEMEQ(test, buf, untouched, sizeof(buf));
}

/* service IDs, exact bytes */

struct sid_case {
	const char *name;
	enum rdma_ucm_port_space ps;
	u16 port;
	u8 bytes[8];
};

static const struct sid_case sid_cases[] = {
	{ "tcp_4791", RDMA_PS_TCP, 4791,
	  { 0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x12, 0xb7 } },
	{ "tcp_0", RDMA_PS_TCP, 0,
	  { 0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x00, 0x00 } },
	{ "udp_7471", RDMA_PS_UDP, 7471,
	  { 0x00, 0x00, 0x00, 0x00, 0x01, 0x11, 0x1d, 0x2f } },
	{ "ib_65535", RDMA_PS_IB, 65535,
	  { 0x00, 0x00, 0x00, 0x00, 0x01, 0x3f, 0xff, 0xff } },
	{ "ipoib_1", RDMA_PS_IPOIB, 1,
	  { 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01 } },
};

KUNIT_ARRAY_PARAM_DESC(sid, sid_cases, name);

static void wire_service_id(struct kunit *test)
{
	const struct sid_case *c = test->param_value;
	struct sockaddr_storage ss;
	__be64 sid;

	sid = xcma_wire_service_id(c->ps, htons(c->port));
	KUNIT_EXPECT_MEMEQ(test, &sid, c->bytes, sizeof(sid));
	KUNIT_EXPECT_EQ(test, xcma_wire_service_id_ps(sid), c->ps);
	KUNIT_EXPECT_EQ(test, ntohs(xcma_wire_service_id_port(sid)), c->port);

	sockaddr_from_str(test, &ss, "10.0.0.1", c->port);
	sid = xcma_wire_addr_service_id(c->ps, (struct sockaddr *)&ss);
	KUNIT_EXPECT_MEMEQ(test, &sid, c->bytes, sizeof(sid));
	sockaddr_from_str(test, &ss, "fe80::1%1", c->port);
	sid = xcma_wire_addr_service_id(c->ps, (struct sockaddr *)&ss);
	KUNIT_EXPECT_MEMEQ(test, &sid, c->bytes, sizeof(sid));
}

/* the IBTA ranges of <rdma/rdma_cm.h> are these port spaces */
static void wire_service_id_ranges(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, be64_to_cpu(xcma_wire_service_id(RDMA_PS_TCP, 0)),
			RDMA_IB_IP_PS_TCP);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(xcma_wire_service_id(RDMA_PS_UDP, 0)),
			RDMA_IB_IP_PS_UDP);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(xcma_wire_service_id(RDMA_PS_IB, 0)),
			RDMA_IB_IP_PS_IB);
}

/* an AF_IB address carries its service ID whatever the port space */
static void wire_service_id_ib(struct kunit *test)
{
	struct sockaddr_storage ss;
	struct sockaddr_ib *sib = (struct sockaddr_ib *)&ss;
	__be64 sid;

	sockaddr_from_str(test, &ss, "ib:fe80::1", 0);
	sib->sib_sid = cpu_to_be64(0x1122334455667788ULL);
	sid = xcma_wire_addr_service_id(RDMA_PS_TCP, (struct sockaddr *)&ss);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sid), 0x1122334455667788ULL);
}

/* private data room per message */

struct room_case {
	const char *name;
	enum xcma_wire_msg msg;
	sa_family_t family;
	int max;
};

static const struct room_case room_cases[] = {
	{ "req_inet", XCMA_WIRE_REQ, AF_INET, 56 },
	{ "req_inet6", XCMA_WIRE_REQ, AF_INET6, 56 },
	{ "req_ib", XCMA_WIRE_REQ, AF_IB, 92 },
	{ "sidr_req_inet", XCMA_WIRE_SIDR_REQ, AF_INET, 180 },
	{ "sidr_req_ib", XCMA_WIRE_SIDR_REQ, AF_IB, 216 },
	{ "rep_inet", XCMA_WIRE_REP, AF_INET, 196 },
	{ "rep_ib", XCMA_WIRE_REP, AF_IB, 196 },
	{ "sidr_rep", XCMA_WIRE_SIDR_REP, AF_INET6, 136 },
	{ "rej", XCMA_WIRE_REJ, AF_INET, 148 },
	{ "rtu", XCMA_WIRE_RTU, AF_INET, 224 },
	{ "dreq", XCMA_WIRE_DREQ, AF_INET, 220 },
	{ "drep", XCMA_WIRE_DREP, AF_INET, 224 },
	{ "mra", XCMA_WIRE_MRA, AF_INET, 222 },
	{ "unknown_msg", XCMA_WIRE_MRA + 1, AF_INET, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(room, room_cases, name);

static void wire_max_private_data(struct kunit *test)
{
	const struct room_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, xcma_wire_max_private_data(c->msg, c->family),
			c->max);
}

/* would the in-tree CM (and ib_cm under it) take this private data */

struct check_case {
	const char *name;
	enum xcma_wire_msg msg;
	sa_family_t family;
	bool data;
	unsigned int len;
	int ret;
};

static const struct check_case check_cases[] = {
	{ "req_inet_full", XCMA_WIRE_REQ, AF_INET, true, 56, 0 },
	{ "req_inet_one_over", XCMA_WIRE_REQ, AF_INET, true, 57, -EINVAL },
	/* rdma_cm allocates the buffer itself: NULL data is still sent */
	{ "req_inet_null_data_over", XCMA_WIRE_REQ, AF_INET, false, 57,
	  -EINVAL },
	{ "req_inet_u8_overflow", XCMA_WIRE_REQ, AF_INET, true, 220, -EINVAL },
	{ "req_inet_empty", XCMA_WIRE_REQ, AF_INET, false, 0, 0 },
	{ "req_ib_full", XCMA_WIRE_REQ, AF_IB, true, 92, 0 },
	{ "req_ib_one_over", XCMA_WIRE_REQ, AF_IB, true, 93, -EINVAL },
	{ "req_ib_null_data_over", XCMA_WIRE_REQ, AF_IB, false, 93, -EINVAL },
	{ "sidr_req_inet_full", XCMA_WIRE_SIDR_REQ, AF_INET6, true, 180, 0 },
	{ "sidr_req_inet_one_over", XCMA_WIRE_SIDR_REQ, AF_INET6, true, 181,
	  -EINVAL },
	{ "sidr_req_ib_full", XCMA_WIRE_SIDR_REQ, AF_IB, true, 216, 0 },
	{ "rep_full", XCMA_WIRE_REP, AF_INET, true, 196, 0 },
	{ "rep_one_over", XCMA_WIRE_REP, AF_INET, true, 197, -EINVAL },
	/* ib_cm checks only a buffer it is given */
	{ "rep_null_data_over", XCMA_WIRE_REP, AF_INET, false, 255, 0 },
	{ "sidr_rep_one_over", XCMA_WIRE_SIDR_REP, AF_INET, true, 137,
	  -EINVAL },
	{ "rej_full", XCMA_WIRE_REJ, AF_INET, true, 148, 0 },
	{ "rej_one_over", XCMA_WIRE_REJ, AF_INET, true, 149, -EINVAL },
	{ "dreq_one_over", XCMA_WIRE_DREQ, AF_INET, true, 221, -EINVAL },
	{ "drep_full", XCMA_WIRE_DREP, AF_INET, true, 224, 0 },
	{ "mra_one_over", XCMA_WIRE_MRA, AF_INET, true, 223, -EINVAL },
	{ "rtu_one_over", XCMA_WIRE_RTU, AF_INET, true, 225, -EINVAL },
	{ "unknown_msg", XCMA_WIRE_MRA + 1, AF_INET, true, 0, -EINVAL },
};

KUNIT_ARRAY_PARAM_DESC(check, check_cases, name);

static void wire_check_private_data(struct kunit *test)
{
	const struct check_case *c = test->param_value;
	static const u8 data[256];

	KUNIT_EXPECT_EQ(test,
			xcma_wire_check_private_data(c->msg, c->family,
						     c->data ? data : NULL,
						     c->len), c->ret);
}

/* which listener on the port takes the REQ */

struct match_case {
	const char *name;
	const char *req_src;
	const char *req_dst;
	const char *listen;
	bool afonly;
	bool match;
};

static const struct match_case match_cases[] = {
	{ "v4_any_takes_v4", "10.0.0.1", "10.0.0.2", "0.0.0.0", false, true },
	{ "v4_any_takes_v6", "::1", "::2", "0.0.0.0", false, true },
	{ "v4_any_afonly_refuses_v6", "::1", "::2", "0.0.0.0", true, false },
	{ "v4_any_afonly_takes_v4", "10.0.0.1", "10.0.0.2", "0.0.0.0", true,
	  true },
	{ "v4_loopback_afonly_takes_any_v4", "10.0.0.1", "10.0.0.2",
	  "127.0.0.1", true, true },
	{ "v4_specific_match", "10.0.0.1", "10.0.0.2", "10.0.0.2", true, true },
	{ "v4_specific_other", "10.0.0.1", "10.0.0.3", "10.0.0.2", true,
	  false },
	{ "v4_specific_refuses_v6", "::1", "::2", "10.0.0.2", false, false },
	{ "v6_any_takes_v4", "10.0.0.1", "10.0.0.2", "::", false, true },
	{ "v6_any_afonly_refuses_v4", "10.0.0.1", "10.0.0.2", "::", true,
	  false },
	{ "v6_specific_match", "2001:db8::1", "2001:db8::2", "2001:db8::2",
	  false, true },
	{ "v6_specific_other", "2001:db8::1", "2001:db8::3", "2001:db8::2",
	  false, false },
	{ "ib_takes_all", "10.0.0.1", "10.0.0.2", "ib:fe80::1", true, true },
};

KUNIT_ARRAY_PARAM_DESC(match, match_cases, name);

static void wire_hdr_match(struct kunit *test)
{
	const struct match_case *c = test->param_value;
	struct sockaddr_storage src, dst, listen;
	struct xcma_wire_hdr hdr;

	sockaddr_from_str(test, &src, c->req_src, 1000);
	sockaddr_from_str(test, &dst, c->req_dst, 2000);
	sockaddr_from_str(test, &listen, c->listen, 2000);
	KUNIT_ASSERT_EQ(test,
			xcma_wire_hdr_encode(&hdr, sizeof(hdr),
					     (struct sockaddr *)&src,
					     (struct sockaddr *)&dst), 0);
	KUNIT_EXPECT_EQ(test,
			xcma_wire_hdr_match(&hdr, (struct sockaddr *)&listen,
					    c->afonly), c->match);
}

static void wire_hdr_len(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, xcma_wire_hdr_len(AF_INET), 36);
	KUNIT_EXPECT_EQ(test, xcma_wire_hdr_len(AF_INET6), 36);
	KUNIT_EXPECT_EQ(test, xcma_wire_hdr_len(AF_IB), 0);
	KUNIT_EXPECT_EQ(test, sizeof(struct xcma_wire_hdr), 36);
}

static struct kunit_case wire_cases[] = {
	KUNIT_CASE(wire_hdr_len),
	KUNIT_CASE_PARAM(wire_encode_bytes, encode_gen_params),
	KUNIT_CASE_PARAM(wire_decode_bytes, decode_gen_params),
	KUNIT_CASE_PARAM(wire_round_trip, round_gen_params),
	KUNIT_CASE(wire_round_trip_drops_scope),
	KUNIT_CASE_PARAM(wire_decode_rejects, bad_gen_params),
	KUNIT_CASE_PARAM(wire_encode_rejects, encode_bad_gen_params),
	KUNIT_CASE_PARAM(wire_service_id, sid_gen_params),
	KUNIT_CASE(wire_service_id_ranges),
	KUNIT_CASE(wire_service_id_ib),
	KUNIT_CASE_PARAM(wire_max_private_data, room_gen_params),
	KUNIT_CASE_PARAM(wire_check_private_data, check_gen_params),
	KUNIT_CASE_PARAM(wire_hdr_match, match_gen_params),
	{}
};

static struct kunit_suite wire_suite = {
	.name = "xcma_wire",
	.init = xcma_kunit_sweep_init,
	.test_cases = wire_cases,
};

kunit_test_suite(wire_suite);
