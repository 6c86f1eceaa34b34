/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the CM suites (cm_test.c, cm2_test.c) share: an event log per side
 * of a connection, the callback that fills it, and the steps every case
 * takes (addresses, ids, resolution, a QP, a message). See cm_util.c.
 */
#ifndef XCMA_KUNIT_CM_UTIL_H
#define XCMA_KUNIT_CM_UTIL_H

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define MAX_EVENTS 16
#define MAX_CONNS 4
#define WAIT_MS 20000

enum req_action { REQ_ACCEPT, REQ_REJECT, REQ_KEEP };

/**
 * struct side - what one id (or a listener and its conn id) saw
 * @lock: protects the logs
 * @wq: woken on every event
 * @ev: events of the id itself (the listener for a server)
 * @st: their status
 * @n: how many
 * @cev: events of the conn id a listener created
 * @cst: their status
 * @cn: how many
 * @conn: that conn id
 * @listener: the listener, to tell its events from the conn id's
 * @action: what the listener does with a CONNECT_REQUEST
 * @pdata: private data of the last CONNECT_REQUEST or REJECTED
 * @pdata_len: how much of it @pdata holds
 * @pdata_full: its length as the event reported it
 * @pd: PD of the conn id
 * @cq: CQ of the conn id
 * @err: first failure inside a callback
 * @destroy_on: 1 + the event on which the id's callback destroys the id
 *	by returning non-zero (after destroying its QP), 0 for none
 * @conns: every conn id the listener created, in order
 * @nconns: how many
 * @block_on: 1 + the event whose callback (the id's or a conn id's) stops
 *	after logging it: it completes @entered, waits for @release (at most
 *	WAIT_MS), sets @left and returns; 0 for none
 * @entered: see @block_on
 * @release: see @block_on
 * @left: see @block_on
 */
struct side {
	spinlock_t lock; /* see above */
	wait_queue_head_t wq;
	int ev[MAX_EVENTS], st[MAX_EVENTS], n;
	int cev[MAX_EVENTS], cst[MAX_EVENTS], cn;
	struct rdma_cm_id *conn;
	struct rdma_cm_id *listener;
	enum req_action action;
	u8 pdata[64];
	u8 pdata_len;
	u8 pdata_full;
	struct ib_pd *pd;
	struct ib_cq *cq;
	int err;
	int destroy_on;
	struct rdma_cm_id *conns[MAX_CONNS];
	int nconns;
	int block_on;
	struct completion entered;
	struct completion release;
	bool left;
};

struct side *cm_new_side(struct kunit *test);
int cm_make_qp(struct rdma_cm_id *id, struct ib_pd **pd, struct ib_cq **cq);
void cm_free_qp(struct rdma_cm_id *id, struct ib_pd *pd, struct ib_cq *cq);
void cm_pair_destroy(struct rdma_cm_id *cli, struct ib_pd *pd,
		     struct ib_cq *cq, struct side *ss, struct rdma_cm_id *lis);
int cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev);
bool cm_wait_events(struct side *s, bool conn, int count);
void cm_expect_events(struct kunit *test, struct side *s, bool conn,
		      const int *want, int count);
unsigned int cm_state(struct rdma_cm_id *id);
int cm_bind_probe(struct sockaddr_storage *a, enum rdma_ucm_port_space ps,
		  enum ib_qp_type qpt);
void cm_addr4(struct sockaddr_storage *ss, const char *ip, u16 port);
void cm_addr6(struct sockaddr_storage *ss, const char *ip, u16 port);
struct rdma_cm_id *cm_new_id(struct kunit *test, struct side *s,
			     enum ib_qp_type qpt);
struct rdma_cm_id *cm_listen(struct kunit *test, struct side *s,
			     struct sockaddr_storage *a);
int cm_resolve(struct kunit *test, struct side *s, struct rdma_cm_id *id,
	       struct sockaddr_storage *src, struct sockaddr_storage *dst);
int cm_exchange(struct kunit *test, struct rdma_cm_id *cli, struct ib_pd *cpd,
		struct ib_cq *ccq, struct rdma_cm_id *srv, struct ib_pd *spd,
		struct ib_cq *scq);
void cm_connect_and_get(struct kunit *test, struct side *cs,
			struct rdma_cm_id **cli, struct sockaddr_storage *d,
			int events);
int cm_rdma_write_read(struct rdma_cm_id *cli, struct ib_pd *cpd,
		       struct ib_cq *ccq, struct rdma_cm_id *srv,
		       struct ib_pd *spd, struct ib_cq *scq);
int cm_addr6_linklocal(struct sockaddr_storage *ss, u16 port);

/* ib_core's exclusive netns mode, as xcma asks it (a fake in the ops layer) */
void cm_netns_fake(struct kunit *test);
void cm_netns_hide(const char *ibdev);

/* device hot-removal of rxe0, and what must hold once it is back */
#define CM_RXE_DELETE "/usr/sbin/rdma link delete rxe0"
#define CM_RXE_ADD "/usr/sbin/rdma link add rxe0 type rxe netdev eth0"
int cm_rxe_delete(struct kunit *test);
int cm_rxe_add(struct kunit *test);
int cm_module_refs_settle(int want);
void cm_expect_rxe0_idle(struct kunit *test);

#endif /* XCMA_KUNIT_CM_UTIL_H */
