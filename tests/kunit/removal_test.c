// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_removal: device hot-removal in the kernel, with an id in every
 * state. Each row puts ids (the targets) in one state, deletes rxe0 from
 * inside the test (rdma link delete: it returns once every ib_client's
 * .remove has returned), checks from an event log what every id of the
 * row saw against the lifecycle contract of the design (G1-G8), and
 * re-adds rxe0 for the next row.
 *
 * A row has six targets in its state, one per way an owner can react;
 * each owner has ids, ports and fakes of its own, and is checked on its
 * own, so that the owners share one removal (a removal and a re-add cost
 * seconds of ib_core and rxe work in the test VM):
 *   defer    the DEVICE_REMOVAL callback returns 0 and hands the id to a
 *            work item of the owner, which destroys it after up to
 *            RM_DEFER_MS, reading xcma's removal counter until then: the
 *            removal has to wait for that, and must not have returned
 *            while the owner still held the device (G5)
 *   return   the DEVICE_REMOVAL callback returns non-zero: the CM
 *            destroys the id (G3)
 *   race     a work item of the owner calls rdma_destroy_id as soon as the
 *            removal has started, racing it (whoever wins); the removal
 *            callback, if it comes, is slow (20 ms) and returns 0
 *   race_callback
 *            the same, but the destroy starts while the target's slow
 *            DEVICE_REMOVAL callback runs, and waits for it
 *   other    the id is destroyed from the DEVICE_REMOVAL callback of
 *            another id, the companion, which is bound to rxe0 before
 *            anything else of the row and so is reached first: the target
 *            is gone before removal gets to it, and hears nothing
 *   disconnect_drain
 *            as RDS does: the DEVICE_REMOVAL callback returns 0, and the
 *            owner's work calls rdma_disconnect(), waits for the QP's
 *            receive queue to flush (over ib_cm, which moves the QP to
 *            ERR; a receive is posted on every target with a QP), then
 *            destroys the QP and the id. rdma_disconnect() returns what
 *            the in-tree one does after DEVICE_REMOVAL: 0 with a CM id
 *            (over ib_cm a listener's listen counts, not over iw_cm),
 *            -EINVAL without; nothing reaches the target after it (G4)
 *
 * States that cannot be held still are held with fakes in the ops layer:
 * an address query is parked (resolve_ip), a route query is a work item
 * queued behind a plug (queue_route), a client's REQ is never sent
 * (send_req). Where a query is parked, "defer" and both races also let
 * its completion run while the removal is under way, as a real one may:
 * the cancel must wait for it, and nothing it delivers may follow
 * DEVICE_REMOVAL; "return" and "other" leave it pending, to be cancelled.
 * The parked REQ's ib_cm id just goes with the device.
 *
 * What each row checks, per id, from the log:
 *   G1  no two callbacks of the id overlap (a counter inside the callback)
 *   G2  no callback starts after rdma_destroy_id returned, none runs then
 *   G3  no callback after one that returned non-zero; the id is freed by
 *       the time xcma's .remove returns (ids alive: xcma_id_live())
 *   G4  DEVICE_REMOVAL exactly once for an id bound to rxe0 unless it is
 *       being destroyed, never for an id bound to no device, and nothing
 *       after it; the targets' events are compared one by one
 *   G5  the deferred owner itself reads xcma's count of removed devices
 *       until its destroy: it must not move before (no watcher involved);
 *       and when xcma's .remove returns (a watcher sees its counter move: the
 *       link delete returns seconds later, once ib_core is done with the
 *       other clients and rxe), every ib_cm id and GID attribute of the
 *       row's ids has been let go exactly once, ids their owner destroys
 *       afterwards no longer hold the device (the test holds a reference
 *       on them so that they can be looked at), a slow owner's deferred
 *       destroy has been waited for, and nothing of the device is touched
 *       after that
 *   G7  a wildcard listener hears nothing, is still LISTEN, and takes a
 *       REQ on the re-added device
 *   G8  every id freed, no holder on the re-added rxe0
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../../cma/id.h"
#include "../../cma/ops.h"
#include "../../cma/device.h"
#include "xcma/fsm.h"
#include "esa_util.h"
#include "kunit_inline.h"
#include "xcma_kunit.h"

#define RM_PORT_BASE 18600
#define RM_SLOTS 24
#define RM_LOG 512
#define RM_MAX_EV 16
#define RM_WAIT_MS 10000
#define RM_DEFER_MS 500

/**
 * struct rm_dev - the device a suite removes, and how it comes back
 * @name: its name
 * @ip: its address
 * @add: the command that adds it
 * @del: the command that deletes it
 * @iw: iWARP (iw_cm ids), else RoCE (ib_cm ids)
 * @ib: its port declared InfiniBand, route queries to the emulated SA
 * @rej_status: status of REJECTED when the peer's user rejects: ib_cm's
 *	reason, or siw's -ECONNRESET for an MPA reject (as in-tree)
 * @qp_close_event: what an id hears when its owner destroys its connected
 *	QP before the id (rm_destroy() does): nothing over ib_cm; over
 *	iw_cm the QP's teardown closes the TCP connection and iw_cm says
 *	CLOSE, which is DISCONNECTED (as in-tree)
 */
struct rm_dev {
	const char *name;
	const char *ip;
	const char *add;
	const char *del;
	bool iw;
	bool ib;
	int rej_status;
	int qp_close_event;
};

static const struct rm_dev rm_rxe = {
	.name = "rxe0",
	.ip = "10.99.0.1",
	.add = "/usr/sbin/rdma link add rxe0 type rxe netdev eth0",
	.del = "/usr/sbin/rdma link delete rxe0",
	.rej_status = IB_CM_REJ_CONSUMER_DEFINED,
	.qp_close_event = -1,
};

/*
 * siw0 on a dummy netdev of its own, xrm0 (rxe0 holds eth0, and a CM
 * takes the first device of an address's netdev). Both ends run on this
 * host: TCP between them goes through lo.
 */
static const struct rm_dev rm_siw = {
	.name = "siw0",
	.ip = "10.97.0.1",
	.add = "/usr/sbin/rdma link add siw0 type siw netdev xrm0",
	.del = "/usr/sbin/rdma link delete siw0",
	.iw = true,
	.rej_status = -ECONNRESET,
	.qp_close_event = RDMA_CM_EVENT_DISCONNECTED,
};

enum rm_beh {
	RM_DEFER, RM_RETURN, RM_RACE, RM_RACE_CB, RM_OTHER, RM_DRAIN, RM_NR_BEH
};

static const char *const rm_beh_names[RM_NR_BEH] = {
	[RM_DEFER] = "defer",
	[RM_RETURN] = "return",
	[RM_RACE] = "race",
	[RM_RACE_CB] = "race_callback",
	[RM_OTHER] = "other",
	[RM_DRAIN] = "disconnect_drain",
};

/* ---- the event log ---- */

enum rm_kind {
	RM_CB_START, RM_CB_END, RM_DESTROY_CALL, RM_DESTROY_RET,
	RM_DEL_CALL, RM_REMOVE_RET, RM_DEL_RET,
};

struct rm_rec {
	u8 kind;
	s8 slot;
	u8 event;
	s8 ret;
};

/* what a callback does with DEVICE_REMOVAL */
enum rm_on {
	RM_ON_NOTHING,	/* return 0 */
	RM_ON_DEFER,	/* return 0, the owner's work destroys the id */
	RM_ON_RETURN,	/* free the QP, return non-zero */
	RM_ON_SLOW,	/* sleep 20 ms, return 0 (a destroy races it) */
	RM_ON_SIGNAL,	/* start the racing destroy, then as RM_ON_SLOW */
	RM_ON_VICTIM,	/* destroy the victim id, then return non-zero */
	RM_ON_DRAIN,	/* return 0, the owner disconnects, drains, destroys */
};

/* what a conn id's callback does with CONNECT_REQUEST */
enum rm_req { RM_REQ_KEEP, RM_REQ_ACCEPT, RM_REQ_REJECT };

struct rm_run;
struct rm_owner;

/**
 * struct rm_slot - one id of a row, and what is expected of it
 * @run: the row
 * @owner: the owner it belongs to
 * @idx: index in @run->slot, in the log
 * @name: for messages
 * @id: the id (set by the CONNECT_REQUEST callback for a conn id)
 * @on: what its DEVICE_REMOVAL callback does
 * @req: for a conn id: what its CONNECT_REQUEST callback does
 * @conn: for a listener: the slot its first conn id takes; for a conn
 *	id: the slot the listener's next one takes (NULL: no more)
 * @dst_ip: the address it resolves to, if not the row's device's
 * @victim: for RM_ON_VICTIM: the id to destroy
 * @in_cb: callbacks of the id running now (G1)
 * @overlaps: times a callback started while another one ran
 * @nev: callbacks that have ended, to wait for
 * @status: status of each event, in the order of the log
 * @err: first error of an operation inside a callback
 * @destroying: the owner destroyed the id or returned non-zero
 * @hold: the test holds a lifecycle reference from arming until the
 *	removal has returned (only on ids destroyed outside the remover's
 *	context: the remover's own destroys would wait for it)
 * @dev_at_remove: for @hold: the device it held when .remove returned
 * @other_children: a wildcard listener's children on other devices (rxe0
 *	under a siw0 row) when armed: they stay, unless it is destroyed
 * @dev_children: its child on the row's device when armed (0 or 1):
 *	gone when .remove returns, unless the listener's own destroy is
 *	running in another thread: then the child has let go of the device
 *	(.remove waits for that) but may not have been freed yet
 * @pd: PD of the id's QP, NULL if none
 * @cq: CQ of the id's QP
 * @cm_id: its ib_cm or iw_cm connection when armed
 * @listen_cm_id: its ib_cm or iw_cm listen, or its wildcard child's on the
 *	row's device, when armed
 * @cm_released: destroy_cm_id(@cm_id) (or iw_destroy_id) calls while armed
 * @listen_released: the same for @listen_cm_id
 * @work: the owner's deferred destroy
 * @removed_first: the deferred owner saw .remove return before its destroy
 * @recv_posted: "disconnect_drain": a receive waits on the target's QP
 * @disc_ret: "disconnect_drain": what rdma_disconnect() returned
 * @flush: "disconnect_drain": the status of the receive's completion
 *	(IB_WC_WR_FLUSH_ERR once the QP is in ERR), -ETIMEDOUT if none
 * @want: events expected before DEVICE_REMOVAL, in order
 * @nwant: how many
 * @opt: events that may follow @want once each (-1: none)
 * @dr_min: fewest DEVICE_REMOVAL callbacks allowed
 * @dr_max: most
 * @loose: a helper: other events may come between @want and removal
 */
struct rm_slot {
	struct rm_run *run;
	struct rm_owner *owner;
	int idx;
	const char *name;
	struct rdma_cm_id *id;
	enum rm_on on;
	enum rm_req req;
	struct rm_slot *conn;
	const char *dst_ip;
	struct rm_slot *victim;
	atomic_t in_cb;
	atomic_t overlaps;
	atomic_t nev;
	int status[RM_MAX_EV];
	int err;
	bool destroying;
	bool hold;
	void *dev_at_remove;
	int other_children;
	int dev_children;
	struct ib_pd *pd;
	struct ib_cq *cq;
	const void *cm_id;
	const void *listen_cm_id;
	atomic_t cm_released;
	atomic_t listen_released;
	struct work_struct work;
	bool removed_first;
	bool recv_posted;
	int disc_ret;
	int flush;
	const int *want;
	int nwant;
	int opt[3];
	int dr_min;
	int dr_max;
	bool loose;
};

/* the parked address query */
enum rm_qstate { RM_Q_NONE, RM_Q_PARKED, RM_Q_RUNNING, RM_Q_DONE, RM_Q_CANCELLED };

