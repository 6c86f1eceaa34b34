// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_port: the bind rules of cma/port.c. Each row binds ids with the
 * in-tree CM's rules in mind (cma.c: cma_check_port, cma_port_is_unique,
 * cma_alloc_any_port, rdma_listen) and expects its errno.
 *
 * Ephemeral cases shrink the namespace's ip_local_port_range through
 * /proc/sys for the duration of the case, so that what the random start
 * cannot change becomes exact: which port is left, when none is.
 */
#include <kunit/test.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "../../cma/addr.h"
#include "../../cma/port.h"
#include "sockaddr_util.h"
#include "xcma_kunit.h"

#define PORT 7000

struct test_id {
	struct rdma_addr addr;
	struct xcma_port_binding b;
};

static void unbind_action(void *b)
{
	xcma_port_unbind(b);
}

/* An id in @net whose binding is undone when the case ends, pass or fail. */
static struct test_id *new_id_in(struct kunit *test, struct net *net,
				 const char *src, u16 port, const char *dst,
				 u16 dst_port)
{
	struct test_id *id;

	id = kunit_kzalloc(test, sizeof(*id), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, id);
	sockaddr_from_str(test, &id->addr.src_addr, src, port);
	if (dst)
		sockaddr_from_str(test, &id->addr.dst_addr, dst, dst_port);
	else
		id->addr.dst_addr.ss_family = id->addr.src_addr.ss_family;
	id->addr.dev_addr.net = net;
	xcma_port_binding_init(&id->b, &id->addr);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unbind_action,
							&id->b), 0);
	return id;
}

static struct test_id *new_id(struct kunit *test, const char *src, u16 port,
			      const char *dst, u16 dst_port)
{
	return new_id_in(test, &init_net, src, port, dst, dst_port);
}

static u16 port_of(const struct test_id *id)
{
	return ntohs(((const struct sockaddr_in *)&id->addr.src_addr)->sin_port);
}

/* ip_local_port_range of init_net, through its sysctl */

struct port_range {
	int low;
	int high;
};

static int write_port_range(int low, int high)
{
	char buf[32];
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int len;

	len = scnprintf(buf, sizeof(buf), "%d %d\n", low, high);
	f = filp_open("/proc/sys/net/ipv4/ip_local_port_range", O_WRONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_write(f, buf, len, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return n;
	return n == len ? 0 : -EIO;
}

static void restore_port_range(void *p)
{
	struct port_range *old = p;

	write_port_range(old->low, old->high);
}

/* Low and high of different parity, or the sysctl complains. */
static void set_port_range(struct kunit *test, int low, int high)
{
	struct port_range *old;
	int l, h, ret;

	old = kunit_kzalloc(test, sizeof(*old), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, old);
	inet_get_local_port_range(&init_net, &old->low, &old->high);
	ret = write_port_range(low, high);
	if (ret)
		kunit_skip(test, "cannot set ip_local_port_range: %d", ret);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_port_range,
							old), 0);
	inet_get_local_port_range(&init_net, &l, &h);
	KUNIT_ASSERT_EQ(test, l, low);
	KUNIT_ASSERT_EQ(test, h, high);
}

/* two ids want the same specific port */

struct side {
	const char *addr;
	bool reuseaddr;
	bool afonly;
	enum rdma_ucm_port_space ps;	/* 0: RDMA_PS_TCP */
};

struct bind_case {
	const char *name;
	struct side a;
	struct side b;
	int ret;
};

#define REUSE .reuseaddr = true
#define AFONLY .afonly = true

