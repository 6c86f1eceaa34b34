// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_module_ref: G8, xcma.ko cannot be unloaded while an id exists.
 * Every id holds one reference on the module from its creation until it
 * is freed, whoever destroys it: the user, a callback's non-zero return,
 * or its owner after DEVICE_REMOVAL. Each case counts the module's
 * references around what it does and ends where it started.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "xcma_kunit.h"

#define MR_WAIT_MS 10000

/**
 * struct mr_id - an id of these cases and what its callback does
 * @id: the id
 * @wq: woken on every event
 * @events: how many events it got
 * @last: the last one
 * @return_on: 1 + the event on which the callback returns non-zero
 * @destroy_work: destroys @id from a work item (queued on DEVICE_REMOVAL
 *	when the callback returns 0, as a consumer that cleans up later)
 * @destroyed: @destroy_work is done
 */
struct mr_id {
	struct rdma_cm_id *id;
	wait_queue_head_t wq;
	int events;
	int last;
	int return_on;
	struct work_struct destroy_work;
	bool destroyed;
};

static void mr_destroy_work(struct work_struct *work)
{
	struct mr_id *m = container_of(work, struct mr_id, destroy_work);

	rdma_destroy_id(m->id);
	WRITE_ONCE(m->destroyed, true);
	wake_up(&m->wq);
}

static int mr_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct mr_id *m = id->context;

	/* a conn id: refused by returning non-zero, which destroys it */
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return 1;
	WRITE_ONCE(m->last, ev->event);
	WRITE_ONCE(m->events, m->events + 1);
	wake_up(&m->wq);
	if (m->return_on == ev->event + 1)
		return 1;
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		schedule_work(&m->destroy_work);
	return 0;
}

static struct mr_id *mr_new(struct kunit *test, int return_on)
{
	struct mr_id *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, m);
	init_waitqueue_head(&m->wq);
	INIT_WORK(&m->destroy_work, mr_destroy_work);
	m->return_on = return_on;
	m->id = rdma_create_id(&init_net, mr_handler, m, RDMA_PS_TCP,
			       IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m->id));
	return m;
}

static void mr_addr(struct sockaddr_in *sin, const char *ip, u16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (ip)
		sin->sin_addr.s_addr = in_aton(ip);
}

static int mr_bind(struct mr_id *m, const char *ip, u16 port)
{
	struct sockaddr_in sin;

	mr_addr(&sin, ip, port);
	return rdma_bind_addr(m->id, (struct sockaddr *)&sin);
}

static bool mr_wait_event(struct mr_id *m, int count)
{
	return wait_event_timeout(m->wq, READ_ONCE(m->events) >= count,
				  msecs_to_jiffies(MR_WAIT_MS)) > 0;
}

/*
 * A destroy by return frees the id after its callback has returned, in
 * the event source's thread: wait a little for the count.
 */
static int mr_refs_settle(int want)
{
	int i, refs = xcma_id_module_refs();

	for (i = 0; i < 200 && refs != want; i++) {
		usleep_range(10000, 20000);
		refs = xcma_id_module_refs();
	}
	return refs;
}

static void one_ref_per_live_id(struct kunit *test)
{
	int base = xcma_id_module_refs();
	struct mr_id *a, *b, *c;

	a = mr_new(test, 0);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base + 1);
	b = mr_new(test, 0);
	c = mr_new(test, 0);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base + 3);
	/* holding a device changes nothing */
	KUNIT_EXPECT_EQ(test, mr_bind(b, "10.99.0.1", 18701), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base + 3);
	rdma_destroy_id(b->id);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base + 2);
	rdma_destroy_id(a->id);
	rdma_destroy_id(c->id);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base);
}

/* a wildcard listener and its per-device child on rxe0 */
static void wildcard_listener_and_child(struct kunit *test)
{
	int base = xcma_id_module_refs();
	struct mr_id *w = mr_new(test, 0);

	KUNIT_ASSERT_EQ(test, mr_bind(w, NULL, 18702), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(w->id, 8), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base + 2);
	rdma_destroy_id(w->id);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base);
}

/*
 * The listener refuses the request by returning non-zero from the conn
 * id's CONNECT_REQUEST: the conn id is gone before the REJ goes out. The
 * client returns non-zero from REJECTED, and an id of its own from
 * ADDR_RESOLVED.
 */