/**
 * struct rm_owner - one owner behaviour of a row, with its ids
 * @run: the row
 * @beh: how it reacts
 * @target: its id in the row's state
 * @companion: for "other": the id whose callback destroys @target
 * @port: its port
 * @aq: its parked address query (resolve_ip); qstate and cancels are
 *	protected by @run->lock
 * @plug_wq: its route completions queue here, behind @plug (queue_route)
 * @plug: the work that blocks @plug_wq until @unplug
 * @unplug: lets @plug_wq run
 * @racer: "race" and "race_callback": the destroy that races the removal
 * @go: "race_callback": the target's DEVICE_REMOVAL callback has started
 * @sa: its held path record query on an IB port (the emulated SA); all
 *	but @answer protected by @run->lock
 */
struct rm_owner {
	struct rm_run *run;
	enum rm_beh beh;
	struct rm_slot *target;
	struct rm_slot *companion;
	u16 port;
	struct {
		int qstate;
		int cancels;
		xcma_resolve_cb cb;
		void *context;
		struct rdma_dev_addr *addr;
		struct sockaddr_storage src;
		struct work_struct work;
	} aq;
	struct workqueue_struct *plug_wq;
	struct work_struct plug;
	struct completion unplug;
	struct work_struct racer;
	struct completion go;
	struct {
		xcma_sa_path_cb cb;
		void *ctx;
		int id;
		struct ib_device *dev;
		u32 port;
		struct sa_path_rec req;
		bool held;
		bool kicked;
		int cancels;
		int callbacks;
		struct delayed_work answer;
	} sa;
};

/**
 * struct rm_state - a state of the targets
 * @name: the row's name
 * @setup: creates the owner's target (and the ids it needs) in the state
 * @fsm_state: the target's state once set up
 * @on_device: the target holds rxe0 (else it must hear nothing)
 * @want: the target's events during setup, in order
 * @nwant: how many
 * @late_event: the completion of the parked operation, which "race" may
 *	deliver before removal or destroy gets the id (-1: none)
 * @peer_event: an event a peer removed before the target may cause (-1)
 * @wildcard: a wildcard listener: it survives, and takes REQs again
 */
struct rm_state {
	const char *name;
	void (*setup)(struct rm_owner *o);
	unsigned int fsm_state;
	bool on_device;
	const int *want;
	int nwant;
	int late_event;
	int peer_event;
	bool wildcard;
};

/* where a row is, for the fakes */
enum rm_phase { RM_SETUP, RM_ARMED, RM_REMOVED, RM_READDED };

/**
 * struct rm_run - one row: a state, six owners, one removal
 * @test: the case
 * @dev: the device removed
 * @st: the state
 * @fake: the ops while the row runs
 * @old_ops: the ops before
 * @lock: protects @log, @nlog, and the owners' @aq qstate and cancels
 * @log: what happened, in order
 * @nlog: entries used
 * @wq: woken on every callback
 * @slot: the ids
 * @nslots: slots used
 * @owner: the owners
 * @parking: the owner whose next address query is parked, if any
 * @plugging: the owner whose next route completion is plugged, if any
 * @park_req: send_req() does not send
 * @phase: enum rm_phase (written by the test thread, read by the fakes)
 * @nheld: references the test holds
 * @gid_puts: put_gid_attr() calls while armed
 * @late_dev_ops: device ops after .remove returned
 * @extra_conns: REQs no slot was planned for
 * @owner_wq: the owners' deferred destroys and racing destroys, the watch
 * @watch: waits for xcma's .remove to return, and takes the snapshot
 * @removed: the snapshot is taken
 * @removed0: xcma's count of removed devices before the removal
 * @alive_at_remove: ids alive when .remove returned
 * @kept_children: children on other devices of held wildcard listeners
 *	nobody destroys, when .remove returned
 * @racing_children: the same of those a racer is destroying, and their
 *	children on the row's device (each may be gone or not: a child the
 *	racer's destroy took frees itself after it let go of the device,
 *	which is all .remove waits for, as in-tree)
 * @t_remove: when the watch saw it return
 * @routes: rdma_resolve_route() calls of the row
 * @sa_queries: path record queries the emulated SA got (IB run)
 */
struct rm_run {
	struct kunit *test;
	const struct rm_dev *dev;
	const struct rm_state *st;
	struct xcma_ops fake;
	const struct xcma_ops *old_ops;
	spinlock_t lock; /* see above */
	struct rm_rec log[RM_LOG];
	int nlog;
	wait_queue_head_t wq;
	struct rm_slot slot[RM_SLOTS];
	int nslots;
	struct rm_owner owner[RM_NR_BEH];
	struct rm_owner *parking;
	struct rm_owner *plugging;
	bool park_req;
	int phase;
	int nheld;
	atomic_t gid_puts;
	atomic_t late_dev_ops;
	atomic_t extra_conns;
	struct workqueue_struct *owner_wq;
	struct work_struct watch;
	struct completion removed;
	unsigned int removed0;
	unsigned int alive_at_remove;
	int kept_children;
	int racing_children;
	ktime_t t_remove;
	atomic_t routes;
	atomic_t sa_queries;
};

/* the row that runs now, for the fakes (rows run one at a time) */
static struct rm_run *rm_cur;

static void rm_log(struct rm_run *r, enum rm_kind kind, int slot, int event,
		   int ret)
{
	spin_lock(&r->lock);
	if (r->nlog < RM_LOG)
		r->log[r->nlog++] = (struct rm_rec){ kind, slot, event, !!ret };
	spin_unlock(&r->lock);
}

/* ---- fakes in the ops layer ---- */

/*
 * An op on @ibdev: counted per id while armed, an error after the removal
 * if @ibdev is the row's device (another device's, e.g. rxe0 under a
 * wildcard listener of a siw0 row, is none of the row's business)
 */
static void rm_dev_op(struct rm_run *r, struct ib_device *ibdev,
		      const void *cm_id)
{
	int i, phase = READ_ONCE(r->phase);

	if (strcmp(dev_name(&ibdev->dev), r->dev->name))
		return;
	if (phase == RM_REMOVED) {
		atomic_inc(&r->late_dev_ops);
		return;
	}
	if (phase != RM_ARMED)
		return;
	if (!cm_id) {
		atomic_inc(&r->gid_puts);
		return;
	}
	for (i = 0; i < r->nslots; i++) {
		if (r->slot[i].cm_id == cm_id)
			atomic_inc(&r->slot[i].cm_released);
		if (r->slot[i].listen_cm_id == cm_id)
			atomic_inc(&r->slot[i].listen_released);
	}
}

static void rm_put_gid_attr(const struct ib_gid_attr *attr)
{
	struct rm_run *r = READ_ONCE(rm_cur);

	if (r)
		rm_dev_op(r, attr->device, NULL);
	xcma_kernel_ops.put_gid_attr(attr);
}

static void rm_destroy_cm_id(struct ib_cm_id *cm_id)
{
	struct rm_run *r = READ_ONCE(rm_cur);

	if (r)
		rm_dev_op(r, cm_id->device, cm_id);
	xcma_kernel_ops.destroy_cm_id(cm_id);
}

static void rm_iw_destroy_id(struct iw_cm_id *iw)
{
	struct rm_run *r = READ_ONCE(rm_cur);

	if (r)
		rm_dev_op(r, iw->device, iw);
	xcma_kernel_ops.iw_destroy_id(iw);
}

static int rm_resolve_ip(struct sockaddr *src, const struct sockaddr *dst,
			 struct rdma_dev_addr *addr, unsigned long timeout_ms,
			 xcma_resolve_cb cb, bool by_gid_attr, void *context)
{
	struct rm_run *r = READ_ONCE(rm_cur);
	struct rm_owner *o = r ? r->parking : NULL;

	if (!o)
		return xcma_kernel_ops.resolve_ip(src, dst, addr, timeout_ms,
						  cb, by_gid_attr, context);
	/* parked: it completes only if the owner lets it (rm_kick) */
	spin_lock(&r->lock);
	o->aq.cb = cb;
	o->aq.context = context;
	o->aq.addr = addr;
	memcpy(&o->aq.src, src, sizeof(struct sockaddr_in));
	o->aq.qstate = RM_Q_PARKED;
	spin_unlock(&r->lock);
	return 0;
}

/* as rdma_addr_cancel(): once it returns, the callback is not running */
static void rm_addr_cancel(struct rdma_dev_addr *addr)
{
	struct rm_run *r = READ_ONCE(rm_cur);
	struct rm_owner *o = NULL;
	bool running;
	int i;

	for (i = 0; r && i < RM_NR_BEH; i++)
		if (r->owner[i].aq.addr == addr)
			o = &r->owner[i];
	if (!o) {
		xcma_kernel_ops.addr_cancel(addr);
		return;
	}
	spin_lock(&r->lock);
	o->aq.cancels++;
	running = o->aq.qstate == RM_Q_RUNNING;
	if (o->aq.qstate == RM_Q_PARKED)
		o->aq.qstate = RM_Q_CANCELLED;
	spin_unlock(&r->lock);
	if (running)
		flush_work(&o->aq.work);
}

/* the parked query completes: what ib_addr's work would call */
static void rm_aq_complete(struct work_struct *work)
{
	struct rm_owner *o = container_of(work, struct rm_owner, aq.work);

	o->aq.cb(0, (struct sockaddr *)&o->aq.src, o->aq.addr, o->aq.context);
	spin_lock(&o->run->lock);
	o->aq.qstate = RM_Q_DONE;
	spin_unlock(&o->run->lock);
}

static int rm_send_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *p)
{
	struct rm_run *r = READ_ONCE(rm_cur);

	if (r && r->park_req)
		return 0; /* on the wire, never answered */
	return xcma_kernel_ops.send_req(cm_id, p);
}

/* iWARP: the iw_cm id is there, and no TCP connection is ever tried */
static int rm_iw_connect(struct iw_cm_id *iw, struct iw_cm_conn_param *p)
{
	struct rm_run *r = READ_ONCE(rm_cur);

	if (r && r->park_req)
		return 0;
	return xcma_kernel_ops.iw_connect(iw, p);
}

static bool rm_queue_route(struct work_struct *work)
{
	struct rm_run *r = READ_ONCE(rm_cur);

	if (r && r->plugging)
		return queue_work(r->plugging->plug_wq, work);
	return xcma_kernel_ops.queue_route(work);
}

static void rm_plug(struct work_struct *work)
{
	struct rm_owner *o = container_of(work, struct rm_owner, plug);

	wait_for_completion(&o->unplug);
}

static void rm_sa_kick(struct rm_owner *o);

/* let the owner's parked operation complete, now */
static void rm_kick(struct rm_owner *o)
{
	bool run = false;

	spin_lock(&o->run->lock);
	if (o->aq.qstate == RM_Q_PARKED) {
		o->aq.qstate = RM_Q_RUNNING;
		run = true;
	}
	spin_unlock(&o->run->lock);
	if (run)
		queue_work(system_unbound_wq, &o->aq.work);
	if (o->plug_wq)
		complete_all(&o->unplug);
	rm_sa_kick(o);
}

/*
 * ---- rxe0 declared InfiniBand (the IB run) ----
 *
 * No soft IB device exists: the IB run declares rxe0's port InfiniBand
 * (esa_ib_transport()), gives its addresses IPoIB's form (the port's GID
 * of the address in the hardware address, as ipoib's would hold it) and
 * answers path record queries from an emulated SA. The GIDs are rxe0's
 * own and the SA answers with a record the wire beneath (RoCE v2) can
 * carry, so that ib_cm connects for real: what is under test is the CM's
 * IB route path (the query, its cancel, the late answer dropped) and its
 * removal, not the fabric.
 */

/* an address query of the IB run: its own callback, for the IPoIB form */
struct rm_ib_aq {
	struct rdma_dev_addr *addr;
	xcma_resolve_cb cb;
	void *ctx;
	struct sockaddr_storage dst;
};