static const struct bind_case bind_cases[] = {
	{ "v4_same_addr", { "10.0.0.1" }, { "10.0.0.1" }, -EADDRINUSE },
	{ "v4_other_addr", { "10.0.0.1" }, { "10.0.0.2" }, 0 },
	{ "v4_wildcard_then_specific", { "0.0.0.0" }, { "10.0.0.1" },
	  -EADDRNOTAVAIL },
	{ "v4_specific_then_wildcard", { "10.0.0.1" }, { "0.0.0.0" },
	  -EADDRNOTAVAIL },
	{ "v4_wildcard_twice", { "0.0.0.0" }, { "0.0.0.0" }, -EADDRNOTAVAIL },
	{ "v4_loopback_is_wildcard", { "127.0.0.1" }, { "10.0.0.1" },
	  -EADDRNOTAVAIL },
	{ "reuseaddr_both_same_addr", { "10.0.0.1", REUSE },
	  { "10.0.0.1", REUSE }, 0 },
	{ "reuseaddr_both_wildcard", { "0.0.0.0", REUSE }, { "0.0.0.0", REUSE },
	  0 },
	{ "reuseaddr_first_only", { "10.0.0.1", REUSE }, { "10.0.0.1" },
	  -EADDRINUSE },
	{ "reuseaddr_second_only", { "10.0.0.1" }, { "10.0.0.1", REUSE },
	  -EADDRINUSE },
	{ "reuseaddr_second_only_wildcard", { "0.0.0.0" },
	  { "10.0.0.1", REUSE }, -EADDRNOTAVAIL },
	{ "v4_v6_wildcards_both_afonly", { "0.0.0.0", AFONLY },
	  { "::", AFONLY }, 0 },
	{ "v4_afonly_v6_dual_stack", { "0.0.0.0", AFONLY }, { "::" },
	  -EADDRNOTAVAIL },
	{ "v6_dual_stack_v4_afonly", { "::" }, { "0.0.0.0", AFONLY },
	  -EADDRNOTAVAIL },
	{ "v4_v6_specific_dual_stack", { "10.0.0.1" }, { "2001:db8::1" }, 0 },
	/* families differ, so the addresses do, even a mapped one */
	{ "v4_v6_mapped_dual_stack", { "10.0.0.1" }, { "::ffff:10.0.0.1" },
	  0 },
	{ "v6_same_addr", { "2001:db8::1" }, { "2001:db8::1" }, -EADDRINUSE },
	{ "v6_other_addr", { "2001:db8::1" }, { "2001:db8::2" }, 0 },
	{ "v6_wildcard_then_specific", { "::" }, { "2001:db8::1" },
	  -EADDRNOTAVAIL },
	{ "v6_loopback_is_wildcard", { "::1" }, { "2001:db8::1" },
	  -EADDRNOTAVAIL },
	{ "linklocal_same_scope", { "fe80::1%2" }, { "fe80::1%2" },
	  -EADDRINUSE },
	{ "linklocal_other_scope", { "fe80::1%2" }, { "fe80::1%3" }, 0 },
	{ "tcp_and_udp_spaces", { "10.0.0.1" },
	  { "10.0.0.1", .ps = RDMA_PS_UDP }, 0 },
	{ "ib_and_ipoib_spaces", { "0.0.0.0", .ps = RDMA_PS_IB },
	  { "0.0.0.0", .ps = RDMA_PS_IPOIB }, 0 },
	{ "ib_space_same_addr", { "10.0.0.1", .ps = RDMA_PS_IB },
	  { "10.0.0.1", .ps = RDMA_PS_IB }, -EADDRINUSE },
};

KUNIT_ARRAY_PARAM_DESC(bind, bind_cases, name);

static enum rdma_ucm_port_space ps_of(const struct side *s)
{
	return s->ps ? s->ps : RDMA_PS_TCP;
}

static struct test_id *bind_side(struct kunit *test, const struct side *s,
				 int expect)
{
	struct test_id *id = new_id(test, s->addr, PORT, NULL, 0);

	id->b.reuseaddr = s->reuseaddr;
	id->b.afonly = s->afonly;
	KUNIT_EXPECT_EQ_MSG(test, xcma_port_bind(&id->b, ps_of(s)), expect,
			    "binding %s", s->addr);
	return id;
}

static void port_bind_conflicts(struct kunit *test)
{
	const struct bind_case *c = test->param_value;
	bool same_ps = ps_of(&c->a) == ps_of(&c->b);
	struct test_id *a, *b;

	a = bind_side(test, &c->a, 0);
	KUNIT_ASSERT_TRUE(test, xcma_port_is_bound(&a->b));
	b = bind_side(test, &c->b, c->ret);

	KUNIT_EXPECT_EQ(test, xcma_port_is_bound(&b->b), !c->ret);
	KUNIT_EXPECT_EQ(test, port_of(b), PORT);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, ps_of(&c->a), PORT),
			!c->ret && same_ps ? 2U : 1U);
}

