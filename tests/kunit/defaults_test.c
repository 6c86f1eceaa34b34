// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_defaults: the per-port defaults behind configfs default_roce_mode
 * and default_roce_tos (cma/defaults.c), with the in-tree rules and
 * values, and their effect on ids resolved afterwards. The KUnit kernel
 * has no configfs: the tree itself is tested on the stock kernels
 * (tests/vm/configfs.sh).
 */
#include <kunit/test.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>

#include "../../cma/defaults.h"
#include "../../cma/device.h"
#include "cm_util.h"
#include "xcma_kunit.h"

#define PORT 18721

/* ---- names ---- */

struct parse_case {
	const char *in;
	int type;
};

static const struct parse_case parse_cases[] = {
	{ "RoCE v2", IB_GID_TYPE_ROCE_UDP_ENCAP },
	{ "RoCE v2\n", IB_GID_TYPE_ROCE_UDP_ENCAP },
	{ "IB/RoCE v1", IB_GID_TYPE_IB },
	{ "IB/RoCE v1\n", IB_GID_TYPE_IB },
	{ "RoCE v2\n\n", -EINVAL },
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ "roce v2", -EINVAL },
	{ "RoCE v", -EINVAL },
	{ "RoCE v2 ", -EINVAL },
	{ "RoCE v1", -EINVAL },
	{ "IB", -EINVAL },
};

static void parse_desc(const struct parse_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"", (int)strlen(c->in),
		 c->in);
}

KUNIT_ARRAY_PARAM(parse, parse_cases, parse_desc);

static void defaults_parse(struct kunit *test)
{
	const struct parse_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, xcma_defaults_parse_gid_type(c->in), c->type);
}

static void defaults_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, xcma_defaults_gid_type_str(IB_GID_TYPE_IB),
			   "IB/RoCE v1");
	KUNIT_EXPECT_STREQ(test, xcma_defaults_gid_type_str(IB_GID_TYPE_ROCE),
			   "IB/RoCE v1");
	KUNIT_EXPECT_STREQ(test,
			   xcma_defaults_gid_type_str(IB_GID_TYPE_ROCE_UDP_ENCAP),
			   "RoCE v2");
	KUNIT_EXPECT_STREQ(test, xcma_defaults_gid_type_str(3),
			   "Invalid GID type");
	KUNIT_EXPECT_STREQ(test, xcma_defaults_gid_type_str(-1),
			   "Invalid GID type");
}

/* ---- rxe0's values (RoCE v2 only) ---- */

struct rxe_access {
	struct kunit *test;
	void (*fn)(struct kunit *test, struct xcma_device *dev);
};

static int rxe_call(struct xcma_device *dev, void *arg)
{
	struct rxe_access *a = arg;

	a->fn(a->test, dev);
	return 0;
}

/* @fn on rxe0, under devices_lock */
static void on_rxe0(struct kunit *test,
		    void (*fn)(struct kunit *test, struct xcma_device *dev))
{
	struct rxe_access a = { test, fn };

	KUNIT_ASSERT_EQ(test, xcma_device_with("rxe0", rxe_call, &a), 0);
}

static int set_type(struct xcma_device *dev, int type)
{
	return xcma_defaults_set_gid_type(dev->defaults, 1, type);
}