static struct rm_ib_aq rm_ib_aqs[RM_SLOTS];
static int rm_sa_ids;

static bool rm_ib_addr(const struct sockaddr *a)
{
	struct rm_run *r = READ_ONCE(rm_cur);

	return r && a->sa_family == AF_INET &&
	       ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       in_aton(r->dev->ip);
}

static int rm_ib_translate_ip(const struct sockaddr *addr,
			      struct rdma_dev_addr *da)
{
	int ret = xcma_kernel_ops.translate_ip(addr, da);
	union ib_gid gid;

	if (!ret && rm_ib_addr(addr)) {
		rdma_ip2gid((struct sockaddr *)addr, &gid);
		esa_ipoib_dev_addr(da, &gid, NULL, 0xffff);
	}
	return ret;
}

static void rm_ib_resolved(int status, struct sockaddr *src,
			   struct rdma_dev_addr *da, void *ctx)
{
	struct rm_ib_aq *q = ctx;
	union ib_gid sgid, dgid;

	if (!status && rm_ib_addr((struct sockaddr *)&q->dst)) {
		rdma_ip2gid(src, &sgid);
		rdma_ip2gid((struct sockaddr *)&q->dst, &dgid);
		esa_ipoib_dev_addr(da, &sgid, &dgid, 0xffff);
	}
	q->cb(status, src, da, q->ctx);
}

static int rm_ib_resolve_ip(struct sockaddr *src, const struct sockaddr *dst,
			    struct rdma_dev_addr *addr,
			    unsigned long timeout_ms, xcma_resolve_cb cb,
			    bool by_gid_attr, void *context)
{
	struct rm_ib_aq *q = NULL;
	int i;

	/* one query of an id at a time: its slot is its address's */
	for (i = 0; i < ARRAY_SIZE(rm_ib_aqs) && !q; i++)
		if (rm_ib_aqs[i].addr == addr || !rm_ib_aqs[i].addr)
			q = &rm_ib_aqs[i];
	if (!q)
		return -ENOMEM;
	q->addr = addr;
	q->cb = cb;
	q->ctx = context;
	memcpy(&q->dst, dst, sizeof(struct sockaddr_in));
	return rm_resolve_ip(src, dst, addr, timeout_ms, rm_ib_resolved,
			     by_gid_attr, q);
}

/* the IB port's GID (type IB, no netdev) is rxe0's GID of the address */
static const struct ib_gid_attr *
rm_ib_find_gid(struct ib_device *dev, const union ib_gid *gid,
	       enum ib_gid_type type, u32 port, struct net_device *ndev)
{
	if (type != IB_GID_TYPE_IB || ndev ||
	    esa_ib_transport(dev, port) != XCMA_TRANSPORT_IB)
		return xcma_kernel_ops.find_gid_by_port(dev, gid, type, port,
							ndev);
	return xcma_kernel_ops.find_gid_by_port(dev, gid,
						IB_GID_TYPE_ROCE_UDP_ENCAP,
						port, NULL);
}

/* the SA's one record for @req: the path between its GIDs, as asked */
static int rm_sa_record(struct sa_path_rec *p, const struct sa_path_rec *req,
			struct ib_device *dev, u32 port)
{
	const struct ib_gid_attr *attr;
	u8 mac[ETH_ALEN];
	int ret;

	attr = xcma_kernel_ops.find_gid_by_port(dev, &req->sgid,
						IB_GID_TYPE_ROCE_UDP_ENCAP,
						port, NULL);
	if (IS_ERR(attr))
		return PTR_ERR(attr);
	ret = rdma_read_gid_l2_fields(attr, NULL, mac);
	xcma_kernel_ops.put_gid_attr(attr);
	if (ret)
		return ret;
	memset(p, 0, sizeof(*p));
	p->rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	p->sgid = req->sgid;
	p->dgid = req->dgid;
	p->pkey = req->pkey;
	p->service_id = req->service_id;
	p->traffic_class = req->traffic_class;
	p->hop_limit = 64;
	p->reversible = 1;
	p->numb_path = 1;
	p->mtu_selector = IB_SA_EQ;
	p->mtu = IB_MTU_1024;
	p->rate_selector = IB_SA_EQ;
	p->rate = IB_RATE_PORT_CURRENT;
	p->packet_life_time_selector = IB_SA_EQ;
	p->packet_life_time = 14;
	/* both ends are this host: the frame loops back in rxe */
	p->roce.route_resolved = true;
	sa_path_set_dmac(p, mac);
	return 0;
}

/* a query nobody holds: answered at once, from a work item as ib_sa's */
struct rm_sa_now {
	struct work_struct work;
	xcma_sa_path_cb cb;
	void *ctx;
	struct ib_device *dev;
	u32 port;
	struct sa_path_rec req;
};

static void rm_sa_answer_now(struct work_struct *work)
{
	struct rm_sa_now *a = container_of(work, struct rm_sa_now, work);
	struct sa_path_rec rec;
	int ret = rm_sa_record(&rec, &a->req, a->dev, a->port);

	esa_call_back(a->cb, ret, &rec, 1, a->ctx);
	kfree(a);
}

/* the held query of an owner: by its kick, or late after its cancel */
static void rm_sa_answer_held(struct work_struct *work)
{
	struct rm_owner *o = container_of(to_delayed_work(work),
					  struct rm_owner, sa.answer);
	struct rm_run *r = o->run;
	struct sa_path_rec rec;
	int ret;

	spin_lock(&r->lock);
	if (!o->sa.held) {
		spin_unlock(&r->lock);
		return;
	}
	o->sa.held = false;
	o->sa.callbacks++;
	spin_unlock(&r->lock);
	ret = rm_sa_record(&rec, &o->sa.req, o->sa.dev, o->sa.port);
	esa_call_back(o->sa.cb, ret, &rec, 1, o->sa.ctx);
}

/*
 * The route query of the owner being set up in ROUTE_QUERY is held until
 * the owner kicks it or it is cancelled; every other one is answered.
 */
static int rm_sa_get(struct ib_sa_client *client, struct ib_device *dev,
		     u32 port, struct sa_path_rec *rec, ib_sa_comp_mask mask,
		     unsigned long timeout_ms, gfp_t gfp, xcma_sa_path_cb cb,
		     void *ctx, struct ib_sa_query **query)
{
	struct rm_run *r = READ_ONCE(rm_cur);
	struct rm_owner *o = r ? r->plugging : NULL;
	struct rm_sa_now *a;
	int id;

	if (r)
		atomic_inc(&r->sa_queries);
	if (o) {
		spin_lock(&r->lock);
		o->sa.cb = cb;
		o->sa.ctx = ctx;
		o->sa.dev = dev;
		o->sa.port = port;
		o->sa.req = *rec;
		o->sa.held = true;
		id = ++rm_sa_ids;
		o->sa.id = id;
		spin_unlock(&r->lock);
		*query = (struct ib_sa_query *)&o->sa;
		return id;
	}
	a = kzalloc(sizeof(*a), gfp);
	if (!a)
		return -ENOMEM;
	a->cb = cb;
	a->ctx = ctx;
	a->dev = dev;
	a->port = port;
	a->req = *rec;
	INIT_WORK(&a->work, rm_sa_answer_now);
	/* a token only: the cancel compares it, never reads it */
	*query = (struct ib_sa_query *)a;
	queue_work(system_unbound_wq, &a->work);
	return ++rm_sa_ids;
}

/* ib_sa would call back with -EINTR: the records instead, and late */
static void rm_sa_cancel(int id, struct ib_sa_query *query)
{
	struct rm_run *r = READ_ONCE(rm_cur);
	int i;

	for (i = 0; r && i < RM_NR_BEH; i++) {
		struct rm_owner *o = &r->owner[i];

		if (query != (struct ib_sa_query *)&o->sa || id != o->sa.id)
			continue;
		spin_lock(&r->lock);
		/* once kicked, the answer is on its way: a cancel is stale */
		if (o->sa.held && !o->sa.kicked) {
			o->sa.cancels++;
			mod_delayed_work(system_wq, &o->sa.answer,
					 msecs_to_jiffies(30));
		}
		spin_unlock(&r->lock);
	}
}

static void rm_sa_kick(struct rm_owner *o)
{
	struct rm_run *r = o->run;

	if (!r->dev->ib)
		return;
	spin_lock(&r->lock);
	if (o->sa.held && !o->sa.cancels) {
		o->sa.kicked = true;
		mod_delayed_work(system_wq, &o->sa.answer, 0);
	}
	spin_unlock(&r->lock);
}

/* a row stopped half-way: answer what is still held, so destroys end */
static void rm_sa_flush(struct rm_run *r)
{
	int i;

	for (i = 0; r->dev->ib && i < RM_NR_BEH; i++) {
		mod_delayed_work(system_wq, &r->owner[i].sa.answer, 0);
		flush_delayed_work(&r->owner[i].sa.answer);
	}
}

static void rm_ib_fakes(struct rm_run *r)
{
	union ib_gid gid = {};
	struct ib_device *dev;

	memset(rm_ib_aqs, 0, sizeof(rm_ib_aqs));
	/* an IB port's GIDs have no netdev; a request's is IPoIB's (xib0) */
	dev = ib_device_get_by_name(ESA_IB_DEV, RDMA_DRIVER_UNKNOWN);
	if (dev) {
		xcma_kernel_ops.query_gid(dev, 1, 0, &gid);
		ib_device_put(dev);
	}
	esa_ipoib_install(r->test, &r->fake, &gid);
	r->fake.port_transport = esa_ib_transport;
	r->fake.translate_ip = rm_ib_translate_ip;
	r->fake.resolve_ip = rm_ib_resolve_ip;
	r->fake.find_gid_by_port = rm_ib_find_gid;
	r->fake.sa_path_rec_get = rm_sa_get;
	r->fake.sa_cancel_query = rm_sa_cancel;
}

/*
 * The held query of a ROUTE_QUERY target: answered exactly once; the
 * cancel (removal's or destroy's) reached it exactly once unless the
 * owner's kick answered it first; nothing of it after DEVICE_REMOVAL
 * (rm_check_slot()).
 */
static void rm_sa_check_owner(struct kunit *test, struct rm_owner *o)
{
	const char *who = rm_beh_names[o->beh];

	flush_delayed_work(&o->sa.answer);
	KUNIT_EXPECT_EQ_MSG(test, o->sa.callbacks, 1,
			    "%s: SA query answered %d times", who,
			    o->sa.callbacks);
	KUNIT_EXPECT_EQ_MSG(test, o->sa.cancels + o->sa.kicked, 1,
			    "%s: SA query cancelled %d times (kicked %d)", who,
			    o->sa.cancels, o->sa.kicked);
	if (o->beh == RM_RETURN || o->beh == RM_OTHER)
		KUNIT_EXPECT_EQ(test, o->sa.cancels, 1);
}

/* ---- the owner: callback, QPs, destroy ---- */