/* a bound id starts listening: reuseaddr is checked again */

struct listen_case {
	const char *name;
	struct side a;
	struct side b;		/* bound before a listens, if addr set */
	int listen;		/* a's xcma_port_listen() */
	bool reuseaddr_after;
	struct side c;		/* bound after a listens */
	int bind_c;
};

static const struct listen_case listen_cases[] = {
	{ "alone_reuseaddr", { "10.0.0.1", REUSE }, {}, 0, false,
	  { "10.0.0.1", REUSE }, -EADDRINUSE },
	{ "alone_no_reuseaddr", { "10.0.0.1" }, {}, 0, false,
	  { "10.0.0.2" }, 0 },
	{ "sharing_same_addr", { "10.0.0.1", REUSE }, { "10.0.0.1", REUSE },
	  -EADDRINUSE, true, { "10.0.0.1", REUSE }, 0 },
	{ "sharing_wildcard", { "0.0.0.0", REUSE }, { "0.0.0.0", REUSE },
	  -EADDRNOTAVAIL, true, { "10.0.0.3", REUSE }, 0 },
	{ "sharing_with_wildcard", { "10.0.0.1", REUSE }, { "0.0.0.0", REUSE },
	  -EADDRNOTAVAIL, true, {}, 0 },
	{ "sharing_port_other_addr", { "10.0.0.1", REUSE },
	  { "10.0.0.2", REUSE }, 0, false, { "10.0.0.1", REUSE },
	  -EADDRINUSE },
	{ "other_family_afonly", { "0.0.0.0", REUSE, AFONLY },
	  { "::", REUSE, AFONLY }, 0, false, { "0.0.0.0", REUSE, AFONLY },
	  -EADDRNOTAVAIL },
	{ "other_family_dual_stack", { "0.0.0.0", REUSE, AFONLY },
	  { "::", REUSE }, -EADDRNOTAVAIL, true, {}, 0 },
};

KUNIT_ARRAY_PARAM_DESC(listen, listen_cases, name);

static void port_listen_recheck(struct kunit *test)
{
	const struct listen_case *c = test->param_value;
	struct test_id *a;

	a = bind_side(test, &c->a, 0);
	KUNIT_ASSERT_TRUE(test, xcma_port_is_bound(&a->b));
	if (c->b.addr)
		bind_side(test, &c->b, 0);
	KUNIT_EXPECT_EQ(test, xcma_port_listen(&a->b), c->listen);
	KUNIT_EXPECT_EQ(test, a->b.reuseaddr, c->reuseaddr_after);
	if (c->c.addr)
		bind_side(test, &c->c, c->bind_c);
}

/* ports below 1024 need CAP_NET_BIND_SERVICE */

struct priv_case {
	const char *name;
	u16 port;
	bool drop_cap;
	int ret;
};

static const struct priv_case priv_cases[] = {
	{ "port_80_without_cap", 80, true, -EACCES },
	{ "port_1023_without_cap", 1023, true, -EACCES },
	{ "port_1024_without_cap", 1024, true, 0 },
	{ "port_80_with_cap", 80, false, 0 },
	{ "port_1_with_cap", 1, false, 0 },
};

KUNIT_ARRAY_PARAM_DESC(priv, priv_cases, name);

static void port_privileged(struct kunit *test)
{
	const struct priv_case *c = test->param_value;
	const struct cred *old = NULL;
	struct test_id *id;
	struct cred *cred;
	int ret;

	id = new_id(test, "10.0.0.1", c->port, NULL, 0);
	if (c->drop_cap) {
		cred = prepare_creds();
		KUNIT_ASSERT_NOT_NULL(test, cred);
		cap_lower(cred->cap_effective, CAP_NET_BIND_SERVICE);
		old = override_creds(cred);
		put_cred(cred);
	}
	ret = xcma_port_bind(&id->b, RDMA_PS_TCP);
	if (old)
		revert_creds(old);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	KUNIT_EXPECT_EQ(test, xcma_port_is_bound(&id->b), !c->ret);
}

/* port space and family */

