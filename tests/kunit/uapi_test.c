// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The API rdma_ucm needs: user ids, rdma_set_ib_path, rdma_res_to_id,
 * rdma_iw_cm_id, and the ids' entries in ib_core's resource tracking.
 */
#include <kunit/test.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <net/net_namespace.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#include "../../cma/id.h"
#include "cm_util.h"
#include "xcma_kunit.h"

/* an id of @s resolved to 10.99.0.1 (rxe0), ADDR_RESOLVED */
static struct rdma_cm_id *resolved_id(struct kunit *test, struct side *s)
{
	struct rdma_cm_id *id = cm_new_id(test, s, IB_QPT_RC);
	struct sockaddr_storage d;
	int n = s->n;

	cm_addr4(&d, "10.99.0.1", 18600);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(id, NULL,
						(struct sockaddr *)&d, 2000), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, n + 1));
	KUNIT_ASSERT_EQ(test, s->ev[n], RDMA_CM_EVENT_ADDR_RESOLVED);
	return id;
}

static void user_id_owned_by_process(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id;
	struct xcma_id *xid;

	id = rdma_create_user_id(cm_handler, s, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	xid = xcma_id_of(id);
	KUNIT_EXPECT_TRUE(test, xid->res.user);
	KUNIT_EXPECT_PTR_EQ(test, xid->res.task, current);
	KUNIT_EXPECT_NULL(test, xid->res.kern_name);
	KUNIT_EXPECT_PTR_EQ(test, id->route.addr.dev_addr.net,
			    current->nsproxy->net_ns);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_IDLE);
	rdma_destroy_id(id);
}

static void user_id_bad_input(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	unsigned int live = xcma_id_live();

	KUNIT_EXPECT_EQ(test, PTR_ERR(rdma_create_user_id(NULL, s, RDMA_PS_TCP,
							  IB_QPT_RC)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(rdma_create_user_id(cm_handler, s,
							  RDMA_PS_TCP,
							  IB_QPT_UC)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), live);
}

static void kernel_id_owned_by_module(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id = cm_new_id(test, s, IB_QPT_RC);
	struct xcma_id *xid = xcma_id_of(id);

	KUNIT_EXPECT_FALSE(test, xid->res.user);
	KUNIT_EXPECT_NULL(test, xid->res.task);
	KUNIT_EXPECT_STREQ(test, xid->res.kern_name, KBUILD_MODNAME);
	rdma_destroy_id(id);
}

static void res_to_id_and_iw_cm_id(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id = cm_new_id(test, s, IB_QPT_RC);

	KUNIT_EXPECT_PTR_EQ(test, rdma_res_to_id(&xcma_id_of(id)->res), id);
	KUNIT_EXPECT_NULL(test, rdma_iw_cm_id(id));
	rdma_destroy_id(id);

	id = resolved_id(test, s);
	KUNIT_EXPECT_PTR_EQ(test, rdma_res_to_id(&xcma_id_of(id)->res), id);
	KUNIT_EXPECT_NULL(test, rdma_iw_cm_id(id));
	rdma_destroy_id(id);
}

/* listed once it has a device, unlisted by destroy, exactly once */
static void restrack_lists_ids_with_a_device(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *idle = cm_new_id(test, s, IB_QPT_RC);
	struct rdma_cm_id *id = resolved_id(test, s);
	struct ib_device *dev = id->device;
	int base;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_EXPECT_TRUE(test, xcma_id_of(id)->res.valid);
	KUNIT_EXPECT_FALSE(test, xcma_id_of(idle)->res.valid);
	base = rdma_restrack_count(dev, RDMA_RESTRACK_CM_ID, false);
	KUNIT_EXPECT_GE(test, base, 1);
	rdma_destroy_id(id);
	KUNIT_EXPECT_EQ(test, rdma_restrack_count(dev, RDMA_RESTRACK_CM_ID,
						  false), base - 1);
	rdma_destroy_id(idle);
	KUNIT_EXPECT_EQ(test, rdma_restrack_count(dev, RDMA_RESTRACK_CM_ID,
						  false), base - 1);
}

static void set_ib_path(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id = cm_new_id(test, s, IB_QPT_RC);
	struct sa_path_rec path = { .rec_type = SA_PATH_REC_TYPE_IB };

	/* only ADDR_RESOLVED: IDLE refused, nothing changed */
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(id, &path), -EINVAL);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_IDLE);
	KUNIT_EXPECT_NULL(test, id->route.path_rec);
	rdma_destroy_id(id);

	id = resolved_id(test, s);
	path.pkey = cpu_to_be16(0xffff);
	KUNIT_ASSERT_EQ(test, rdma_set_ib_path(id, &path), 0);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ROUTE_RESOLVED);
	KUNIT_ASSERT_NOT_NULL(test, id->route.path_rec);
	KUNIT_EXPECT_PTR_NE(test, id->route.path_rec, &path);
	KUNIT_EXPECT_EQ(test, id->route.num_pri_alt_paths, 1);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(id->route.path_rec->pkey), 0xffff);
	/* RoCE: layer 2 from the neighbour, as a resolved route's */
	KUNIT_EXPECT_TRUE(test, id->route.path_rec->roce.route_resolved);
	KUNIT_EXPECT_NE(test, id->route.path_rec->rec_type,
			SA_PATH_REC_TYPE_IB);
	KUNIT_EXPECT_EQ(test, memcmp(id->route.path_rec->roce.dmac,
				     id->route.addr.dev_addr.dst_dev_addr,
				     ETH_ALEN), 0);
	/* a second one: ROUTE_RESOLVED refuses it */
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(id, &path), -EINVAL);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ROUTE_RESOLVED);
	rdma_destroy_id(id);
}