static int rm_make_qp(struct rm_slot *s, struct rdma_cm_id *id)
{
	struct ib_qp_init_attr attr = {
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_pd *pd;
	struct ib_cq *cq;
	int ret;

	pd = ib_alloc_pd(id->device, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	cq = ib_alloc_cq(id->device, NULL, 4, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		ib_dealloc_pd(pd);
		return PTR_ERR(cq);
	}
	attr.send_cq = cq;
	attr.recv_cq = cq;
	ret = rdma_create_qp(id, pd, &attr);
	if (ret) {
		ib_free_cq(cq);
		ib_dealloc_pd(pd);
		return ret;
	}
	s->cq = cq;
	s->pd = pd;
	return 0;
}

/* "disconnect_drain": a receive on the target's QP, to flush */
static void rm_post_recv(struct rm_slot *s)
{
	struct ib_recv_wr wr = { .wr_id = 1 };

	KUNIT_ASSERT_EQ(s->run->test, ib_post_recv(s->id->qp, &wr, NULL), 0);
	s->recv_posted = true;
	s->flush = -ETIMEDOUT;
}

/* what the owner lets go of before the id: the device's resources */
static void rm_free_qp(struct rm_slot *s)
{
	struct ib_pd *pd = xchg(&s->pd, NULL);

	if (!pd)
		return;
	rdma_destroy_qp(s->id);
	ib_free_cq(s->cq);
	ib_dealloc_pd(pd);
}

static void rm_destroy(struct rm_slot *s)
{
	struct rm_run *r = s->run;

	WRITE_ONCE(s->destroying, true);
	rm_free_qp(s);
	rm_log(r, RM_DESTROY_CALL, s->idx, 0, 0);
	rdma_destroy_id(s->id);
	/* G2: no callback may still be running */
	rm_log(r, RM_DESTROY_RET, s->idx, 0, atomic_read(&s->in_cb));
}

/*
 * "defer": the owner gets to it a little later, from its own thread. Until
 * then it reads the count of removed devices itself: xcma's .remove cannot
 * have returned while this id holds rxe0 (G5), whether or not the watcher
 * got to run meanwhile. Polling for RM_DEFER_MS gives a .remove that does
 * not wait for holders time to return, and be caught.
 */
static void rm_deferred_destroy(struct work_struct *work)
{
	struct rm_slot *s = container_of(work, struct rm_slot, work);
	unsigned long end = jiffies + msecs_to_jiffies(RM_DEFER_MS);
	struct xcma_device_counters c;

	for (;;) {
		xcma_device_get_counters(&c);
		if (c.removed != s->run->removed0 || !time_before(jiffies, end))
			break;
		usleep_range(1000, 2000);
	}
	s->removed_first = c.removed != s->run->removed0;
	rm_destroy(s);
}

/* the status of the next completion of @s's CQ, -ETIMEDOUT after ~2 s */
static int rm_poll_flush(struct rm_slot *s)
{
	struct ib_wc wc;
	int i;

	for (i = 0; i < 1000; i++) {
		if (ib_poll_cq(s->cq, 1, &wc) == 1)
			return wc.status;
		usleep_range(1000, 3000);
	}
	return -ETIMEDOUT;
}

/*
 * "disconnect_drain": RDS's shutdown after DEVICE_REMOVAL. The removal
 * waits for the destroy, which comes only once the receive has flushed:
 * a CM that refused the disconnect, or left the QP as it was, would hang
 * RDS here (the wait is bounded, and its result checked).
 */
static void rm_drain_destroy(struct work_struct *work)
{
	struct rm_slot *s = container_of(work, struct rm_slot, work);
	struct xcma_device_counters c;

	s->disc_ret = rdma_disconnect(s->id);
	if (s->recv_posted && !s->run->dev->iw)
		s->flush = rm_poll_flush(s);
	xcma_device_get_counters(&c);
	s->removed_first = c.removed != s->run->removed0;
	rm_destroy(s);
}

/*
 * "race": destroy as soon as the removal has started; "race_callback":
 * while the target's DEVICE_REMOVAL callback runs (if it holds no device,
 * there is none: as soon as the removal has started)
 */
static void rm_racer(struct work_struct *work)
{
	struct rm_owner *o = container_of(work, struct rm_owner, racer);
	unsigned long end = jiffies + msecs_to_jiffies(RM_WAIT_MS);
	unsigned int holders;
	int st;

	if (o->beh == RM_RACE_CB && o->run->st->on_device) {
		/* 2x: siw0's removal may wait out siw's 10 s MPA timeout */
		if (!wait_for_completion_timeout(&o->go,
						 msecs_to_jiffies(2 * RM_WAIT_MS)))
			pr_warn("xcma_removal: no DEVICE_REMOVAL to race\n");
	} else {
		/* xcma forgets the device when its .remove starts */
		while (xcma_device_query(o->run->dev->name, &st,
					 &holders) == 0 &&
		       time_before(jiffies, end))
			usleep_range(100, 200);
	}
	rm_kick(o);
	rm_destroy(o->target);
}

static int rm_on_removal(struct rm_slot *s)
{
	switch (s->on) {
	case RM_ON_NOTHING:
		break;
	case RM_ON_DEFER:
	case RM_ON_DRAIN:
		if (s == s->owner->target)
			rm_kick(s->owner);
		queue_work(s->run->owner_wq, &s->work);
		break;
	case RM_ON_RETURN:
		WRITE_ONCE(s->destroying, true);
		rm_free_qp(s);
		return 1;
	case RM_ON_SIGNAL:
		complete(&s->owner->go);
		fallthrough;
	case RM_ON_SLOW:
		msleep(20);
		break;
	case RM_ON_VICTIM:
		rm_destroy(s->victim);
		WRITE_ONCE(s->destroying, true);
		return 1;
	}
	return 0;
}

static int rm_on_request(struct rm_slot *s, struct rdma_cm_id *id)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	int ret = 0;

	switch (s->req) {
	case RM_REQ_KEEP:
		return 0;
	case RM_REQ_ACCEPT:
		ret = rm_make_qp(s, id);
		if (!ret)
			ret = rdma_accept(id, &param);
		break;
	case RM_REQ_REJECT:
		ret = rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		WRITE_ONCE(s->destroying, true);
		if (ret && !s->err)
			s->err = ret;
		return 1;
	}
	if (ret && !s->err)
		s->err = ret;
	return 0;
}

static int rm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rm_slot *s = id->context;
	struct rm_run *r = s->run;
	int ret = 0, n;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		/* a new conn id, with its listener's context: give it its own */
		struct rm_slot *c = s->conn;

		while (c && c->id)
			c = c->conn;
		if (!c) {
			atomic_inc(&r->extra_conns);
			return 1;
		}
		s = c;
		s->id = id;
		id->context = s;
	}
	if (atomic_inc_return(&s->in_cb) != 1)
		atomic_inc(&s->overlaps);
	rm_log(r, RM_CB_START, s->idx, ev->event, 0);
	n = atomic_read(&s->nev);
	if (n < RM_MAX_EV)
		s->status[n] = ev->status;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		ret = rm_on_request(s, id);
	else if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		ret = rm_on_removal(s);
	rm_log(r, RM_CB_END, s->idx, ev->event, ret);
	atomic_dec(&s->in_cb);
	atomic_inc(&s->nev);
	wake_up_all(&r->wq);
	return ret;
}

/* ---- setting a row up ---- */

static void rm_addr(struct sockaddr_storage *ss, const char *ip, u16 port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (ip)
		sin->sin_addr.s_addr = in_aton(ip);
}

static unsigned int rm_state_of(struct rdma_cm_id *id)
{
	return xcma_fsm_id_state(&xcma_id_of(id)->life.fsm);
}

/* a slot; its id comes from rm_create() or from a CONNECT_REQUEST */
static struct rm_slot *rm_slot_new(struct rm_owner *o, const char *name,
				   enum rm_on on)
{
	struct rm_run *r = o->run;
	struct rm_slot *s;

	KUNIT_ASSERT_LT(r->test, r->nslots, RM_SLOTS);
	s = &r->slot[r->nslots];
	s->run = r;
	s->owner = o;
	s->idx = r->nslots++;
	s->name = name;
	s->on = on;
	s->opt[0] = -1;
	s->opt[1] = -1;
	s->opt[2] = -1;
	/* helpers are bound to rxe0 and go with it */
	s->dr_min = 1;
	s->dr_max = 1;
	s->loose = true;
	INIT_WORK(&s->work, on == RM_ON_DRAIN ? rm_drain_destroy :
						rm_deferred_destroy);
	return s;
}

static struct rm_slot *rm_create(struct rm_owner *o, const char *name,
				 enum rm_on on)
{
	struct rm_slot *s = rm_slot_new(o, name, on);
	struct rdma_cm_id *id;

	id = rdma_create_id(&init_net, rm_handler, s, RDMA_PS_TCP, IB_QPT_RC);
	KUNIT_ASSERT_FALSE(o->run->test, IS_ERR(id));
	s->id = id;
	return s;
}

static void rm_expect(struct rm_slot *s, const int *want, int nwant,
		      int dr)
{
	s->want = want;
	s->nwant = nwant;
	s->dr_min = dr;
	s->dr_max = dr;
	s->loose = false;
}

static bool rm_wait(struct rm_slot *s, int count)
{
	return wait_event_timeout(s->run->wq, atomic_read(&s->nev) >= count,
				  msecs_to_jiffies(RM_WAIT_MS)) > 0;
}

static void rm_bind(struct rm_slot *s, const char *ip, u16 port)
{
	struct sockaddr_storage ss;

	rm_addr(&ss, ip, port);
	KUNIT_ASSERT_EQ(s->run->test,
			rdma_bind_addr(s->id, (struct sockaddr *)&ss), 0);
}

static void rm_listen(struct rm_slot *s, const char *ip)
{
	rm_bind(s, ip, s->owner->port);
	KUNIT_ASSERT_EQ(s->run->test, rdma_listen(s->id, 8), 0);
}

static void rm_resolve_addr(struct rm_slot *s, const char *src_ip)
{
	struct kunit *test = s->run->test;
	struct sockaddr_storage src, dst;
	int n = atomic_read(&s->nev);

	rm_addr(&src, src_ip, 0);
	rm_addr(&dst, s->dst_ip ?: s->run->dev->ip, s->owner->port);
	KUNIT_ASSERT_EQ(test, rdma_resolve_addr(s->id, src_ip ?
				(struct sockaddr *)&src : NULL,
				(struct sockaddr *)&dst, 2000), 0);
	if (s->run->parking)
		return;
	KUNIT_ASSERT_TRUE(test, rm_wait(s, n + 1));
	KUNIT_ASSERT_EQ_MSG(test, s->status[n], 0, "%s: address", s->name);
}

static void rm_resolve(struct rm_slot *s)
{
	int n;

	rm_resolve_addr(s, NULL);
	n = atomic_read(&s->nev);
	atomic_inc(&s->run->routes);
	KUNIT_ASSERT_EQ(s->run->test, rdma_resolve_route(s->id, 2000), 0);
	if (s->run->plugging)
		return;
	KUNIT_ASSERT_TRUE(s->run->test, rm_wait(s, n + 1));
}

static void rm_connect(struct rm_slot *s, bool qp)
{
	struct rdma_conn_param param = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};

	if (qp)
		KUNIT_ASSERT_EQ(s->run->test, rm_make_qp(s, s->id), 0);
	KUNIT_ASSERT_EQ(s->run->test, rdma_connect(s->id, &param), 0);
}

static const int ev_ar[] = { RDMA_CM_EVENT_ADDR_RESOLVED };
static const int ev_route[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
				RDMA_CM_EVENT_ROUTE_RESOLVED };
static const int ev_est[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
			      RDMA_CM_EVENT_ROUTE_RESOLVED,
			      RDMA_CM_EVENT_ESTABLISHED };
static const int ev_disc[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
			       RDMA_CM_EVENT_ROUTE_RESOLVED,
			       RDMA_CM_EVENT_ESTABLISHED,
			       RDMA_CM_EVENT_DISCONNECTED };
static const int ev_rej[] = { RDMA_CM_EVENT_ADDR_RESOLVED,
			      RDMA_CM_EVENT_ROUTE_RESOLVED,
			      RDMA_CM_EVENT_REJECTED };
static const int ev_cr[] = { RDMA_CM_EVENT_CONNECT_REQUEST };
static const int ev_cr_est[] = { RDMA_CM_EVENT_CONNECT_REQUEST,
				 RDMA_CM_EVENT_ESTABLISHED };