struct ps_case {
	const char *name;
	const char *addr;
	enum rdma_ucm_port_space ps;
	int ret;
};

static const struct ps_case ps_cases[] = {
	{ "tcp", "10.0.0.1", RDMA_PS_TCP, 0 },
	{ "udp", "10.0.0.1", RDMA_PS_UDP, 0 },
	{ "ib", "2001:db8::1", RDMA_PS_IB, 0 },
	{ "ipoib", "2001:db8::1", RDMA_PS_IPOIB, 0 },
	{ "ps_0", "10.0.0.1", 0, -EPROTONOSUPPORT },
	{ "ps_sdp", "10.0.0.1", 0x0001, -EPROTONOSUPPORT },
	{ "ps_ffff", "10.0.0.1", 0xffff, -EPROTONOSUPPORT },
	/* service ID 7000 under a full mask names no port space */
	{ "af_ib_sid_of_no_space", "ib:fe80::1", RDMA_PS_IB, -EPROTONOSUPPORT },
	{ "af_unix", "unix", RDMA_PS_TCP, -EAFNOSUPPORT },
};

KUNIT_ARRAY_PARAM_DESC(ps, ps_cases, name);

static void port_space_select(struct kunit *test)
{
	const struct ps_case *c = test->param_value;
	struct test_id *id = new_id(test, c->addr, PORT, NULL, 0);

	KUNIT_EXPECT_EQ(test, xcma_port_bind(&id->b, c->ps), c->ret);
	KUNIT_EXPECT_EQ(test, xcma_port_is_bound(&id->b), !c->ret);
	if (!c->ret)
		KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, c->ps, PORT),
				1U);
}

/*
 * AF_IB: the service ID names the port space, within what the id's own
 * port space admits (in-tree cma_select_ib_ps(), called from
 * cma_get_port(), whose 0 becomes rdma_bind_addr()'s -EPROTONOSUPPORT);
 * the bound service ID is the space's prefix and the port, under a full
 * mask (cma_bind_port()). @sid, @mask: given; @want_*: bound.
 */
struct ib_ps_case {
	const char *name;
	enum rdma_ucm_port_space id_ps;
	u64 sid;
	u64 mask;
	int ret;
	enum rdma_ucm_port_space want_ps;
	u64 want_sid;		/* 0 with an ephemeral port: prefix only */
};

#define SID_IB(port) (RDMA_IB_IP_PS_IB | (port))
#define SID_TCP(port) (RDMA_IB_IP_PS_TCP | (port))
#define SID_UDP(port) (RDMA_IB_IP_PS_UDP | (port))
#define MASK_PS RDMA_IB_IP_PS_MASK

static const struct ib_ps_case ib_ps_cases[] = {
	{ "ib_sid_ib", RDMA_PS_IB, SID_IB(PORT), ~0ULL, 0, RDMA_PS_IB,
	  SID_IB(PORT) },
	{ "ib_sid_tcp", RDMA_PS_IB, SID_TCP(PORT), ~0ULL, 0, RDMA_PS_TCP,
	  SID_TCP(PORT) },
	{ "ib_sid_udp", RDMA_PS_IB, SID_UDP(PORT), ~0ULL, 0, RDMA_PS_UDP,
	  SID_UDP(PORT) },
	{ "tcp_sid_tcp", RDMA_PS_TCP, SID_TCP(PORT), ~0ULL, 0, RDMA_PS_TCP,
	  SID_TCP(PORT) },
	{ "udp_sid_udp", RDMA_PS_UDP, SID_UDP(PORT), ~0ULL, 0, RDMA_PS_UDP,
	  SID_UDP(PORT) },
	/* no mask at all: RDMA_PS_IB's own space first, an ephemeral port */
	{ "ib_no_mask", RDMA_PS_IB, 0, 0, 0, RDMA_PS_IB, SID_IB(0) },
	{ "tcp_no_mask", RDMA_PS_TCP, 0, 0, 0, RDMA_PS_TCP, SID_TCP(0) },
	/* the space's bits under the mask, the port left to the CM */
	{ "ib_ps_mask_ephemeral", RDMA_PS_IB, SID_UDP(0), MASK_PS, 0,
	  RDMA_PS_UDP, SID_UDP(0) },
	/* the port under the mask, not the space: the id's own space first */
	{ "ib_port_mask_only", RDMA_PS_IB, PORT, 0xffff, 0, RDMA_PS_IB,
	  SID_IB(PORT) },
	{ "tcp_id_sid_ib", RDMA_PS_TCP, SID_IB(PORT), ~0ULL, -EPROTONOSUPPORT },
	{ "tcp_id_sid_udp", RDMA_PS_TCP, SID_UDP(PORT), ~0ULL,
	  -EPROTONOSUPPORT },
	{ "udp_id_sid_tcp", RDMA_PS_UDP, SID_TCP(PORT), ~0ULL,
	  -EPROTONOSUPPORT },
	{ "ipoib_id", RDMA_PS_IPOIB, SID_IB(PORT), ~0ULL, -EPROTONOSUPPORT },
	{ "zero_sid_full_mask", RDMA_PS_IB, 0, ~0ULL, -EPROTONOSUPPORT },
	{ "sid_of_no_space", RDMA_PS_IB, 0x0000000001230000ULL | PORT, ~0ULL,
	  -EPROTONOSUPPORT },
};

