// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_device: the ib_client sees the Soft-RoCE device that the VM set up
 * (rxe0 on eth0), sees it go when the link is deleted, releases it, and
 * sees it again when the link is re-added. The cases run in order.
 */
#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/rdma_cm.h>

#include "../../cma/device.h"
#include "xcma/fsm.h"
#include "kunit_inline.h"
#include "xcma_kunit.h"

/**
 * xcma_kunit_run - run a command of the VM's userspace and wait for it
 * @test: the case, for its log; NULL from a suite's init or exit
 * @cmdline: "/path arg ..." split on spaces, at most 15 words
 *
 * Return: the command's exit status, or a negative errno if it could not
 * be started.
 */
int xcma_kunit_run(struct kunit *test, const char *cmdline)
{
	char *buf;
	int ret;

	/* no case (a suite's init or exit): the copy is ours to free */
	buf = test ? kunit_kstrdup(test, cmdline, GFP_KERNEL) :
		     kstrdup(cmdline, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = xcma_kunit_umh(buf);
	if (test)
		kunit_info(test, "'%s' -> %d", cmdline, ret);
	else
		kfree(buf);
	return ret;
}
EXPORT_SYMBOL_GPL(xcma_kunit_run);

static void client_saw_rxe0(struct kunit *test)
{
	struct xcma_device_counters c;
	unsigned int holders;
	int state;

	KUNIT_ASSERT_EQ(test, xcma_device_query("rxe0", &state, &holders), 0);
	KUNIT_EXPECT_EQ(test, state, XCMA_DEV_ACTIVE);
	KUNIT_EXPECT_EQ(test, holders, 0U);
	xcma_device_get_counters(&c);
	KUNIT_EXPECT_GE(test, c.added, 1U);
	KUNIT_EXPECT_EQ(test, c.live, c.added - c.removed);
}

static void link_delete_removes_device(struct kunit *test)
{
	struct xcma_device_counters before, after;
	unsigned int holders;
	int state;

	xcma_device_get_counters(&before);
	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, "/usr/sbin/rdma link delete rxe0"), 0);
	xcma_device_get_counters(&after);
	/* .remove has returned once the netlink call returns */
	KUNIT_EXPECT_EQ(test, xcma_device_query("rxe0", &state, &holders), -ENODEV);
	KUNIT_EXPECT_EQ(test, after.removed, before.removed + 1);
	KUNIT_EXPECT_EQ(test, after.live, before.live - 1);
	KUNIT_EXPECT_EQ(test, after.added, before.added);
}

static void link_readd_is_seen(struct kunit *test)
{
	struct xcma_device_counters before, after;
	unsigned int holders;
	int state;

	xcma_device_get_counters(&before);
	KUNIT_ASSERT_EQ(test,
			xcma_kunit_run(test, "/usr/sbin/rdma link add rxe0 type rxe netdev eth0"),
			0);
	xcma_device_get_counters(&after);
	KUNIT_ASSERT_EQ(test, xcma_device_query("rxe0", &state, &holders), 0);
	KUNIT_EXPECT_EQ(test, state, XCMA_DEV_ACTIVE);
	KUNIT_EXPECT_EQ(test, after.added, before.added + 1);
	KUNIT_EXPECT_EQ(test, after.live, before.live + 1);
}

static void unknown_device_is_enodev(struct kunit *test)
{
	unsigned int holders;
	int state;

	KUNIT_EXPECT_EQ(test, xcma_device_query("nosuchdev", &state, &holders), -ENODEV);
}

struct event_msg_case {
	const char *name;
	int event;
	const char *msg;
};

static const struct event_msg_case event_msg_cases[] = {
	{ "addr_resolved", RDMA_CM_EVENT_ADDR_RESOLVED, "address resolved" },
	{ "route_resolved", RDMA_CM_EVENT_ROUTE_RESOLVED, "route resolved " },
	{ "connect_request", RDMA_CM_EVENT_CONNECT_REQUEST, "connect request" },
	{ "established", RDMA_CM_EVENT_ESTABLISHED, "established" },
	{ "device_removal", RDMA_CM_EVENT_DEVICE_REMOVAL, "device removal" },
	{ "timewait_exit", RDMA_CM_EVENT_TIMEWAIT_EXIT, "timewait exit" },
	{ "past_the_enum", RDMA_CM_EVENT_TIMEWAIT_EXIT + 1, "unrecognized event" },
	{ "negative", -1, "unrecognized event" },
};

static void event_msg_desc(const struct event_msg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(event_msg, event_msg_cases, event_msg_desc);

static void event_msg_strings(struct kunit *test)
{
	const struct event_msg_case *c = test->param_value;

	KUNIT_EXPECT_STREQ(test, rdma_event_msg(c->event), c->msg);
}

static struct kunit_case device_cases[] = {
	KUNIT_CASE(client_saw_rxe0),
	KUNIT_CASE(unknown_device_is_enodev),
	KUNIT_CASE(link_delete_removes_device),
	KUNIT_CASE(link_readd_is_seen),
	KUNIT_CASE_PARAM(event_msg_strings, event_msg_gen_params),
	{}
};

static struct kunit_suite device_suite = {
	.name = "xcma_device",
	.init = xcma_kunit_sweep_init,
	.test_cases = device_cases,
};

kunit_test_suite(device_suite);
