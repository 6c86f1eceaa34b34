/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * xcma_bench: the same work through xcma and through the in-tree rdma_cm,
 * loaded side by side, on one RDMA device. Each CM sits behind a struct
 * bench_cm (cm_intree.c, and cm_xcma.c: the same source compiled with
 * sbs.h force-included); floor.c drives the connection handshake on
 * ib_cm and the verbs with no CM at all.
 */
#ifndef XCMA_BENCH_H
#define XCMA_BENCH_H

#include <linux/ktime.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "../tests/kunit/interop/interop.h"

/* each CM behind one table of xcma_interop (cm_intree.c, cm_xcma.c) */
extern const struct interop_cm bench_intree;
extern const struct interop_cm bench_xcma;

/**
 * struct bench_res - the verbs resources every QP of the bench shares
 * @dev: the device (a reference is held)
 * @pd: protection domain
 * @cq: send and receive CQ of every QP; nothing is ever posted
 */
struct bench_res {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
};

/* bench.c: the QP attributes every side uses, CM or not */
void bench_qp_init_attr(struct bench_res *res, struct ib_qp_init_attr *attr);

/* add the time since @since to @phase[@i]; return now */
static inline u64 bench_phase(u64 *phase, unsigned int i, u64 since)
{
	u64 now = ktime_get_ns();

	phase[i] += now - since;
	return now;
}

/*
 * Moments of one connection (ktime_get_ns()), the same for the CMs and
 * the floor, for the connect figure's profile.
 */
enum bench_mark {
	MK_CONNECT,	/* the client sends the REQ: connect is called */
	MK_REQ_IN,	/* the server's callback for the REQ starts */
	MK_REQ_OUT,	/* it returns: QP made, moved to RTS, REP sent */
	MK_CLI_EST,	/* client: REP handled (QP at RTS, RTU sent) */
	MK_SRV_EST,	/* server: RTU received */
	MK_EST,		/* the client's thread sees both */
	MK_DISCONNECT,	/* it disconnects: QP to ERR, DREQ */
	MK_DREQ_IN,	/* the server's callback for the DREQ starts */
	MK_DREQ_OUT,	/* it returns: QP to ERR, DREP sent */
	MK_CLI_DISC,	/* client: DREP received */
	MK_DISC,	/* the client's thread sees both */
	MK_FREED,	/* QPs and ids (cm_ids) destroyed */
	BENCH_MARKS
};

/* floor.c: one connection on ib_cm and the verbs alone */
struct bench_floor;
struct bench_floor *bench_floor_create(struct bench_res *res,
				       const struct sockaddr *addr, u16 port);
int bench_floor_connect(struct bench_floor *f, u64 *phase, u64 *mark);
void bench_floor_destroy(struct bench_floor *f);

#endif /* XCMA_BENCH_H */