/* what the owner's target does with DEVICE_REMOVAL */
static enum rm_on rm_target_on(struct rm_owner *o)
{
	static const enum rm_on on[RM_NR_BEH] = {
		[RM_DEFER] = RM_ON_DEFER, [RM_RETURN] = RM_ON_RETURN,
		[RM_RACE] = RM_ON_SLOW, [RM_RACE_CB] = RM_ON_SIGNAL,
		[RM_OTHER] = RM_ON_NOTHING, [RM_DRAIN] = RM_ON_DRAIN,
	};

	return on[o->beh];
}

static struct rm_slot *rm_target(struct rm_owner *o)
{
	o->target = rm_create(o, "target", rm_target_on(o));
	return o->target;
}

/* a wildcard listener helper: no event, still LISTEN afterwards */
static struct rm_slot *rm_wild_listener(struct rm_owner *o)
{
	struct rm_slot *s = rm_create(o, "listener", RM_ON_RETURN);

	rm_listen(s, NULL);
	rm_expect(s, NULL, 0, 0);
	s->hold = true;
	return s;
}

static void setup_idle(struct rm_owner *o)
{
	rm_target(o);
}

static void setup_addr_bound(struct rm_owner *o)
{
	rm_bind(rm_target(o), o->run->dev->ip, 0);
}

/* the source is bound first, so the id holds rxe0 during the query */
static void setup_addr_query(struct rm_owner *o)
{
	INIT_WORK(&o->aq.work, rm_aq_complete);
	rm_target(o);
	o->run->parking = o;
	rm_resolve_addr(o->target, o->run->dev->ip);
	o->run->parking = NULL;
	KUNIT_ASSERT_EQ(o->run->test, o->aq.qstate, RM_Q_PARKED);
}

static void setup_addr_resolved(struct rm_owner *o)
{
	rm_resolve_addr(rm_target(o), NULL);
}

static void setup_route_query(struct rm_owner *o)
{
	o->plug_wq = alloc_ordered_workqueue("xcma_rm_plug", 0);
	KUNIT_ASSERT_NOT_NULL(o->run->test, o->plug_wq);
	queue_work(o->plug_wq, &o->plug);
	rm_target(o);
	o->run->plugging = o;
	rm_resolve(o->target);
	o->run->plugging = NULL;
}

static void setup_route_resolved(struct rm_owner *o)
{
	rm_resolve(rm_target(o));
}

/* the REQ is "sent" (a real ib_cm id) and never answered */
static void setup_connect_client(struct rm_owner *o)
{
	setup_route_resolved(o);
	o->run->park_req = true;
	rm_connect(o->target, false);
}

/*
 * A wildcard listener keeps the REQ of a client (a helper) without
 * answering: the conn id it creates is the target. The client is on rxe0
 * before the target, so removal reaches it first, and the destruction of
 * its ib_cm id may send the target a REJ before removal gets there: the
 * target may see REJECTED first (a peer event).
 */
static void setup_connect_child(struct rm_owner *o)
{
	struct rm_slot *l = rm_wild_listener(o);
	struct rm_slot *cli;

	o->target = rm_slot_new(o, "target", rm_target_on(o));
	o->target->req = RM_REQ_KEEP;
	l->conn = o->target;
	cli = rm_create(o, "client", RM_ON_RETURN);
	cli->want = ev_route;
	cli->nwant = ARRAY_SIZE(ev_route);
	rm_resolve(cli);
	/* a QP of its own: ib_cm takes a second REQ from QPN 0 for stale */
	rm_connect(cli, true);
	KUNIT_ASSERT_TRUE(o->run->test, rm_wait(o->target, 1));
}

/*
 * A client (the target) connected, with a QP, to a conn id of a wildcard
 * listener (helpers). The target is on rxe0 before the conn id: removal
 * reaches it first, and whatever the conn id's end does afterwards
 * cannot reach it any more.
 */
static struct rm_slot *setup_pair(struct rm_owner *o)
{
	struct rm_slot *l = rm_wild_listener(o);
	struct kunit *test = o->run->test;
	struct rm_slot *srv;

	srv = rm_slot_new(o, "server", RM_ON_RETURN);
	srv->req = RM_REQ_ACCEPT;
	srv->want = ev_cr_est;
	srv->nwant = ARRAY_SIZE(ev_cr_est);
	l->conn = srv;
	rm_resolve(rm_target(o));
	rm_connect(o->target, true);
	KUNIT_ASSERT_TRUE(test, rm_wait(o->target, 3));
	KUNIT_ASSERT_TRUE(test, rm_wait(srv, 2));
	KUNIT_ASSERT_EQ(test, srv->err, 0);
	KUNIT_ASSERT_EQ(test, o->target->status[2], 0);
	return srv;
}

static void setup_established(struct rm_owner *o)
{
	setup_pair(o);
}

/*
 * The server end disconnects; the target got DISCONNECTED and does not
 * answer: nothing more is pending for it (its ib_cm id waits in
 * DREQ_RCVD), so its events stay exact.
 */
static void setup_disconnect(struct rm_owner *o)
{
	struct rm_slot *srv = setup_pair(o);

	KUNIT_ASSERT_EQ(o->run->test, rdma_disconnect(srv->id), 0);
	KUNIT_ASSERT_TRUE(o->run->test, rm_wait(o->target, 4));
}

static void setup_listen_device(struct rm_owner *o)
{
	rm_listen(rm_target(o), o->run->dev->ip);
}

static void setup_listen_wildcard(struct rm_owner *o)
{
	rm_listen(rm_target(o), NULL);
}

/*
 * The state a row's target is in: the row's, except that over iw_cm a
 * disconnected id stays CONNECT (in-tree cma_iw_handler() moves no state
 * on CLOSE, nor does xcma's iw_close)
 */
static unsigned int rm_row_state(const struct rm_run *r)
{
	if (r->dev->iw && r->st->fsm_state == XCMA_FSM_DISCONNECT)
		return XCMA_FSM_CONNECT;
	return r->st->fsm_state;
}

/*
 * The rows. Per owner, the target gets one DEVICE_REMOVAL when it holds
 * rxe0 with "defer", "return", "race_callback" and "disconnect_drain",
 * none with "other"
 * (destroyed first), none or one with "race", whichever wins; an id that
 * holds no device hears nothing, whatever its owner would do.
 */
static const struct rm_state rm_states[] = {
	/*
	 * No device: the degenerate row. No DEVICE_REMOVAL, so "defer",
	 * "return" and "disconnect_drain" are never asked: the id
	 * survives, still IDLE; the races and "other" destroy it while the
	 * removal runs.
	 */
	{ "idle", setup_idle, XCMA_FSM_IDLE, false, NULL, 0, -1, -1, false },
	{ "addr_bound", setup_addr_bound, XCMA_FSM_ADDR_BOUND, true, NULL, 0,
	  -1, -1, false },
	/*
	 * A parked address query: cancelled exactly once, by whoever wins
	 * (the remover with the state from before DEVICE_REMOVAL, or the
	 * destroy); with "defer" and "race_callback" its completion runs
	 * during the removal and must be waited for and dropped; with
	 * "race" it may get in first (ADDR_RESOLVED), and then there is
	 * nothing left to cancel.
	 */
	{ "addr_query", setup_addr_query, XCMA_FSM_ADDR_QUERY, true, NULL, 0,
	  RDMA_CM_EVENT_ADDR_RESOLVED, -1, false },
	{ "addr_resolved", setup_addr_resolved, XCMA_FSM_ADDR_RESOLVED, true,
	  ev_ar, ARRAY_SIZE(ev_ar), -1, -1, false },
	/*
	 * The route work queued behind a plug: cancelled (a work item that
	 * never ran gives its reference back: without the cancel, the
	 * destroy would wait for ever); with "defer" and "race_callback"
	 * the plug goes during the removal, the running work must be waited
	 * for and dropped; with "race" ROUTE_RESOLVED may get in first.
	 */
	{ "route_query", setup_route_query, XCMA_FSM_ROUTE_QUERY, true, ev_ar,
	  ARRAY_SIZE(ev_ar), RDMA_CM_EVENT_ROUTE_RESOLVED, -1, false },
	{ "route_resolved", setup_route_resolved, XCMA_FSM_ROUTE_RESOLVED,
	  true, ev_route, ARRAY_SIZE(ev_route), -1, -1, false },
	/* a client's REQ on the wire: its ib_cm id goes with the device */
	{ "connect_client", setup_connect_client, XCMA_FSM_CONNECT, true,
	  ev_route, ARRAY_SIZE(ev_route), -1, -1, false },
	{ "connect_listener_child", setup_connect_child, XCMA_FSM_CONNECT,
	  true, ev_cr, ARRAY_SIZE(ev_cr), -1, RDMA_CM_EVENT_REJECTED, false },
	/* ESTABLISHED is CONNECT for the state machine, as in-tree */
	{ "established", setup_established, XCMA_FSM_CONNECT, true, ev_est,
	  ARRAY_SIZE(ev_est), -1, -1, false },
	{ "disconnect", setup_disconnect, XCMA_FSM_DISCONNECT, true, ev_disc,
	  ARRAY_SIZE(ev_disc), -1, -1, false },
	{ "listen_device", setup_listen_device, XCMA_FSM_LISTEN, true, NULL, 0,
	  -1, -1, false },
	/*
	 * The wildcard listener itself holds no device: only its per-device
	 * child goes, quietly (G7). It hears nothing, whatever the owner
	 * would do; with "defer", "return" and "disconnect_drain" it
	 * survives and takes a REQ on the re-added rxe0; the races and
	 * "other" destroy it while its child is being removed.
	 */
	{ "listen_wildcard", setup_listen_wildcard, XCMA_FSM_LISTEN, false,
	  NULL, 0, -1, -1, true },
};