static void destroyed_by_callback_return(struct kunit *test)
{
	struct rdma_conn_param param = { .retry_count = 7 };
	int base = xcma_id_module_refs();
	struct mr_id *lis, *cli, *res;
	struct sockaddr_in d;

	mr_addr(&d, "10.99.0.1", 18703);
	res = mr_new(test, RDMA_CM_EVENT_ADDR_RESOLVED + 1);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(res->id, NULL,
						(struct sockaddr *)&d, 2000), 0);
	KUNIT_ASSERT_TRUE(test, mr_wait_event(res, 1));
	KUNIT_EXPECT_EQ(test, res->last, RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_EXPECT_EQ(test, mr_refs_settle(base), base);

	lis = mr_new(test, 0);
	KUNIT_ASSERT_EQ(test, mr_bind(lis, "10.99.0.1", 18703), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis->id, 8), 0);
	cli = mr_new(test, RDMA_CM_EVENT_REJECTED + 1);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(cli->id, NULL,
						(struct sockaddr *)&d, 2000), 0);
	KUNIT_ASSERT_TRUE(test, mr_wait_event(cli, 1));
	KUNIT_ASSERT_EQ(test, cli->last, RDMA_CM_EVENT_ADDR_RESOLVED);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(cli->id, 2000), 0);
	KUNIT_ASSERT_TRUE(test, mr_wait_event(cli, 2));
	KUNIT_ASSERT_EQ(test, cli->last, RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_ASSERT_EQ(test, rdma_connect(cli->id, &param), 0);
	KUNIT_ASSERT_TRUE(test, mr_wait_event(cli, 3));
	KUNIT_EXPECT_EQ(test, cli->last, RDMA_CM_EVENT_REJECTED);
	/* the listener and the client, which is on its way out */
	KUNIT_EXPECT_LE(test, xcma_id_module_refs(), base + 2);
	KUNIT_EXPECT_EQ(test, mr_refs_settle(base + 1), base + 1);
	rdma_destroy_id(lis->id);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base);
}

/* after rdma link add, rxe0's GIDs appear a little later */
static int mr_wait_bindable(struct kunit *test)
{
	int i, ret = -ENODEV;

	for (i = 0; i < 100 && ret; i++) {
		struct mr_id *p = mr_new(test, 0);

		ret = mr_bind(p, "10.99.0.1", 18706);
		rdma_destroy_id(p->id);
		if (ret)
			msleep(50);
	}
	return ret;
}

/*
 * rdma link delete rxe0 with three ids: one returns non-zero from
 * DEVICE_REMOVAL, one destroys itself later from a work item, and a
 * wildcard listener whose child on rxe0 goes quietly; the listener
 * survives and gets a child again when rxe0 comes back.
 */
static void removal_releases_refs(struct kunit *test)
{
	int base = xcma_id_module_refs();
	struct mr_id *a, *b, *w;
	int ret;

	a = mr_new(test, RDMA_CM_EVENT_DEVICE_REMOVAL + 1);
	b = mr_new(test, 0);
	w = mr_new(test, 0);
	KUNIT_ASSERT_EQ(test, mr_bind(a, "10.99.0.1", 18704), 0);
	KUNIT_ASSERT_EQ(test, mr_bind(b, "10.99.0.1", 18705), 0);
	KUNIT_ASSERT_EQ(test, mr_bind(w, NULL, 18707), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(w->id, 8), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base + 4);

	/* returns once a and b have released rxe0 */
	ret = xcma_kunit_run(test, "/usr/sbin/rdma link delete rxe0");
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, wait_event_timeout(b->wq,
						   READ_ONCE(b->destroyed),
						   msecs_to_jiffies(MR_WAIT_MS)));
	KUNIT_EXPECT_EQ(test, a->last, RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, b->last, RDMA_CM_EVENT_DEVICE_REMOVAL);
	KUNIT_EXPECT_EQ(test, w->events, 0);
	KUNIT_EXPECT_EQ(test, mr_refs_settle(base + 1), base + 1);

	ret = xcma_kunit_run(test,
			     "/usr/sbin/rdma link add rxe0 type rxe netdev eth0");
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, mr_wait_bindable(test), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base + 2);
	rdma_destroy_id(w->id);
	KUNIT_EXPECT_EQ(test, xcma_id_module_refs(), base);
}

static struct kunit_case module_ref_cases[] = {
	KUNIT_CASE(one_ref_per_live_id),
	KUNIT_CASE(wildcard_listener_and_child),
	KUNIT_CASE(destroyed_by_callback_return),
	KUNIT_CASE_SLOW(removal_releases_refs),
	{}
};

static struct kunit_suite module_ref_suite = {
	.name = "xcma_module_ref",
	.init = xcma_kunit_sweep_init,
	.test_cases = module_ref_cases,
};

kunit_test_suite(module_ref_suite);