/* RoCE needs the id's netdev: gone, -ENODEV and the id unchanged */
static void set_ib_path_without_netdev(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *id = resolved_id(test, s);
	struct sa_path_rec path = { .rec_type = SA_PATH_REC_TYPE_IB };
	int ifindex = id->route.addr.dev_addr.bound_dev_if;

	id->route.addr.dev_addr.bound_dev_if = 0;
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(id, &path), -ENODEV);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ADDR_RESOLVED);
	KUNIT_EXPECT_NULL(test, id->route.path_rec);
	/* an index no netdev has */
	id->route.addr.dev_addr.bound_dev_if = 0x7ffffff0;
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(id, &path), -ENODEV);
	KUNIT_EXPECT_EQ(test, cm_state(id), XCMA_FSM_ADDR_RESOLVED);
	id->route.addr.dev_addr.bound_dev_if = ifindex;
	KUNIT_EXPECT_EQ(test, rdma_set_ib_path(id, &path), 0);
	rdma_destroy_id(id);
}

/*
 * What ib_core's netlink shows (rdma res show cm_id, through the in-tree
 * private layout) against the ids this test made: a listener, an id with
 * a resolved route and a QP, an id with only its address; an idle one is
 * not listed. Needs tests/kunit/res_show.sh in /xcma (scripts/check.sh).
 */
#define RE_ID "^link.rxe0/1.cm-idn.[0-9]+."
#define RE_OWNER "ps.TCP.comm.\\[%.15s.*."
#define RE_SRC "src-addr.10.99.0.1:[0-9]+."
#define RE_DST "dst-addr.10.99.0.1:18600.?$ "
static const char listen_re[] = RE_ID "state.LISTEN." RE_OWNER
	"src-addr.10.99.0.1:18611.dst-addr.0.0.0.0:0.?$ ";
static const char route_re[] = RE_ID "lqpn.%u.qp-type.RC.state.ROUTE_RESOLVED."
	RE_OWNER RE_SRC RE_DST;
static const char addr_re[] = RE_ID "state.ADDR_RESOLVED." RE_OWNER RE_SRC
	RE_DST;

static void res_show_lists_the_ids(struct kunit *test)
{
	struct side *s = cm_new_side(test);
	struct rdma_cm_id *idle = cm_new_id(test, s, IB_QPT_RC);
	struct rdma_cm_id *lis = cm_new_id(test, s, IB_QPT_RC);
	struct rdma_cm_id *qpid = resolved_id(test, s);
	struct rdma_cm_id *addr = resolved_id(test, s);
	struct sockaddr_storage l;
	struct ib_pd *pd;
	struct ib_cq *cq;
	char *cmd = kunit_kzalloc(test, 600, GFP_KERNEL);
	int n = s->n, len;

	cm_addr4(&l, "10.99.0.1", 18611);
	KUNIT_ASSERT_EQ(test, rdma_bind_addr(lis, (struct sockaddr *)&l), 0);
	KUNIT_ASSERT_EQ(test, rdma_listen(lis, 4), 0);
	KUNIT_ASSERT_EQ(test, rdma_resolve_route(qpid, 2000), 0);
	KUNIT_ASSERT_TRUE(test, cm_wait_events(s, false, n + 1));
	KUNIT_ASSERT_EQ(test, s->ev[n], RDMA_CM_EVENT_ROUTE_RESOLVED);
	KUNIT_ASSERT_EQ(test, cm_make_qp(qpid, &pd, &cq), 0);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	len = scnprintf(cmd, 600, "/bin/sh /xcma/res_show.sh 3 ");
	len += scnprintf(cmd + len, 600 - len, listen_re, KBUILD_MODNAME);
	len += scnprintf(cmd + len, 600 - len, route_re,
			 qpid->qp->qp_num, KBUILD_MODNAME);
	len += scnprintf(cmd + len, 600 - len, addr_re, KBUILD_MODNAME);
	KUNIT_ASSERT_LT(test, len, 599);
	KUNIT_EXPECT_EQ(test, xcma_kunit_run(test, cmd), 0);
	cm_free_qp(qpid, pd, cq);
	rdma_destroy_id(qpid);
	rdma_destroy_id(addr);
	rdma_destroy_id(lis);
	rdma_destroy_id(idle);
	KUNIT_EXPECT_EQ(test, xcma_kunit_run(test, "/bin/sh /xcma/res_show.sh 0"),
			0);
}

static struct kunit_case uapi_cases[] = {
	KUNIT_CASE(user_id_owned_by_process),
	KUNIT_CASE(user_id_bad_input),
	KUNIT_CASE(kernel_id_owned_by_module),
	KUNIT_CASE(res_to_id_and_iw_cm_id),
	KUNIT_CASE(restrack_lists_ids_with_a_device),
	KUNIT_CASE(set_ib_path),
	KUNIT_CASE(set_ib_path_without_netdev),
	KUNIT_CASE(res_show_lists_the_ids),
	{}
};

static struct kunit_suite uapi_suite = {
	.name = "xcma_uapi",
	.init = xcma_kunit_sweep_init,
	.test_cases = uapi_cases,
};

kunit_test_suite(uapi_suite);