static void rm_state_desc(const struct rm_state *st, char *desc)
{
	strscpy(desc, st->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rm_state, rm_states, rm_state_desc);

/* ---- running a row ---- */

static bool rm_device_present(const struct rm_dev *dev)
{
	unsigned int holders;
	int st;

	return xcma_device_query(dev->name, &st, &holders) == 0;
}

static int rm_probe_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

/* the device is there and its GIDs are: an id binds to it by its address */
static void rm_wait_ready(struct kunit *test, const struct rm_dev *dev)
{
	struct sockaddr_storage ss;
	struct rdma_cm_id *probe;
	int i, ret = -ENODEV;

	probe = rdma_create_id(&init_net, rm_probe_handler, NULL, RDMA_PS_TCP,
			       IB_QPT_RC);
	KUNIT_ASSERT_FALSE(test, IS_ERR(probe));
	rm_addr(&ss, dev->ip, 0);
	for (i = 0; i < 100 && ret; i++) {
		ret = rdma_bind_addr(probe, (struct sockaddr *)&ss);
		if (ret)
			msleep(50);
	}
	if (!ret && strcmp(dev_name(&probe->device->dev), dev->name))
		ret = -EXDEV;
	rdma_destroy_id(probe);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s not usable", dev->name);
}

static void rm_hold(struct rm_run *r, bool get)
{
	int i;

	for (i = 0; i < r->nslots; i++) {
		struct rm_slot *s = &r->slot[i];

		if (!s->hold || !s->id)
			continue;
		if (get) {
			xcma_fsm_id_get(&xcma_id_of(s->id)->life.fsm);
			r->nheld++;
		} else if (r->nheld) {
			xcma_fsm_id_put(&xcma_id_of(s->id)->life.fsm);
		}
	}
	if (!get)
		r->nheld = 0;
}

/* the device an id holds, per the library (NULL: released) */
static void *rm_holds(struct rm_slot *s)
{
	void *dev;

	mutex_lock(&xcma_life.lock);
	dev = xcma_id_of(s->id)->life.fsm.dev;
	mutex_unlock(&xcma_life.lock);
	return dev;
}

/*
 * G5 is about the moment xcma's .remove returns, well before the link
 * delete does: take the snapshot then. Whatever of the device is let go
 * after it counts as late (the phase is the fakes' clock).
 */
static void rm_watch(struct work_struct *work)
{
	struct rm_run *r = container_of(work, struct rm_run, watch);
	unsigned long end = jiffies + msecs_to_jiffies(6 * RM_WAIT_MS);
	struct xcma_device_counters c;
	int i;

	for (;;) {
		xcma_device_get_counters(&c);
		if (c.removed != r->removed0 || !time_before(jiffies, end))
			break;
		usleep_range(50, 100);
	}
	WRITE_ONCE(r->phase, RM_REMOVED);
	r->t_remove = ktime_get();
	rm_log(r, RM_REMOVE_RET, -1, 0, 0);
	r->alive_at_remove = xcma_id_live();
	for (i = 0; i < r->nslots; i++) {
		struct rm_slot *s = &r->slot[i];

		if (!s->hold || !s->id)
			continue;
		s->dev_at_remove = rm_holds(s);
		if (READ_ONCE(s->destroying))
			r->racing_children += s->other_children +
					      s->dev_children;
		else
			r->kept_children += s->other_children;
	}
	complete(&r->removed);
}

/* what of the device each id holds before the removal; then armed */
static int rm_arm(struct rm_run *r)
{
	int i, attrs = 0;

	mutex_lock(&xcma_life.lock);
	for (i = 0; i < r->nslots; i++) {
		struct rm_slot *s = &r->slot[i];
		struct xcma_fsm_id *child;
		struct xcma_fsm_link *l;
		struct xcma_id *xid, *cx;

		if (!s->id)
			continue;
		xid = xcma_id_of(s->id);
		s->cm_id = r->dev->iw ? (void *)xid->iw_id : (void *)xid->cm_id;
		s->listen_cm_id = r->dev->iw ? (void *)xid->iw_listen_id :
					       (void *)xid->listen_cm_id;
		if (xid->id.route.addr.dev_addr.sgid_attr)
			attrs++;
		/* a wildcard listener: its child on the device listens for it */
		for (l = xid->life.fsm.children.next;
		     l != &xid->life.fsm.children; l = l->next) {
			child = container_of(l, struct xcma_fsm_id, child_item);
			cx = xcma_id_of_life(xcma_life_id_of(child));
			s->other_children++;
			if (!cx->id.device ||
			    strcmp(dev_name(&cx->id.device->dev), r->dev->name))
				continue;
			s->listen_cm_id = r->dev->iw ? (void *)cx->iw_listen_id :
						       (void *)cx->listen_cm_id;
			s->other_children--;
			s->dev_children++;
		}
	}
	mutex_unlock(&xcma_life.lock);
	WRITE_ONCE(r->phase, RM_ARMED);
	return attrs;
}

static void rm_cleanup(void *data)
{
	struct rm_run *r = data;
	int i;

	for (i = 0; i < RM_NR_BEH; i++)
		complete_all(&r->owner[i].unplug);
	rm_hold(r, false);
	flush_workqueue(r->owner_wq);
	for (i = 0; i < RM_NR_BEH; i++)
		if (r->owner[i].aq.work.func)
			flush_work(&r->owner[i].aq.work);
	/* a row that stopped half-way: what is left of it */
	for (i = 0; i < r->nslots; i++) {
		struct rm_slot *s = &r->slot[i];

		if (s->id && !s->destroying)
			rm_destroy(s);
	}
	rm_sa_flush(r);
	for (i = 0; i < RM_NR_BEH; i++)
		if (r->owner[i].plug_wq)
			destroy_workqueue(r->owner[i].plug_wq);
	destroy_workqueue(r->owner_wq);
	xcma_ops_set(r->old_ops);
	WRITE_ONCE(rm_cur, NULL);
	if (!rm_device_present(r->dev))
		xcma_kunit_run(r->test, r->dev->add);
}

static struct rm_run *rm_run_new(struct kunit *test, const struct rm_dev *dev,
				 const struct rm_state *st, u16 port)
{
	struct rm_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->test = test;
	r->dev = dev;
	r->st = st;
	spin_lock_init(&r->lock);
	init_waitqueue_head(&r->wq);
	for (i = 0; i < RM_NR_BEH; i++) {
		struct rm_owner *o = &r->owner[i];

		o->run = r;
		o->beh = i;
		o->port = port + 2 * i;
		init_completion(&o->unplug);
		init_completion(&o->go);
		INIT_WORK(&o->plug, rm_plug);
		INIT_WORK(&o->racer, rm_racer);
		INIT_DELAYED_WORK(&o->sa.answer, rm_sa_answer_held);
	}
	INIT_WORK(&r->watch, rm_watch);
	init_completion(&r->removed);
	r->owner_wq = alloc_workqueue("xcma_rm_owner", WQ_UNBOUND, 0);
	KUNIT_ASSERT_NOT_NULL(test, r->owner_wq);
	r->fake = xcma_kernel_ops;
	r->fake.put_gid_attr = rm_put_gid_attr;
	r->fake.destroy_cm_id = rm_destroy_cm_id;
	r->fake.resolve_ip = rm_resolve_ip;
	r->fake.addr_cancel = rm_addr_cancel;
	r->fake.send_req = rm_send_req;
	r->fake.iw_destroy_id = rm_iw_destroy_id;
	r->fake.iw_connect = rm_iw_connect;
	r->fake.queue_route = rm_queue_route;
	if (dev->ib)
		rm_ib_fakes(r);
	WRITE_ONCE(rm_cur, r);
	r->old_ops = xcma_ops_set(&r->fake);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rm_cleanup, r), 0);
	return r;
}

/* G1-G4 for one id, from the log */
static void rm_check_slot(struct kunit *test, struct rm_slot *s)
{
	const char *who = rm_beh_names[s->owner->beh];
	int ev[RM_MAX_EV], n = 0, i, dr = 0, opt[3] = { 0, 0, 0 };
	int g1 = 0, g2 = 0, g4 = 0;
	bool in_cb = false, over = false, after_dr = false;
	struct rm_run *r = s->run;

	for (i = 0; i < r->nlog; i++) {
		const struct rm_rec *l = &r->log[i];

		if (l->slot != s->idx)
			continue;
		switch (l->kind) {
		case RM_CB_START:
			g1 += in_cb;
			g2 += over;
			g4 += after_dr;
			in_cb = true;
			if (n < RM_MAX_EV)
				ev[n++] = l->event;
			if (l->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
				dr++;
				after_dr = true;
			}
			break;
		case RM_CB_END:
			g1 += !in_cb;
			in_cb = false;
			over |= l->ret;
			break;
		case RM_DESTROY_RET:
			g2 += in_cb || l->ret;
			over = true;
			break;
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, g1 + atomic_read(&s->overlaps), 0,
			    "%s/%s: G1: callbacks overlapped", who, s->name);
	KUNIT_EXPECT_EQ_MSG(test, g2, 0,
			    "%s/%s: G2/G3: callback after destroy or non-zero return",
			    who, s->name);
	KUNIT_EXPECT_EQ_MSG(test, g4, 0,
			    "%s/%s: G4: event after DEVICE_REMOVAL", who,
			    s->name);
	KUNIT_EXPECT_TRUE_MSG(test, dr >= s->dr_min && dr <= s->dr_max,
			      "%s/%s: G4: %d DEVICE_REMOVAL, want %d..%d",
			      who, s->name, dr, s->dr_min, s->dr_max);
	KUNIT_EXPECT_GE_MSG(test, n, s->nwant, "%s/%s: %d events", who,
			    s->name, n);
	for (i = 0; i < min(n, s->nwant); i++)
		KUNIT_EXPECT_EQ_MSG(test, ev[i], s->want[i],
				    "%s/%s: event %d: %s", who, s->name, i,
				    rdma_event_msg(ev[i]));
	for (i = s->nwant; i < n; i++) {
		if (ev[i] == RDMA_CM_EVENT_DEVICE_REMOVAL || s->loose)
			continue;
		if (ev[i] == s->opt[0] && !opt[0]++)
			continue;
		if (ev[i] == s->opt[1] && !opt[1]++)
			continue;
		if (ev[i] == s->opt[2] && !opt[2]++)
			continue;
		KUNIT_FAIL(test, "%s/%s: unexpected event %d: %s", who,
			   s->name, i, rdma_event_msg(ev[i]));
	}
}

static int rm_count(struct rm_slot *s, int event)
{
	struct rm_run *r = s->run;
	int i, n = 0;

	for (i = 0; i < r->nlog; i++)
		n += r->log[i].slot == s->idx && r->log[i].kind == RM_CB_START &&
		     r->log[i].event == event;
	return n;
}

static int rm_find(struct rm_run *r, enum rm_kind kind, int slot)
{
	int i;

	for (i = 0; i < r->nlog; i++)
		if (r->log[i].kind == kind && r->log[i].slot == slot)
			return i;
	return RM_LOG;
}

/* a failed row's log, for whoever reads the console */
static void rm_dump(struct kunit *test, struct rm_run *r)
{
	static const char *const kinds[] = {
		[RM_CB_START] = "callback", [RM_CB_END] = "returns",
		[RM_DESTROY_CALL] = "destroy", [RM_DESTROY_RET] = "destroyed",
		[RM_DEL_CALL] = "link delete", [RM_REMOVE_RET] = ".remove returned",
		[RM_DEL_RET] = "link delete returned",
	};
	int i, n[RM_SLOTS] = {};

	if (test->status != KUNIT_FAILURE)
		return;
	for (i = 0; i < r->nlog; i++) {
		const struct rm_rec *l = &r->log[i];
		const struct rm_slot *s = l->slot >= 0 ? &r->slot[l->slot] : NULL;
		int st = 0;

		if (s && l->kind == RM_CB_START && n[l->slot] < RM_MAX_EV)
			st = s->status[n[l->slot]++];
		kunit_info(test, "log %d: %s/%s %s %s %d ret %d", i,
			   s ? rm_beh_names[s->owner->beh] : "-",
			   s ? s->name : "-", kinds[l->kind],
			   l->kind <= RM_CB_END ? rdma_event_msg(l->event) : "",
			   st, l->ret);
	}
}

/* G5 at the moment xcma's .remove returned */
static void rm_check_released(struct kunit *test, struct rm_run *r, int attrs)
{
	int i;

	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->gid_puts), attrs,
			    "G5: GID attributes let go before .remove returned");
	for (i = 0; i < r->nslots; i++) {
		struct rm_slot *s = &r->slot[i];
		const char *who = rm_beh_names[s->owner->beh];

		if (s->cm_id)
			KUNIT_EXPECT_EQ_MSG(test, atomic_read(&s->cm_released), 1,
					    "G5: %s/%s: ib_cm id", who, s->name);
		if (s->listen_cm_id)
			KUNIT_EXPECT_EQ_MSG(test,
					    atomic_read(&s->listen_released), 1,
					    "G5: %s/%s: ib_cm listen", who,
					    s->name);
		if (s->hold && s->id)
			KUNIT_EXPECT_NULL_MSG(test, s->dev_at_remove,
					      "G5: %s/%s still held %s",
					      who, s->name, r->dev->name);
	}
}

/* what is expected of an owner's target */
static void rm_expect_target(struct rm_owner *o)
{
	const struct rm_state *st = o->run->st;
	struct rm_slot *t = o->target;

	rm_expect(t, st->want, st->nwant, 0);
	t->opt[0] = o->beh == RM_RACE ? st->late_event : -1;
	t->opt[1] = st->peer_event;
	t->opt[2] = o->run->dev->qp_close_event;
	t->dr_min = st->on_device && o->beh != RM_RACE && o->beh != RM_OTHER;
	t->dr_max = st->on_device && o->beh != RM_OTHER;
	/* destroyed outside the remover: by its owner, or by the test */
	t->hold = o->beh != RM_OTHER &&
		  (o->beh != RM_RETURN || !st->on_device);
	if (o->companion)
		o->companion->victim = t;
}

