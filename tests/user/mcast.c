// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mcast: a multicast join, send, receive and leave through librdmacm
 * (RDMA_PS_UDP). The receiver joins GROUP as a full member (librdmacm
 * attaches its UD QP to the group on MULTICAST_JOIN), the sender joins as
 * a send-only full member and sends COUNT datagrams of a pattern to the
 * group's address handle; the receiver checks each, in order, then both
 * leave. Both check what MULTICAST_JOIN carries: the group QPN 0xffffff,
 * a QKEY, and a GRH whose destination GID is the group's.
 *
 *   mcast -r -b LOCAL [-m GROUP] [-n COUNT]    receiver
 *   mcast -b LOCAL [-m GROUP] [-n COUNT]       sender
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define PROG "mcast"
#include "util.h"

#define MSG 128
#define GRH 40
#define MAXN 64


static void addr4(struct sockaddr_in *sin, const char *s)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, s, &sin->sin_addr) != 1)
		die("bad IPv4 address %s", s);
}

int main(int argc, char **argv)
{
	const char *local = NULL, *group = "239.99.0.1";
	int opt, recv = 0, count = 20;
	struct sockaddr_in src, grp;
	struct rdma_event_channel *ch;
	struct rdma_cm_join_mc_attr_ex jattr = {};
	struct ibv_qp_init_attr qattr = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = MAXN,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct rdma_cm_event *ev;
	struct rdma_ud_param ud;
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char *buf;

	while ((opt = getopt(argc, argv, "rb:m:n:")) != -1) {
		switch (opt) {
		case 'r': recv = 1; break;
		case 'b': local = optarg; break;
		case 'm': group = optarg; break;
		case 'n': count = atoi(optarg); break;
		default: die("usage: mcast [-r] -b LOCAL [-m GROUP] [-n COUNT]");
		}
	}
	if (!local || count < 1 || count > MAXN)
		die("usage: mcast [-r] -b LOCAL [-m GROUP] [-n COUNT<=%d]", MAXN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	addr4(&src, local);
	addr4(&grp, group);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&grp, 2000))
		die("rdma_resolve_addr: %s", strerror(errno));
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_create_qp(id, NULL, &qattr))
		die("rdma_create_qp: %s", strerror(errno));
	buf = calloc(MAXN + 1, GRH + MSG);
	mr = buf ? rdma_reg_msgs(id, buf, (MAXN + 1) * (GRH + MSG)) : NULL;
	if (!mr)
		die("rdma_reg_msgs: %s", strerror(errno));
	if (recv)
		for (int i = 0; i < count; i++)
			if (rdma_post_recv(id, (void *)(long)i, buf + i * (GRH + MSG),
					   GRH + MSG, mr))
				die("rdma_post_recv: %s", strerror(errno));

	jattr.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS | RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS;
	jattr.addr = (struct sockaddr *)&grp;
	jattr.join_flags = recv ? RDMA_MC_JOIN_FLAG_FULLMEMBER :
				  RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
	if (rdma_join_multicast_ex(id, &jattr, NULL))
		die("rdma_join_multicast_ex: %s", strerror(errno));
	ev = expect(ch, RDMA_CM_EVENT_MULTICAST_JOIN);
	ud = ev->param.ud;
	rdma_ack_cm_event(ev);
	if (ud.qp_num != 0xffffff)
		die("MULTICAST_JOIN: qpn %#x, expected 0xffffff", ud.qp_num);
	if (!ud.ah_attr.is_global)
		die("MULTICAST_JOIN: no GRH in the address handle attributes");
	/* RoCE: the group's GID is the IPv4-mapped group address */
	if (memcmp(&ud.ah_attr.grh.dgid.raw[12], &grp.sin_addr, 4))
		die("MULTICAST_JOIN: the destination GID is not the group's");
	printf("mcast %s: joined %s, qkey %#x\n", recv ? "receiver" : "sender",
	       group, ud.qkey);

	if (recv) {
		for (int i = 0; i < count; i++) {
			char *m;

			if (rdma_get_recv_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
				die("receive %d: %s", i, ibv_wc_status_str(wc.status));
			if (wc.byte_len != GRH + MSG)
				die("receive %d: %u bytes", i, wc.byte_len);
			m = buf + wc.wr_id * (GRH + MSG) + GRH;
			for (int j = 0; j < MSG; j++)
				if (m[j] != (char)(i * 7 + j))
					die("datagram %d byte %d is %d, expected %d",
					    i, j, m[j], (char)(i * 7 + j));
		}
		printf("mcast receiver: %d datagrams received and checked\n", count);
	} else {
		struct ibv_ah *ah = ibv_create_ah(id->pd, &ud.ah_attr);
		char *m = buf + MAXN * (GRH + MSG);

		if (!ah)
			die("ibv_create_ah: %s", strerror(errno));
		for (int i = 0; i < count; i++) {
			struct ibv_sge sge = { (uintptr_t)m, MSG, mr->lkey };
			struct ibv_send_wr wr = {}, *bad;

			for (int j = 0; j < MSG; j++)
				m[j] = (char)(i * 7 + j);
			wr.sg_list = &sge;
			wr.num_sge = 1;
			wr.opcode = IBV_WR_SEND;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = ud.qp_num;
			wr.wr.ud.remote_qkey = ud.qkey;
			if (ibv_post_send(id->qp, &wr, &bad))
				die("ibv_post_send: %s", strerror(errno));
			if (rdma_get_send_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
				die("send %d: %s", i, ibv_wc_status_str(wc.status));
			/* the group's receivers keep up: nothing is dropped */
			usleep(20000);
		}
		printf("mcast sender: %d datagrams sent\n", count);
		ibv_destroy_ah(ah);
	}
	if (rdma_leave_multicast(id, (struct sockaddr *)&grp))
		die("rdma_leave_multicast: %s", strerror(errno));
	/* a second leave of the same group: the in-tree errno */
	if (!rdma_leave_multicast(id, (struct sockaddr *)&grp) || errno != EADDRNOTAVAIL)
		die("second leave: %s, expected EADDRNOTAVAIL", strerror(errno));
	printf("mcast %s: left %s\n", recv ? "receiver" : "sender", group);
	rdma_destroy_qp(id);
	rdma_dereg_mr(mr);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
	free(buf);
	return 0;
}
