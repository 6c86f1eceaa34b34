// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_neigh: RDMA_CM_EVENT_UNREACHABLE when a neighbour changes its
 * hardware address (cma/neigh.c). Each case puts a permanent neighbour on
 * rxe0's eth0 with neigh_update() (what `ip neigh replace ... nud
 * permanent` does), resolves an id's address and route to it, and changes
 * the neighbour's lladdr through the kernel's own neigh_update(), whose
 * NETEVENT_NEIGH_UPDATE reaches xcma's notifier.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <net/arp.h>
#include <net/ndisc.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/neigh.h"
#include "cm_util.h"
#include "xcma_kunit.h"

#define PORT 18801
#define STORM 1000

static const u8 mac1[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x99, 0x00, 0x01 };
static const u8 mac2[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x99, 0x00, 0x02 };
static const u8 mac3[ETH_ALEN] = { 0x02, 0x00, 0x5e, 0x99, 0x00, 0x03 };

/* ---- a permanent neighbour on eth0, failed again when the case ends ---- */

struct nb {
	struct neighbour *n;
	struct sockaddr_storage addr;
};

static void nb_drop(void *arg)
{
	struct nb *b = arg;

	neigh_update(b->n, NULL, NUD_FAILED,
		     NEIGH_UPDATE_F_OVERRIDE | NEIGH_UPDATE_F_ADMIN, 0);
	neigh_release(b->n);
}

static int set_lladdr(struct nb *b, const u8 *mac, u8 state)
{
	return neigh_update(b->n, mac, state,
			    NEIGH_UPDATE_F_OVERRIDE | NEIGH_UPDATE_F_ADMIN, 0);
}

/* @ip on eth0 at @mac (IPv6 if it has a colon) */
static struct nb *nb_add(struct kunit *test, const char *ip, const u8 *mac)
{
	struct nb *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct net_device *ndev;
	const void *key;

	KUNIT_ASSERT_NOT_NULL(test, b);
	ndev = dev_get_by_name(&init_net, "eth0");
	KUNIT_ASSERT_NOT_NULL(test, ndev);
	if (strchr(ip, ':')) {
		cm_addr6(&b->addr, ip, PORT);
		key = &((struct sockaddr_in6 *)&b->addr)->sin6_addr;
		b->n = __neigh_lookup(&nd_tbl, key, ndev, 1);
	} else {
		cm_addr4(&b->addr, ip, PORT);
		key = &((struct sockaddr_in *)&b->addr)->sin_addr;
		b->n = __neigh_lookup(&arp_tbl, key, ndev, 1);
	}
	dev_put(ndev);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b->n);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, nb_drop, b), 0);
	KUNIT_ASSERT_EQ(test, set_lladdr(b, mac, NUD_PERMANENT), 0);
	return b;
}

/* ---- helpers ---- */

/* an id whose address and route are resolved to @b */
static struct rdma_cm_id *routed(struct kunit *test, struct side *s,
				 struct nb *b)
{
	struct rdma_cm_id *id = cm_new_id(test, s, IB_QPT_RC);

	KUNIT_ASSERT_EQ(test, cm_resolve(test, s, id, NULL, &b->addr), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ROUTE_RESOLVED);
	KUNIT_EXPECT_MEMEQ(test, id->route.addr.dev_addr.dst_dev_addr,
			   b->n->ha, ETH_ALEN);
	KUNIT_EXPECT_TRUE(test, xcma_neigh_watched(xcma_id_of(id)));
	return id;
}

static int count_of(struct side *s, int event)
{
	int i, n = 0;

	for (i = 0; i < s->n; i++)
		n += s->ev[i] == event;
	return n;
}

/* no UNREACHABLE follows a DEVICE_REMOVAL in @s's log */
static bool nothing_after_removal(struct side *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->ev[i] == RDMA_CM_EVENT_DEVICE_REMOVAL)
			return i == s->n - 1;
	return true;
}

/* counts NETEVENT_NEIGH_UPDATE for one neighbour, for the no-event case */
struct nev_counter {
	struct notifier_block nb;
	struct neighbour *n;
	atomic_t seen;
};

static int nev_count(struct notifier_block *nb, unsigned long event, void *p)
{
	struct nev_counter *c = container_of(nb, struct nev_counter, nb);

	if (event == NETEVENT_NEIGH_UPDATE && p == c->n)
		atomic_inc(&c->seen);
	return NOTIFY_DONE;
}

static void nev_unregister(void *arg)
{
	unregister_netevent_notifier(arg);
}

struct bg {
	struct rdma_cm_id *id;
	struct kunit *test;
	const char *cmd;
	struct completion done;
	int ret;
};

static int bg_fn(void *arg)
{
	struct bg *g = arg;

	if (g->id)
		rdma_destroy_id(g->id);
	else
		g->ret = xcma_kunit_run(g->test, g->cmd);
	complete(&g->done);
	return 0;
}

static void bg_start(struct kunit *test, struct bg *g)
{
	struct task_struct *t;

	init_completion(&g->done);
	g->test = test;
	t = kthread_run(bg_fn, g, "xcma_kunit_neigh");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
}

static bool bg_wait(struct bg *g)
{
	return wait_for_completion_timeout(&g->done,
					   msecs_to_jiffies(WAIT_MS)) > 0;
}

static bool entered(struct side *s)
{
	return wait_for_completion_timeout(&s->entered,
					   msecs_to_jiffies(WAIT_MS)) > 0;
}

/* the id's UNREACHABLE work has left the queue and runs (blocked) */
static bool work_running(struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < 2000; i++) {
		if (work_busy(&id->net_work) == WORK_BUSY_RUNNING)
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

/* the remover's cancel, which follows the callback, took it out */
static bool left_index(struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < 2000 && xcma_neigh_watched(xcma_id_of(id)); i++)
		usleep_range(1000, 2000);
	return !xcma_neigh_watched(xcma_id_of(id));
}

/* ---- the cases ---- */

static const char *const families[] = { "10.99.0.71", "fd00:99::71" };

static void family_desc(const char *const *ip, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s",
		 strchr(*ip, ':') ? "ipv6" : "ipv4");
}

KUNIT_ARRAY_PARAM(family, families, family_desc);

/*
 * A new lladdr: one UNREACHABLE -ETIMEDOUT per update for the id routed
 * to that neighbour, the state unchanged; nothing for an id routed to
 * another neighbour, nor for one whose route is not resolved (in-tree
 * files ids at rdma_resolve_route()).
 */
static void neigh_new_lladdr(struct kunit *test)
{
	const char *ip = *(const char *const *)test->param_value;
	bool v6 = strchr(ip, ':');
	struct side *s = cm_new_side(test), *so = cm_new_side(test);
	struct side *sr = cm_new_side(test);
	struct nb *b = nb_add(test, ip, mac1);
	struct nb *o = nb_add(test, v6 ? "fd00:99::72" : "10.99.0.72", mac1);
	struct rdma_cm_id *id, *other, *addr_only;

	id = routed(test, s, b);
	other = routed(test, so, o);
	addr_only = cm_new_id(test, sr, IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, rdma_resolve_addr(addr_only, NULL,
						(struct sockaddr *)&b->addr,
						2000), 0);
	KUNIT_EXPECT_TRUE(test, cm_wait_events(sr, false, 1));
	KUNIT_EXPECT_EQ(test, sr->ev[0], RDMA_CM_EVENT_ADDR_RESOLVED);

	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac2, NUD_PERMANENT), 0);
	xcma_neigh_flush();
	KUNIT_EXPECT_EQ(test, s->n, 3);
	KUNIT_EXPECT_EQ(test, s->ev[2], RDMA_CM_EVENT_UNREACHABLE);
	KUNIT_EXPECT_EQ(test, s->st[2], -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ROUTE_RESOLVED);
	KUNIT_EXPECT_EQ(test, so->n, 2);
	KUNIT_EXPECT_EQ(test, sr->n, 1);

	/* the id still resolved mac1: the next update is news again */
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac3, NUD_PERMANENT), 0);
	xcma_neigh_flush();
	KUNIT_EXPECT_EQ(test, count_of(s, RDMA_CM_EVENT_UNREACHABLE), 2);
	KUNIT_EXPECT_EQ(test, so->n, 2);
	KUNIT_EXPECT_EQ(test, sr->n, 1);

	rdma_destroy_id(id);
	rdma_destroy_id(other);
	rdma_destroy_id(addr_only);
}

/*
 * An update that keeps the lladdr the id resolved (a state change: the
 * netevent does fire) gives nothing.
 */
static void neigh_same_lladdr(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct nb *b = nb_add(test, "10.99.0.73", mac1);
	struct nev_counter *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	struct rdma_cm_id *id;

	KUNIT_ASSERT_NOT_NULL(test, c);
	id = routed(test, s, b);
	c->nb.notifier_call = nev_count;
	c->n = b->n;
	KUNIT_ASSERT_EQ(test, register_netevent_notifier(&c->nb), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, nev_unregister,
							&c->nb), 0);
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac1, NUD_STALE), 0);
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac1, NUD_PERMANENT), 0);
	KUNIT_EXPECT_GE(test, atomic_read(&c->seen), 1);
	KUNIT_EXPECT_EQ(test, xcma_neigh_update(b->n), 0);
	xcma_neigh_flush();
	msleep(50);
	KUNIT_EXPECT_EQ(test, s->n, 2);
	rdma_destroy_id(id);
}

/*
 * A storm of updates while the id's callback runs queues its work once:
 * two UNREACHABLEs in all. Also times the notifier's lookup.
 */
static void neigh_storm_coalesces(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct nb *b = nb_add(test, "10.99.0.74", mac1);
	unsigned int queued = 0;
	struct rdma_cm_id *id;
	ktime_t t0;
	int i;

	id = routed(test, s, b);
	s->block_on = RDMA_CM_EVENT_UNREACHABLE + 1;
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac2, NUD_PERMANENT), 0);
	KUNIT_ASSERT_TRUE(test, entered(s));
	t0 = ktime_get();
	for (i = 0; i < STORM; i++)
		queued += xcma_neigh_update(b->n);
	kunit_info(test, "%d updates of one watched neighbour: %lld ns each\n",
		   STORM, ktime_to_ns(ktime_sub(ktime_get(), t0)) / STORM);
	t0 = ktime_get();
	for (i = 0; i < STORM; i++)
		KUNIT_EXPECT_EQ(test, set_lladdr(b, i & 1 ? mac2 : mac3,
						 NUD_PERMANENT), 0);
	kunit_info(test, "%d lladdr changes by neigh_update(): %lld ns each\n",
		   STORM, ktime_to_ns(ktime_sub(ktime_get(), t0)) / STORM);
	KUNIT_EXPECT_EQ(test, queued, 1);
	/* the queued one must not block: only the first callback does */
	s->block_on = 0;
	complete(&s->release);
	xcma_neigh_flush();
	KUNIT_EXPECT_EQ(test, s->err, 0);
	KUNIT_EXPECT_EQ(test, count_of(s, RDMA_CM_EVENT_UNREACHABLE), 2);
	KUNIT_EXPECT_EQ(test, s->n, 4);
	rdma_destroy_id(id);
}

/*
 * Destroy racing the work: the test holds the id's handler lock; the
 * destroy waits for it first, then a neighbour update's work (running,
 * second in line for the lock), then a second update queues the work
 * again. Unlocked, the destroy goes first (mutex waiters are woken in
 * order): it takes the queued work back with its reference, waits for the
 * running one, which finds the id DESTROYING, and frees the id. Nothing
 * reaches the id, and a later update walks no freed id (KASAN would say).
 */
static void neigh_destroy_racing_work(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct nb *b = nb_add(test, "10.99.0.75", mac1);
	struct bg *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned int live = xcma_id_live();
	struct rdma_cm_id *id;

	KUNIT_ASSERT_NOT_NULL(test, g);
	id = routed(test, s, b);
	rdma_lock_handler(id);
	g->id = id;
	bg_start(test, g);
	msleep(100);
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac2, NUD_PERMANENT), 0);
	KUNIT_EXPECT_TRUE(test, work_running(id));
	KUNIT_EXPECT_EQ(test, xcma_neigh_update(b->n), 1);
	KUNIT_EXPECT_FALSE(test, completion_done(&g->done));
	rdma_unlock_handler(id);
	KUNIT_ASSERT_TRUE(test, bg_wait(g));
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac3, NUD_PERMANENT), 0);
	KUNIT_EXPECT_EQ(test, xcma_neigh_update(b->n), 0);
	xcma_neigh_flush();
	KUNIT_EXPECT_EQ(test, s->n, 2);
	KUNIT_EXPECT_EQ(test, count_of(s, RDMA_CM_EVENT_UNREACHABLE), 0);
}

/* a callback returning non-zero for UNREACHABLE destroys its id */
static void neigh_nonzero_return_destroys(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct nb *b = nb_add(test, "10.99.0.76", mac1);
	unsigned int live = xcma_id_live();

	s->destroy_on = RDMA_CM_EVENT_UNREACHABLE + 1;
	routed(test, s, b);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live + 1);
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac2, NUD_PERMANENT), 0);
	xcma_neigh_flush();
	KUNIT_EXPECT_EQ(test, s->n, 3);
	KUNIT_EXPECT_EQ(test, s->ev[2], RDMA_CM_EVENT_UNREACHABLE);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
	/* gone from the index too */
	KUNIT_EXPECT_EQ(test, xcma_neigh_update(b->n), 0);
}

/*
 * The same while connecting (REQ sent, no host answers): UNREACHABLE in
 * CONNECT, and the non-zero return destroys the id with its ib_cm id, so
 * no REQ timeout ever reaches the freed id (KASAN would say).
 */
static void neigh_nonzero_return_connecting(struct kunit *test)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct side *s = cm_new_side(test);
	struct nb *b = nb_add(test, "10.99.0.79", mac1);
	unsigned int live = xcma_id_live();
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;

	s->destroy_on = RDMA_CM_EVENT_UNREACHABLE + 1;
	id = routed(test, s, b);
	KUNIT_ASSERT_EQ(test, cm_make_qp(id, &pd, &cq), 0);
	KUNIT_ASSERT_EQ(test, rdma_connect(id, &param), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_CONNECT);
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac2, NUD_PERMANENT), 0);
	xcma_neigh_flush();
	KUNIT_EXPECT_EQ(test, s->n, 3);
	KUNIT_EXPECT_EQ(test, s->ev[2], RDMA_CM_EVENT_UNREACHABLE);
	KUNIT_EXPECT_EQ(test, s->st[2], -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
	ib_free_cq(cq);
	ib_dealloc_pd(pd);
}

/*
 * Device removal: an update that arrives while the id's DEVICE_REMOVAL
 * callback runs queues its work, which then finds the id DEVICE_REMOVAL
 * and drops the event (G4); the removal takes the id out of the index
 * before the user destroys it.
 */
static void neigh_not_after_removal(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct nb *b = nb_add(test, "10.99.0.77", mac1);
	struct bg *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	struct rdma_cm_id *id;

	KUNIT_ASSERT_NOT_NULL(test, g);
	id = routed(test, s, b);
	s->block_on = RDMA_CM_EVENT_DEVICE_REMOVAL + 1;
	g->cmd = CM_RXE_DELETE;
	bg_start(test, g);
	KUNIT_ASSERT_TRUE(test, entered(s));
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac2, NUD_PERMANENT), 0);
	KUNIT_EXPECT_TRUE(test, work_running(id));
	complete(&s->release);
	xcma_neigh_flush();
	KUNIT_EXPECT_TRUE(test, left_index(id));
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac3, NUD_PERMANENT), 0);
	KUNIT_EXPECT_EQ(test, xcma_neigh_update(b->n), 0);
	xcma_neigh_flush();
	KUNIT_EXPECT_EQ(test, s->n, 3);
	KUNIT_EXPECT_EQ(test, s->ev[2], RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_TRUE(test, nothing_after_removal(s));
	KUNIT_EXPECT_EQ(test, count_of(s, RDMA_CM_EVENT_UNREACHABLE), 0);
	rdma_destroy_id(id);
	KUNIT_EXPECT_TRUE(test, bg_wait(g));
	KUNIT_EXPECT_EQ(test, g->ret, 0);
	KUNIT_EXPECT_EQ(test, cm_rxe_add(test), 0);
}

/*
 * Once out of the index an id never enters again: a route resolution
 * racing the removal's cancel files nothing that outlives the id.
 */
static void neigh_left_for_good(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct nb *b = nb_add(test, "10.99.0.78", mac1);
	struct rdma_cm_id *id;

	id = routed(test, s, b);
	/* what the library's cancel does, then what a late route would do */
	xcma_neigh_unwatch(xcma_id_of(id));
	xcma_neigh_watch(xcma_id_of(id));
	KUNIT_EXPECT_FALSE(test, xcma_neigh_watched(xcma_id_of(id)));
	KUNIT_EXPECT_EQ(test, set_lladdr(b, mac2, NUD_PERMANENT), 0);
	xcma_neigh_flush();
	KUNIT_EXPECT_EQ(test, s->n, 2);
	rdma_destroy_id(id);
}

static struct kunit_case neigh_cases[] = {
	KUNIT_CASE_PARAM(neigh_new_lladdr, family_gen_params),
	KUNIT_CASE(neigh_same_lladdr),
	KUNIT_CASE(neigh_storm_coalesces),
	KUNIT_CASE(neigh_destroy_racing_work),
	KUNIT_CASE(neigh_nonzero_return_destroys),
	KUNIT_CASE(neigh_nonzero_return_connecting),
	KUNIT_CASE(neigh_not_after_removal),
	KUNIT_CASE(neigh_left_for_good),
	{}
};

static struct kunit_suite neigh_suite = {
	.name = "xcma_neigh",
	.init = xcma_kunit_sweep_init,
	.test_cases = neigh_cases,
};

kunit_test_suite(neigh_suite);