KUNIT_ARRAY_PARAM_DESC(ib_ps, ib_ps_cases, name);

static void port_ib_space(struct kunit *test)
{
	const struct ib_ps_case *c = test->param_value;
	struct test_id *id = new_id(test, "ib:fe80::1", 0, NULL, 0);
	struct sockaddr_ib *sib = (struct sockaddr_ib *)&id->addr.src_addr;
	struct sockaddr_ib before;
	u16 port;

	sib->sib_sid = cpu_to_be64(c->sid);
	sib->sib_sid_mask = cpu_to_be64(c->mask);
	before = *sib;
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&id->b, c->id_ps), c->ret);
	KUNIT_EXPECT_EQ(test, xcma_port_is_bound(&id->b), !c->ret);
	if (c->ret) {
		KUNIT_EXPECT_EQ(test, memcmp(sib, &before, sizeof(before)), 0);
		return;
	}
	port = ntohs(xcma_addr_get_port((struct sockaddr *)sib));
	KUNIT_EXPECT_NE(test, port, 0);
	if (!(c->want_sid & 0xffff))
		KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid),
				c->want_sid | port);
	else
		KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid), c->want_sid);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(sib->sib_sid_mask), ~0ULL);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, c->want_ps, port), 1U);
	/* the space the service ID names, not the id's */
	if (c->want_ps != c->id_ps)
		KUNIT_EXPECT_EQ(test,
				xcma_port_owners(&init_net, c->id_ps, port), 0U);
}

/* ephemeral ports */

static void port_ephemeral_in_range(struct kunit *test)
{
	struct test_id *a = new_id(test, "0.0.0.0", 0, NULL, 0);
	struct test_id *b = new_id(test, "::", 0, NULL, 0);
	int low, high;

	inet_get_local_port_range(&init_net, &low, &high);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&a->b, RDMA_PS_TCP), 0);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&b->b, RDMA_PS_TCP), 0);
	KUNIT_EXPECT_GE(test, port_of(a), low);
	KUNIT_EXPECT_LE(test, port_of(a), high);
	KUNIT_EXPECT_GE(test, port_of(b), low);
	KUNIT_EXPECT_LE(test, port_of(b), high);
	/* two wildcards cannot tell their connections apart */
	KUNIT_EXPECT_NE(test, port_of(a), port_of(b));
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP,
					       port_of(a)), 1U);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP,
					       port_of(b)), 1U);
}

#define EXHAUST_LOW 61000
#define EXHAUST_N 4