/*
 * "disconnect_drain": the in-tree rdma_disconnect() after DEVICE_REMOVAL
 * asks only for a CM id (over ib_cm a device listener's listen is one,
 * and its disconnect has nothing to send; iw_cm refuses a listen with
 * -EINVAL), and over ib_cm moves the QP to ERR, which flushes the receive
 */
static void rm_check_drain(struct kunit *test, struct rm_owner *o)
{
	struct rm_slot *t = o->target;
	bool iw = o->run->dev->iw;
	bool cm = t->cm_id || (!iw && t->listen_cm_id);

	KUNIT_EXPECT_EQ_MSG(test, t->disc_ret, cm ? 0 : -EINVAL,
			    "disconnect_drain: rdma_disconnect() after DEVICE_REMOVAL");
	if (t->recv_posted && !iw)
		KUNIT_EXPECT_EQ_MSG(test, t->flush, IB_WC_WR_FLUSH_ERR,
				    "disconnect_drain: the receive flushed");
	KUNIT_EXPECT_FALSE_MSG(test, t->removed_first,
			       "disconnect_drain: .remove returned while its id held %s",
			       o->run->dev->name);
}

/* what only the target of one owner tells, once the removal is over */
static void rm_check_owner(struct kunit *test, struct rm_owner *o)
{
	const struct rm_state *st = o->run->st;
	const char *who = rm_beh_names[o->beh];
	struct rm_run *r = o->run;
	struct rm_slot *t = o->target;

	if ((o->beh == RM_DEFER || o->beh == RM_DRAIN) && st->on_device) {
		KUNIT_EXPECT_LT_MSG(test, rm_find(r, RM_DESTROY_CALL, t->idx),
				    rm_find(r, RM_REMOVE_RET, -1),
				    "G5: %s: .remove returned before the owner destroyed",
				    who);
		KUNIT_EXPECT_FALSE_MSG(test, t->removed_first,
				       "G5: %s: the owner saw .remove return while its id held %s",
				       who, r->dev->name);
	}
	if (st->late_event == RDMA_CM_EVENT_ADDR_RESOLVED) {
		/* cancelled exactly once, unless it completed first */
		KUNIT_EXPECT_EQ_MSG(test, o->aq.cancels +
				    rm_count(t, st->late_event), 1,
				    "%s: address query cancelled %d times", who,
				    o->aq.cancels);
		/* the completion ran during the removal, and was dropped */
		if (o->beh == RM_DEFER || o->beh == RM_RACE_CB ||
		    o->beh == RM_DRAIN)
			KUNIT_EXPECT_EQ(test, o->aq.qstate, RM_Q_DONE);
		if (o->beh == RM_RETURN || o->beh == RM_OTHER)
			KUNIT_EXPECT_EQ(test, o->aq.qstate, RM_Q_CANCELLED);
	}
	if (r->dev->ib && st->late_event == RDMA_CM_EVENT_ROUTE_RESOLVED)
		rm_sa_check_owner(test, o);
	if (o->beh == RM_DRAIN && st->on_device)
		rm_check_drain(test, o);
	if (o->beh == RM_RACE)
		kunit_info(test, "race: %s",
			   rm_count(t, RDMA_CM_EVENT_DEVICE_REMOVAL) ?
			   "removal reached the target first" :
			   "the destroy came first");
}

/* G7 after the re-add: a surviving wildcard listener takes a REQ */
static void rm_reconnect(struct kunit *test, struct rm_owner *o)
{
	struct rm_slot *cli, *conn;

	conn = rm_slot_new(o, "new conn", RM_ON_RETURN);
	conn->req = RM_REQ_REJECT;
	rm_expect(conn, ev_cr, ARRAY_SIZE(ev_cr), 0);
	o->target->conn = conn;
	cli = rm_create(o, "new client", RM_ON_RETURN);
	rm_expect(cli, ev_rej, ARRAY_SIZE(ev_rej), 0);
	rm_resolve(cli);
	rm_connect(cli, true);
	KUNIT_EXPECT_TRUE(test, rm_wait(cli, 3));
	KUNIT_EXPECT_EQ(test, cli->status[2], o->run->dev->rej_status);
	rm_destroy(cli);
	rm_check_slot(test, cli);
	rm_check_slot(test, conn);
}

/*
 * One row: the state's six owners set up side by side (the companion of
 * "other" first of all, so that it is the first id on the device), one
 * removal, the checks, the re-add.
 */
static void removal_row(struct kunit *test, const struct rm_dev *dev,
			u16 port_base)
{
	const struct rm_state *st = test->param_value;
	struct xcma_device_counters c0, c1, c2;
	ktime_t t0 = ktime_get(), t1, t2;
	unsigned int base, holders;
	int attrs, ret, i, dstate;
	struct rm_owner *o;
	struct rm_run *r;

	r = rm_run_new(test, dev, st, port_base + 16 * (st - rm_states));
	rm_wait_ready(test, dev);
	base = xcma_id_live();
	xcma_device_get_counters(&c0);

	o = &r->owner[RM_OTHER];
	o->companion = rm_create(o, "companion", RM_ON_VICTIM);
	if (o->companion) {
		rm_expect(o->companion, NULL, 0, 1);
		rm_bind(o->companion, r->dev->ip, 0);
	}
	for (i = 0; i < RM_NR_BEH; i++) {
		o = &r->owner[i];
		if (i == RM_OTHER && !o->companion)
			continue;
		st->setup(o);
		KUNIT_ASSERT_NOT_NULL(test, o->target->id);
		KUNIT_ASSERT_EQ_MSG(test, rm_state_of(o->target->id),
				    rm_row_state(r), "%s: target in %s",
				    rm_beh_names[i],
				    xcma_fsm_state_name(rm_state_of(o->target->id)));
		rm_expect_target(o);
		if (i == RM_DRAIN && o->target->pd)
			rm_post_recv(o->target);
	}
	rm_hold(r, true);
	attrs = rm_arm(r);
	r->removed0 = c0.removed;
	queue_work(r->owner_wq, &r->watch);
	queue_work(r->owner_wq, &r->owner[RM_RACE].racer);
	queue_work(r->owner_wq, &r->owner[RM_RACE_CB].racer);

	t1 = ktime_get();
	rm_log(r, RM_DEL_CALL, -1, 0, 0);
	ret = xcma_kunit_run(test, r->dev->del);
	rm_log(r, RM_DEL_RET, -1, 0, 0);
	t2 = ktime_get();
	KUNIT_EXPECT_EQ(test, ret, 0);
	ret = wait_for_completion_timeout(&r->removed,
					  msecs_to_jiffies(RM_WAIT_MS));
	KUNIT_ASSERT_NE_MSG(test, ret, 0, "no .remove seen");
	xcma_device_get_counters(&c1);
	KUNIT_EXPECT_EQ(test, xcma_device_query(r->dev->name, &dstate,
						&holders), -ENODEV);
	KUNIT_EXPECT_EQ(test, c1.removed, c0.removed + 1);
	KUNIT_EXPECT_EQ(test, c1.live, c0.live - 1);
	/* G5 and G3, as they were when .remove returned */
	rm_check_released(test, r, attrs);
	KUNIT_EXPECT_TRUE_MSG(test, r->alive_at_remove >= base + r->nheld +
			      r->kept_children &&
			      r->alive_at_remove <= base + r->nheld +
			      r->kept_children + r->racing_children,
			      "G3/G8: %u ids alive when .remove returned, want %u + %d (+ up to %d)",
			      r->alive_at_remove, base + r->nheld,
			      r->kept_children, r->racing_children);
	/* G7: what holds no device is still as it was */
	for (i = 0; i < r->nslots; i++) {
		struct rm_slot *s = &r->slot[i];

		if (s->hold && s->id && !READ_ONCE(s->destroying))
			KUNIT_EXPECT_EQ_MSG(test, rm_state_of(s->id),
					    s == s->owner->target ?
					    rm_row_state(r) : XCMA_FSM_LISTEN,
					    "%s/%s survives",
					    rm_beh_names[s->owner->beh], s->name);
	}

	/* let the owners' destroys finish, then read the log */
	rm_hold(r, false);
	flush_workqueue(r->owner_wq);
	for (i = 0; i < RM_NR_BEH; i++)
		if (r->owner[i].aq.work.func)
			flush_work(&r->owner[i].aq.work);
	for (i = 0; i < r->nslots; i++)
		rm_check_slot(test, &r->slot[i]);
	for (i = 0; i < RM_NR_BEH; i++)
		if (r->owner[i].target)
			rm_check_owner(test, &r->owner[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->extra_conns), 0);

	/* survivors the re-add does not need go now: nothing of rxe0 left */
	for (i = 0; i < r->nslots; i++) {
		struct rm_slot *s = &r->slot[i];

		if (s->id && !s->destroying &&
		    !(s == s->owner->target && st->wildcard))
			rm_destroy(s);
	}
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r->late_dev_ops), 0,
			    "G5: the removed device was touched afterwards");

	WRITE_ONCE(r->phase, RM_READDED);
	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, r->dev->add), 0);
	rm_wait_ready(test, dev);
	for (i = 0; i < RM_NR_BEH; i++) {
		o = &r->owner[i];
		if (st->wildcard && o->target && !o->target->destroying) {
			rm_reconnect(test, o);
			rm_destroy(o->target);
		}
	}
	/* IB: every route of the row was the SA's */
	if (dev->ib)
		KUNIT_EXPECT_EQ(test, atomic_read(&r->sa_queries),
				atomic_read(&r->routes));
	/* G8 */
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	xcma_device_get_counters(&c2);
	KUNIT_EXPECT_EQ(test, c2.live, c0.live);
	KUNIT_EXPECT_EQ(test, xcma_device_query(r->dev->name, &dstate,
						&holders), 0);
	KUNIT_EXPECT_EQ(test, holders, 0U);
	kunit_info(test, "removal: .remove %lld ms, link delete %lld ms; row %lld ms",
		   ktime_ms_delta(r->t_remove, t1), ktime_ms_delta(t2, t1),
		   ktime_ms_delta(ktime_get(), t0));
	rm_dump(test, r);
}

/*
 * After all those removals and re-adds: a new client connects, with a
 * QP, to a new listener, both ends are established, and they part.
 */
static void reconnect_after_readd(struct kunit *test, const struct rm_dev *dev,
				  u16 port)
{
	struct rm_run *r = rm_run_new(test, dev, &rm_states[0], port);
	struct rm_owner *o = &r->owner[RM_OTHER];
	unsigned int base;
	int i;

	rm_wait_ready(test, dev);
	base = xcma_id_live();
	setup_established(o);
	KUNIT_EXPECT_EQ(test, rm_state_of(o->target->id), XCMA_FSM_CONNECT);
	rm_expect(o->target, ev_est, ARRAY_SIZE(ev_est), 0);
	o->target->opt[2] = dev->qp_close_event;
	/* the client first: its DREQ reaches the server end, a helper */
	for (i = r->nslots - 1; i >= 0; i--) {
		r->slot[i].dr_min = 0;
		r->slot[i].dr_max = 0;
		if (r->slot[i].id)
			rm_destroy(&r->slot[i]);
	}
	for (i = 0; i < r->nslots; i++)
		rm_check_slot(test, &r->slot[i]);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	if (dev->ib)
		KUNIT_EXPECT_EQ(test, atomic_read(&r->sa_queries),
				atomic_read(&r->routes));
	rm_dump(test, r);
}

static void removal_row_rxe(struct kunit *test)
{
	removal_row(test, &rm_rxe, RM_PORT_BASE);
}

static void reconnect_after_readd_rxe(struct kunit *test)
{
	reconnect_after_readd(test, &rm_rxe, RM_PORT_BASE - 16);
}