static void check_rules(struct kunit *test, struct xcma_device *dev)
{
	const int v2 = IB_GID_TYPE_ROCE_UDP_ENCAP;

	KUNIT_EXPECT_EQ(test, xcma_defaults_gid_type(dev->defaults, 1),
			IB_GID_TYPE_ROCE_UDP_ENCAP);
	KUNIT_EXPECT_EQ(test, xcma_defaults_tos(dev->defaults, 1), 0);
	/* rxe has no RoCE v1: "IB/RoCE v1" is refused, as in-tree */
	KUNIT_EXPECT_EQ(test, xcma_defaults_set_gid_type(dev->defaults, 1, IB_GID_TYPE_IB),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, set_type(dev, IB_GID_TYPE_ROCE), -EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_defaults_set_gid_type(dev->defaults, 1, 99), -EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_defaults_set_gid_type(dev->defaults, 1, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_defaults_gid_type(dev->defaults, 1),
			IB_GID_TYPE_ROCE_UDP_ENCAP);
	KUNIT_EXPECT_EQ(test, set_type(dev, IB_GID_TYPE_ROCE_UDP_ENCAP), 0);
	/* ports the device lacks */
	KUNIT_EXPECT_EQ(test, xcma_defaults_gid_type(dev->defaults, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_defaults_gid_type(dev->defaults, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_defaults_tos(dev->defaults, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_defaults_set_tos(dev->defaults, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_defaults_set_gid_type(dev->defaults, 2, v2), -EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_defaults_set_tos(dev->defaults, 1, 255), 0);
	KUNIT_EXPECT_EQ(test, xcma_defaults_tos(dev->defaults, 1), 255);
	KUNIT_EXPECT_EQ(test, xcma_defaults_set_tos(dev->defaults, 1, 0), 0);
}

static void defaults_rxe0_rules(struct kunit *test)
{
	on_rxe0(test, check_rules);
}

static int get_tos(struct xcma_device *dev, void *arg)
{
	*(int *)arg = xcma_defaults_tos(dev->defaults, 1);
	return 0;
}

static int set_tos(struct xcma_device *dev, void *arg)
{
	return xcma_defaults_set_tos(dev->defaults, 1, *(u8 *)arg);
}

static void reset_tos(void *unused)
{
	u8 zero = 0;

	xcma_device_with("rxe0", set_tos, &zero);
}

/* resolve address and route of a new id to rxe0's own address */
static struct rdma_cm_id *routed(struct kunit *test, struct side *s, int tos)
{
	struct rdma_cm_id *id = cm_new_id(test, s, IB_QPT_RC);
	struct sockaddr_storage d;

	if (tos >= 0)
		rdma_set_service_type(id, tos);
	cm_addr4(&d, "10.99.0.1", PORT);
	KUNIT_EXPECT_EQ(test, cm_resolve(test, s, id, NULL, &d), 0);
	return id;
}

/*
 * A route resolved after the default TOS changed carries it, unless the
 * user set one; the source GID is of the default type (RoCE v2).
 */
static void defaults_used_by_resolution(struct kunit *test)
{
	struct side *s0 = cm_new_side(test), *s1 = cm_new_side(test);
	struct side *s2 = cm_new_side(test);
	struct rdma_cm_id *before, *after, *own;
	u8 tos = 32;

	before = routed(test, s0, -1);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, reset_tos, NULL),
			0);
	KUNIT_ASSERT_EQ(test, xcma_device_with("rxe0", set_tos, &tos), 0);
	after = routed(test, s1, -1);
	own = routed(test, s2, 8);

	KUNIT_ASSERT_NOT_NULL(test, before->route.path_rec);
	KUNIT_ASSERT_NOT_NULL(test, after->route.path_rec);
	KUNIT_ASSERT_NOT_NULL(test, own->route.path_rec);
	KUNIT_EXPECT_EQ(test, before->route.path_rec->traffic_class, 0);
	KUNIT_EXPECT_EQ(test, after->route.path_rec->traffic_class, 32);
	KUNIT_EXPECT_EQ(test, own->route.path_rec->traffic_class, 8);
	KUNIT_EXPECT_EQ(test, after->route.path_rec->rec_type,
			SA_PATH_REC_TYPE_ROCE_V2);
	KUNIT_ASSERT_NOT_NULL(test, after->route.addr.dev_addr.sgid_attr);
	KUNIT_EXPECT_EQ(test, after->route.addr.dev_addr.sgid_attr->gid_type,
			IB_GID_TYPE_ROCE_UDP_ENCAP);
	rdma_destroy_id(before);
	rdma_destroy_id(after);
	rdma_destroy_id(own);
}

/* the values go with the device: rxe0 added again starts from 0 */
static void defaults_reset_by_readd(struct kunit *test)
{
	u8 tos = 64;
	int got = -1;

	KUNIT_ASSERT_EQ(test, xcma_device_with("rxe0", set_tos, &tos), 0);
	KUNIT_ASSERT_EQ(test, cm_rxe_delete(test), 0);
	KUNIT_EXPECT_EQ(test, xcma_device_with("rxe0", set_tos, &tos), -ENODEV);
	KUNIT_ASSERT_EQ(test, cm_rxe_add(test), 0);
	KUNIT_EXPECT_EQ(test, xcma_device_with("rxe0", get_tos, &got), 0);
	KUNIT_EXPECT_EQ(test, got, 0);
}

static struct kunit_case defaults_cases[] = {
	KUNIT_CASE_PARAM(defaults_parse, parse_gen_params),
	KUNIT_CASE(defaults_names),
	KUNIT_CASE(defaults_rxe0_rules),
	KUNIT_CASE(defaults_used_by_resolution),
	KUNIT_CASE(defaults_reset_by_readd),
	{}
};

static struct kunit_suite defaults_suite = {
	.name = "xcma_defaults",
	.init = xcma_kunit_sweep_init,
	.test_cases = defaults_cases,
};

kunit_test_suite(defaults_suite);