static void port_ephemeral_exhausted(struct kunit *test)
{
	struct test_id *ids[EXHAUST_N], *more;
	unsigned long seen = 0;
	u16 freed;
	int i;

	set_port_range(test, EXHAUST_LOW, EXHAUST_LOW + EXHAUST_N - 1);
	for (i = 0; i < EXHAUST_N; i++) {
		ids[i] = new_id(test, "10.0.0.1", 0, NULL, 0);
		KUNIT_ASSERT_EQ(test, xcma_port_bind(&ids[i]->b, RDMA_PS_UDP), 0);
		KUNIT_ASSERT_GE(test, port_of(ids[i]), EXHAUST_LOW);
		KUNIT_ASSERT_LT(test, port_of(ids[i]), EXHAUST_LOW + EXHAUST_N);
		KUNIT_EXPECT_FALSE(test, test_bit(port_of(ids[i]) - EXHAUST_LOW,
						  &seen));
		__set_bit(port_of(ids[i]) - EXHAUST_LOW, &seen);
	}

	more = new_id(test, "10.0.0.1", 0, NULL, 0);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&more->b, RDMA_PS_UDP),
			-EADDRNOTAVAIL);
	KUNIT_EXPECT_EQ(test, port_of(more), 0);

	/* a port given back is found again (it is not the last one used) */
	freed = port_of(ids[1]);
	xcma_port_unbind(&ids[1]->b);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_UDP, freed),
			0U);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&more->b, RDMA_PS_UDP), 0);
	KUNIT_EXPECT_EQ(test, port_of(more), freed);
}

/*
 * The port handed out last is skipped, even when it is free again: with
 * two ports, bind and unbind alternate between them. Each round would
 * catch a CM that does not skip with probability 1/2.
 */
static void port_ephemeral_skips_last_used(struct kunit *test)
{
	struct test_id *id = new_id(test, "10.0.0.1", 0, NULL, 0);
	u16 prev = 0;
	int i;

	set_port_range(test, 61100, 61101);
	for (i = 0; i < 16; i++) {
		xcma_addr_set_port((struct sockaddr *)&id->addr.src_addr, 0);
		KUNIT_ASSERT_EQ(test, xcma_port_bind(&id->b, RDMA_PS_TCP), 0);
		KUNIT_ASSERT_NE_MSG(test, port_of(id), prev, "round %d", i);
		prev = port_of(id);
		xcma_port_unbind(&id->b);
	}
}

/*
 * Active-side ids share an ephemeral port when something tells their
 * connections apart. With a range of two ports: the first id takes one,
 * a wildcard filler takes the other (and becomes the last used, hence
 * skipped), so the third id either shares the first's port or gets none.
 */
struct share_case {
	const char *name;
	const char *src1;
	const char *dst1;
	u16 dport1;
	const char *src3;
	const char *dst3;
	u16 dport3;
	bool shared;
};

static const struct share_case share_cases[] = {
	{ "dst_ports_differ", "0.0.0.0", "10.0.0.9", 1000,
	  "0.0.0.0", "10.0.0.9", 1001, true },
	{ "dst_addrs_differ", "0.0.0.0", "10.0.0.9", 1000,
	  "0.0.0.0", "10.0.0.8", 1000, true },
	{ "src_addrs_differ", "10.0.0.1", "10.0.0.9", 1000,
	  "10.0.0.2", "10.0.0.9", 1000, true },
	{ "one_dst_port_unset", "0.0.0.0", "10.0.0.9", 0,
	  "0.0.0.0", "10.0.0.8", 1000, true },
	{ "same_dst", "0.0.0.0", "10.0.0.9", 1000,
	  "0.0.0.0", "10.0.0.9", 1000, false },
	{ "same_src_same_dst", "10.0.0.1", "10.0.0.9", 1000,
	  "10.0.0.1", "10.0.0.9", 1000, false },
	{ "one_src_wildcard", "0.0.0.0", "10.0.0.9", 1000,
	  "10.0.0.2", "10.0.0.9", 1000, false },
	{ "dst_wildcards", "0.0.0.0", "0.0.0.0", 0,
	  "0.0.0.0", "0.0.0.0", 0, false },
	{ "dst_wildcard_addr_ports_differ", "0.0.0.0", "0.0.0.0", 1,
	  "0.0.0.0", "0.0.0.0", 2, true },
	{ "v6_dst_ports_differ", "::", "2001:db8::9", 1,
	  "::", "2001:db8::9", 2, true },
	{ "v6_linklocal_dst_scopes_differ", "::", "fe80::9%2", 1,
	  "::", "fe80::9%3", 1, true },
};

KUNIT_ARRAY_PARAM_DESC(share, share_cases, name);