static struct kunit_case removal_cases[] = {
	KUNIT_CASE_PARAM_ATTR(removal_row_rxe, rm_state_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(reconnect_after_readd_rxe),
	{}
};

static struct kunit_suite removal_suite = {
	.name = "xcma_removal",
	.init = xcma_kunit_sweep_init,
	.test_cases = removal_cases,
};

/* ---- the same table on rxe0 declared InfiniBand ---- */

static const struct rm_dev rm_ib = {
	.name = "rxe0",
	.ip = "10.99.0.1",
	.add = "/usr/sbin/rdma link add rxe0 type rxe netdev eth0",
	.del = "/usr/sbin/rdma link delete rxe0",
	.ib = true,
	.rej_status = IB_CM_REJ_CONSUMER_DEFINED,
	.qp_close_event = -1,
};

#define RM_IB_PORT_BASE 19800

static void removal_row_ib(struct kunit *test)
{
	removal_row(test, &rm_ib, RM_IB_PORT_BASE);
}

static void reconnect_after_readd_ib(struct kunit *test)
{
	reconnect_after_readd(test, &rm_ib, RM_IB_PORT_BASE - 16);
}

static struct kunit_case removal_ib_cases[] = {
	KUNIT_CASE_PARAM_ATTR(removal_row_ib, rm_state_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(reconnect_after_readd_ib),
	{}
};

static struct kunit_suite removal_ib_suite = {
	.name = "xcma_removal_ib",
	.init = xcma_kunit_sweep_init,
	.test_cases = removal_ib_cases,
};

/* ---- the same table on siw0 (iWARP) ---- */

#define RM_SIW_PORT_BASE 19200

static void removal_row_siw(struct kunit *test)
{
	removal_row(test, &rm_siw, RM_SIW_PORT_BASE);
}

static void reconnect_after_readd_siw(struct kunit *test)
{
	reconnect_after_readd(test, &rm_siw, RM_SIW_PORT_BASE - 16);
}

static int mc_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	return 0;
}

/*
 * What the table's rows need exists on iWARP; what does not is refused
 * with the in-tree errno, which this case checks, and has no row: a
 * multicast group (rdma_join_multicast() on an iWARP port: errno 38,
 * ENOSYS, as in-tree), so there is no "joined" state to remove siw0
 * under. (UD ids have no row on rxe0 either: xcma_ud and xcma_mcast
 * cover their removal.)
 */
static void absent_on_iwarp(struct kunit *test)
{
	struct sockaddr_storage src, grp;
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, mc_handler, NULL, RDMA_PS_UDP,
			    IB_QPT_UD);
	KUNIT_ASSERT_FALSE(test, IS_ERR(id));
	rm_addr(&src, rm_siw.ip, 0);
	ret = rdma_bind_addr(id, (struct sockaddr *)&src);
	KUNIT_EXPECT_EQ(test, ret, 0);
	rm_addr(&grp, "239.1.2.3", 0);
	if (!ret) {
		KUNIT_EXPECT_STREQ(test, dev_name(&id->device->dev),
				   rm_siw.name);
		ret = rdma_join_multicast(id, (struct sockaddr *)&grp,
					  FULLMEMBER_JOIN, NULL);
		KUNIT_EXPECT_EQ(test, ret, -XCMA_ENOTRANSPORT);
		KUNIT_EXPECT_EQ(test, rm_state_of(id), XCMA_FSM_ADDR_BOUND);
	}
	rdma_destroy_id(id);
	if (ret == -XCMA_ENOTRANSPORT)
		kunit_info(test, "no multicast on iWARP: join refused, errno 38; no row");
}

static const char *const rm_siw_setup[] = {
	"/sbin/modprobe siw",
	"/usr/sbin/ip link add xrm0 type dummy",
	"/usr/sbin/ip addr add 10.97.0.1/24 dev xrm0",
	"/usr/sbin/ip link set xrm0 up",
	"/usr/sbin/rdma link add siw0 type siw netdev xrm0",
};

static int rm_siw_init(struct kunit_suite *suite)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(rm_siw_setup); i++) {
		ret = xcma_kunit_run(NULL, rm_siw_setup[i]);
		if (ret) {
			pr_err("xcma_removal_siw: '%s' -> %d\n",
			       rm_siw_setup[i], ret);
			return -ENODEV;
		}
	}
	return 0;
}

static void rm_siw_exit(struct kunit_suite *suite)
{
	xcma_kunit_run(NULL, rm_siw.del);
	xcma_kunit_run(NULL, "/usr/sbin/ip link del xrm0");
}

/* ---- rxe0 and siw0 on one host ---- */

/* one SEND from @a's QP to a RECV posted on @b's, over their connection */
static int rm_send(struct rm_slot *a, struct rm_slot *b, const char *msg)
{
	return xcma_kunit_send(a->id->qp, b->id->qp, msg);
}

/*
 * A client on @dev connects to the wildcard listener @l, which accepts:
 * the returned conn id and *@cli are established, both on @dev. Each
 * gets one DEVICE_REMOVAL if @dev goes (@dr), and may hear its peer
 * leave first.
 */
static struct rm_slot *rm_pair_on(struct rm_owner *o, struct rm_slot *l,
				  const struct rm_dev *dev, const char *sname,
				  const char *cname, int dr, struct rm_slot **cli)
{
	struct kunit *test = o->run->test;
	struct rm_slot *srv, *c, *t;

	srv = rm_slot_new(o, sname, RM_ON_RETURN);
	srv->req = RM_REQ_ACCEPT;
	for (t = l; t->conn; t = t->conn)
		;
	t->conn = srv;
	c = rm_create(o, cname, RM_ON_RETURN);
	c->dst_ip = dev->ip;
	rm_resolve(c);
	rm_connect(c, true);
	KUNIT_ASSERT_TRUE(test, rm_wait(c, 3));
	KUNIT_ASSERT_TRUE(test, rm_wait(srv, 2));
	KUNIT_ASSERT_EQ(test, srv->err, 0);
	KUNIT_ASSERT_EQ(test, c->status[2], 0);
	KUNIT_ASSERT_STREQ(test, dev_name(&c->id->device->dev), dev->name);
	KUNIT_ASSERT_STREQ(test, dev_name(&srv->id->device->dev), dev->name);
	KUNIT_EXPECT_EQ(test, rm_send(c, srv, "to server"), 0);
	KUNIT_EXPECT_EQ(test, rm_send(srv, c, "to client"), 0);
	rm_expect(c, ev_est, ARRAY_SIZE(ev_est), dr);
	rm_expect(srv, ev_cr_est, ARRAY_SIZE(ev_cr_est), dr);
	c->opt[0] = RDMA_CM_EVENT_DISCONNECTED;
	srv->opt[0] = RDMA_CM_EVENT_DISCONNECTED;
	*cli = c;
	return srv;
}

/* @dev goes: its pair hears DEVICE_REMOVAL, @keep's pair nothing */
static void rm_remove_one(struct kunit *test, const struct rm_dev *dev,
			  struct rm_slot *gc, struct rm_slot *gs,
			  struct rm_slot *kc, struct rm_slot *ks,
			  struct rm_slot *l)
{
	int nk = atomic_read(&kc->nev) + atomic_read(&ks->nev);

	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, dev->del), 0);
	KUNIT_EXPECT_EQ(test, rm_count(gc, RDMA_CM_EVENT_DEVICE_REMOVAL), 1);
	KUNIT_EXPECT_EQ(test, rm_count(gs, RDMA_CM_EVENT_DEVICE_REMOVAL), 1);
	KUNIT_EXPECT_TRUE(test, READ_ONCE(gc->destroying));
	KUNIT_EXPECT_TRUE(test, READ_ONCE(gs->destroying));
	/* the other device's pair: not a word, still connected, talking */
	KUNIT_EXPECT_EQ(test, atomic_read(&kc->nev) + atomic_read(&ks->nev),
			nk);
	KUNIT_EXPECT_EQ(test, rm_state_of(kc->id), XCMA_FSM_CONNECT);
	KUNIT_EXPECT_EQ(test, rm_state_of(ks->id), XCMA_FSM_CONNECT);
	KUNIT_EXPECT_EQ(test, rm_send(kc, ks, "still here"), 0);
	KUNIT_EXPECT_EQ(test, rm_send(ks, kc, "me too"), 0);
	/* G7: the wildcard listener heard nothing and still listens */
	KUNIT_EXPECT_EQ(test, atomic_read(&l->nev), 0);
	KUNIT_EXPECT_EQ(test, rm_state_of(l->id), XCMA_FSM_LISTEN);
	KUNIT_ASSERT_EQ(test, xcma_kunit_run(test, dev->add), 0);
	rm_wait_ready(test, dev);
}

static void rm_readd_rxe(void *data)
{
	if (!rm_device_present(&rm_rxe))
		xcma_kunit_run(data, rm_rxe.add);
}

/*
 * A host with rxe0 and siw0: one wildcard listener (0.0.0.0, RDMA_PS_TCP)
 * takes a connection on each device. Deleting siw0 gives DEVICE_REMOVAL
 * to the two ids on siw0 and nothing to the pair on rxe0, which stays
 * connected and passes messages both ways; the listener hears nothing
 * (G7) and takes new connections on rxe0 and on the re-added siw0. Then
 * rxe0 goes, and the new pair on siw0 is the one left alone.
 *
 * Both ends run on this host, so TCP between them goes through lo, while
 * siw binds a wildcard listen's socket to siw0's netdev. It still takes
 * the request: for a local destination IPv4 routing sets the route's
 * input interface to the netdev that holds the address (rt_iif, from
 * the FIB result), not lo, and the bound listener matches that.
 */
static void two_devices(struct kunit *test)
{
	struct rm_run *r = rm_run_new(test, &rm_siw, &rm_states[0],
				      RM_SIW_PORT_BASE - 32);
	struct rm_owner *o = &r->owner[RM_DEFER];
	struct rm_slot *l, *rc, *rs, *sc, *ss, *sc2, *ss2, *rc2;
	unsigned int base;
	int i;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rm_readd_rxe,
							test), 0);
	rm_wait_ready(test, &rm_rxe);
	rm_wait_ready(test, &rm_siw);
	base = xcma_id_live();
	l = rm_wild_listener(o);
	rs = rm_pair_on(o, l, &rm_rxe, "rxe0 server", "rxe0 client", 1, &rc);
	ss = rm_pair_on(o, l, &rm_siw, "siw0 server", "siw0 client", 1, &sc);
	rm_remove_one(test, &rm_siw, sc, ss, rc, rs, l);
	/* G7: the listener still takes connections on rxe0, and on siw0 */
	rm_pair_on(o, l, &rm_rxe, "rxe0 server 2", "rxe0 client 2", 1, &rc2);
	ss2 = rm_pair_on(o, l, &rm_siw, "siw0 server 2", "siw0 client 2", 0,
			 &sc2);
	rm_remove_one(test, &rm_rxe, rc, rs, sc2, ss2, l);

	rm_destroy(sc2);
	rm_destroy(ss2);
	rm_destroy(l);
	for (i = 0; i < r->nslots; i++)
		rm_check_slot(test, &r->slot[i]);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->extra_conns), 0);
	KUNIT_EXPECT_EQ(test, xcma_id_live(), base);
	rm_dump(test, r);
}

static struct kunit_case removal_siw_cases[] = {
	KUNIT_CASE_PARAM_ATTR(removal_row_siw, rm_state_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE_SLOW(reconnect_after_readd_siw),
	KUNIT_CASE(absent_on_iwarp),
	KUNIT_CASE_SLOW(two_devices),
	{}
};

static struct kunit_suite removal_siw_suite = {
	.name = "xcma_removal_siw",
	.init = xcma_kunit_sweep_init,
	.suite_init = rm_siw_init,
	.suite_exit = rm_siw_exit,
	.test_cases = removal_siw_cases,
};

kunit_test_suites(&removal_suite, &removal_ib_suite, &removal_siw_suite);