static void port_ephemeral_sharing(struct kunit *test)
{
	const struct share_case *c = test->param_value;
	struct test_id *first, *filler, *third;

	set_port_range(test, 61010, 61011);
	first = new_id(test, c->src1, 0, c->dst1, c->dport1);
	filler = new_id(test, c->src1, 0, NULL, 0);
	third = new_id(test, c->src3, 0, c->dst3, c->dport3);

	KUNIT_ASSERT_EQ(test, xcma_port_bind(&first->b, RDMA_PS_TCP), 0);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&filler->b, RDMA_PS_TCP), 0);
	KUNIT_ASSERT_NE(test, port_of(first), port_of(filler));

	if (c->shared) {
		KUNIT_ASSERT_EQ(test, xcma_port_bind(&third->b, RDMA_PS_TCP), 0);
		KUNIT_EXPECT_EQ(test, port_of(third), port_of(first));
		KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP,
						       port_of(first)), 2U);
	} else {
		KUNIT_EXPECT_EQ(test, xcma_port_bind(&third->b, RDMA_PS_TCP),
				-EADDRNOTAVAIL);
	}
}

/* unbind: the last owner frees the port */

static void port_unbind_frees(struct kunit *test)
{
	struct test_id *a = new_id(test, "10.0.0.1", PORT, NULL, 0);
	struct test_id *b = new_id(test, "10.0.0.1", PORT, NULL, 0);
	struct test_id *c = new_id(test, "10.0.0.1", PORT, NULL, 0);

	a->b.reuseaddr = true;
	b->b.reuseaddr = true;
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&a->b, RDMA_PS_TCP), 0);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&b->b, RDMA_PS_TCP), 0);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, PORT), 2U);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&c->b, RDMA_PS_TCP), -EADDRINUSE);

	xcma_port_unbind(&a->b);
	KUNIT_EXPECT_FALSE(test, xcma_port_is_bound(&a->b));
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, PORT), 1U);
	xcma_port_unbind(&a->b);	/* not bound: nothing happens */
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, PORT), 1U);
	xcma_port_unbind(&b->b);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, PORT), 0U);

	KUNIT_EXPECT_EQ(test, xcma_port_bind(&c->b, RDMA_PS_TCP), 0);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, PORT), 1U);
	/* an id that was unbound goes through the checks again */
	KUNIT_EXPECT_EQ(test, xcma_port_bind(&a->b, RDMA_PS_TCP), -EADDRINUSE);
}

/*
 * Namespaces have separate tables. The other namespace is only a key
 * here: a zeroed struct net is enough for binds to a specific port.
 */
static void port_netns_separate(struct kunit *test)
{
	struct net *other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	struct test_id *a, *b, *c;

	KUNIT_ASSERT_NOT_NULL(test, other);
	a = new_id(test, "10.0.0.1", PORT, NULL, 0);
	b = new_id_in(test, other, "10.0.0.1", PORT, NULL, 0);
	c = new_id_in(test, other, "10.0.0.1", PORT, NULL, 0);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&a->b, RDMA_PS_TCP), 0);
	KUNIT_EXPECT_EQ(test, xcma_port_bind(&b->b, RDMA_PS_TCP), 0);
	KUNIT_EXPECT_EQ(test, xcma_port_bind(&c->b, RDMA_PS_TCP), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(&init_net, RDMA_PS_TCP, PORT), 1U);
	KUNIT_EXPECT_EQ(test, xcma_port_owners(other, RDMA_PS_TCP, PORT), 1U);
}

/* what resolution writes into a bound id counts for later binds */
static void port_set_src_keeps_port(struct kunit *test)
{
	struct test_id *a = new_id(test, "0.0.0.0", 0, "10.0.0.9", 1);
	struct test_id *b, *c;
	struct sockaddr_storage resolved;
	u16 port;

	KUNIT_ASSERT_EQ(test, xcma_port_bind(&a->b, RDMA_PS_TCP), 0);
	port = port_of(a);
	sockaddr_from_str(test, &resolved, "10.0.0.5", 0);
	KUNIT_ASSERT_EQ(test, xcma_port_set_src(&a->b, (struct sockaddr *)&resolved),
			0);
	KUNIT_EXPECT_EQ(test, port_of(a), port);

	b = new_id(test, "10.0.0.5", port, NULL, 0);
	c = new_id(test, "10.0.0.6", port, NULL, 0);
	KUNIT_EXPECT_EQ(test, xcma_port_bind(&b->b, RDMA_PS_TCP), -EADDRINUSE);
	KUNIT_EXPECT_EQ(test, xcma_port_bind(&c->b, RDMA_PS_TCP), 0);

	sockaddr_from_str(test, &resolved, "unix", 0);
	KUNIT_EXPECT_EQ(test, xcma_port_set_src(&a->b, (struct sockaddr *)&resolved),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, xcma_port_set_dst(&a->b, (struct sockaddr *)&resolved),
			-EAFNOSUPPORT);
	KUNIT_EXPECT_EQ(test, a->addr.src_addr.ss_family, AF_INET);
	KUNIT_EXPECT_EQ(test, a->addr.dst_addr.ss_family, AF_INET);
}

/* rdma_set_afonly() and rdma_set_reuseaddr() on a bound id */
static void port_setters_on_bound(struct kunit *test)
{
	struct test_id *a = new_id(test, "0.0.0.0", PORT, NULL, 0);
	struct test_id *b = new_id(test, "::", PORT, NULL, 0);
	struct test_id *c = new_id(test, "0.0.0.0", PORT, NULL, 0);

	b->b.afonly = true;
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&a->b, RDMA_PS_TCP), 0);
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&b->b, RDMA_PS_TCP), -EADDRNOTAVAIL);
	xcma_port_set_afonly(&a->b, true);
	KUNIT_EXPECT_EQ(test, xcma_port_bind(&b->b, RDMA_PS_TCP), 0);

	c->b.reuseaddr = true;
	c->b.afonly = true;
	KUNIT_ASSERT_EQ(test, xcma_port_bind(&c->b, RDMA_PS_TCP), -EADDRNOTAVAIL);
	xcma_port_set_reuseaddr(&a->b, true);
	KUNIT_EXPECT_EQ(test, xcma_port_bind(&c->b, RDMA_PS_TCP), 0);
}

struct afonly_case {
	const char *name;
	sa_family_t family;
	int afonly;		/* -1: the namespace's bindv6only */
};

static const struct afonly_case afonly_cases[] = {
	{ "inet", AF_INET, 1 },
	{ "inet6", AF_INET6, -1 },
	{ "ib", AF_IB, 0 },
};

KUNIT_ARRAY_PARAM_DESC(afonly, afonly_cases, name);

static void port_default_afonly(struct kunit *test)
{
	const struct afonly_case *c = test->param_value;
	bool expect = c->afonly;

	if (c->afonly < 0)
		expect = READ_ONCE(init_net.ipv6.sysctl.bindv6only);
	KUNIT_EXPECT_EQ(test, xcma_port_default_afonly(&init_net, c->family),
			expect);
}

static struct kunit_case port_cases[] = {
	KUNIT_CASE_PARAM(port_bind_conflicts, bind_gen_params),
	KUNIT_CASE_PARAM(port_listen_recheck, listen_gen_params),
	KUNIT_CASE_PARAM(port_privileged, priv_gen_params),
	KUNIT_CASE_PARAM(port_space_select, ps_gen_params),
	KUNIT_CASE_PARAM(port_ib_space, ib_ps_gen_params),
	KUNIT_CASE(port_ephemeral_in_range),
	KUNIT_CASE(port_ephemeral_exhausted),
	KUNIT_CASE(port_ephemeral_skips_last_used),
	KUNIT_CASE_PARAM(port_ephemeral_sharing, share_gen_params),
	KUNIT_CASE(port_unbind_frees),
	KUNIT_CASE(port_netns_separate),
	KUNIT_CASE(port_set_src_keeps_port),
	KUNIT_CASE(port_setters_on_bound),
	KUNIT_CASE_PARAM(port_default_afonly, afonly_gen_params),
	{}
};

static struct kunit_suite port_suite = {
	.name = "xcma_port",
	.init = xcma_kunit_sweep_init,
	.test_cases = port_cases,
};

kunit_test_suite(port_suite);
