// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ud: a UD exchange through librdmacm (RDMA_PS_UDP). The client resolves
 * the server's address and route and connects (a SIDR request); the
 * server accepts with its UD QP; the client's ESTABLISHED event carries
 * the server's QPN, QKEY and address handle attributes. The client then
 * sends COUNT datagrams of a pattern, the server checks each and echoes it
 * from an address handle made from the completion, and the client checks
 * the echo. Exit status 0 only if every step and every byte was right.
 *
 *   ud -s [-p PORT] [-n COUNT]            server (binds to any address)
 *   ud -c ADDR [-p PORT] [-n COUNT]       client
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define PROG "ud"
#include "util.h"

#define MSG 256
#define GRH 40
#define SLOTS 8

static int count = 20;
static const char *port = "7474";


static void fill(char *buf, int seq)
{
	for (int i = 0; i < MSG; i++)
		buf[i] = (char)(seq * 31 + i);
}

static void check(const char *buf, int seq, const char *who)
{
	for (int i = 0; i < MSG; i++)
		if (buf[i] != (char)(seq * 31 + i))
			die("%s: datagram %d byte %d is %d, expected %d", who, seq, i,
			    buf[i], (char)(seq * 31 + i));
}

struct ep {
	struct rdma_cm_id *id;
	char *buf;		/* SLOTS receive slots of GRH + MSG, one send slot */
	struct ibv_mr *mr;
};

static void setup_qp(struct ep *e)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = SLOTS, .max_recv_wr = SLOTS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};

	if (rdma_create_qp(e->id, NULL, &attr))
		die("rdma_create_qp: %s", strerror(errno));
	e->buf = calloc(SLOTS + 1, GRH + MSG);
	e->mr = rdma_reg_msgs(e->id, e->buf, (SLOTS + 1) * (GRH + MSG));
	if (!e->buf || !e->mr)
		die("rdma_reg_msgs: %s", strerror(errno));
	for (int i = 0; i < SLOTS; i++)
		if (rdma_post_recv(e->id, (void *)(long)i, e->buf + i * (GRH + MSG),
				   GRH + MSG, e->mr))
			die("rdma_post_recv: %s", strerror(errno));
}

/* the next datagram: its slot is reposted once the caller is done */
static char *recv_one(struct ep *e, struct ibv_wc *wc)
{
	int ret = rdma_get_recv_comp(e->id, wc);

	if (ret <= 0 || wc->status != IBV_WC_SUCCESS)
		die("receive: ret %d status %s", ret,
		    ret > 0 ? ibv_wc_status_str(wc->status) : strerror(errno));
	if (wc->byte_len != GRH + MSG)
		die("receive: %u bytes, expected %d", wc->byte_len, GRH + MSG);
	return e->buf + wc->wr_id * (GRH + MSG);
}

static void repost(struct ep *e, struct ibv_wc *wc)
{
	if (rdma_post_recv(e->id, (void *)(long)wc->wr_id,
			   e->buf + wc->wr_id * (GRH + MSG), GRH + MSG, e->mr))
		die("rdma_post_recv: %s", strerror(errno));
}

static void send_one(struct ep *e, const char *data, struct ibv_ah *ah,
		     uint32_t qpn, uint32_t qkey)
{
	char *slot = e->buf + SLOTS * (GRH + MSG);
	struct ibv_send_wr wr = {}, *bad;
	struct ibv_sge sge = { (uintptr_t)slot, MSG, e->mr->lkey };
	struct ibv_wc wc;

	memcpy(slot, data, MSG);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	if (ibv_post_send(e->id->qp, &wr, &bad))
		die("ibv_post_send: %s", strerror(errno));
	if (rdma_get_send_comp(e->id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
		die("send completion: %s", ibv_wc_status_str(wc.status));
}

static int server(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param cp = {};
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE,
				       .ai_port_space = RDMA_PS_UDP }, *ai;
	struct rdma_cm_id *listen;
	struct rdma_cm_event *ev;
	struct ep e = {};
	struct ibv_wc wc;
	struct ibv_ah *ah;
	char *msg;

	if (!ch || rdma_create_id(ch, &listen, NULL, RDMA_PS_UDP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_getaddrinfo(NULL, port, &hints, &ai))
		die("rdma_getaddrinfo");
	if (rdma_bind_addr(listen, ai->ai_src_addr) || rdma_listen(listen, 1))
		die("bind/listen: %s", strerror(errno));
	ev = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	e.id = ev->id;
	rdma_ack_cm_event(ev);
	setup_qp(&e);
	cp.qp_num = e.id->qp->qp_num;
	if (rdma_accept(e.id, &cp))
		die("rdma_accept: %s", strerror(errno));
	printf("ud server: accepted, qpn %u\n", e.id->qp->qp_num);
	for (int i = 0; i < count; i++) {
		msg = recv_one(&e, &wc);
		check(msg + GRH, i, "server");
		ah = ibv_create_ah_from_wc(e.id->pd, &wc, (struct ibv_grh *)msg,
					   e.id->port_num);
		if (!ah)
			die("ibv_create_ah_from_wc: %s", strerror(errno));
		send_one(&e, msg + GRH, ah, wc.src_qp, RDMA_UDP_QKEY);
		ibv_destroy_ah(ah);
		repost(&e, &wc);
	}
	printf("ud server: %d datagrams checked and echoed\n", count);
	rdma_destroy_qp(e.id);
	rdma_dereg_mr(e.mr);
	rdma_destroy_id(e.id);
	rdma_destroy_id(listen);
	rdma_freeaddrinfo(ai);
	rdma_destroy_event_channel(ch);
	free(e.buf);
	return 0;
}

static int client(const char *addr)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_UDP }, *ai;
	struct rdma_conn_param cp = {};
	struct rdma_cm_event *ev;
	struct rdma_ud_param ud;
	struct ep e = {};
	struct ibv_wc wc;
	struct ibv_ah *ah;
	char data[MSG], *msg;

	if (!ch || rdma_create_id(ch, &e.id, NULL, RDMA_PS_UDP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_getaddrinfo(addr, port, &hints, &ai))
		die("rdma_getaddrinfo %s", addr);
	if (rdma_resolve_addr(e.id, NULL, ai->ai_dst_addr, 2000))
		die("rdma_resolve_addr: %s", strerror(errno));
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(e.id, 2000))
		die("rdma_resolve_route: %s", strerror(errno));
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	setup_qp(&e);
	cp.qp_num = e.id->qp->qp_num;
	if (rdma_connect(e.id, &cp))
		die("rdma_connect: %s", strerror(errno));
	ev = expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	ud = ev->param.ud;
	rdma_ack_cm_event(ev);
	if (ud.qkey != RDMA_UDP_QKEY)
		die("ESTABLISHED: qkey %#x, expected %#x", ud.qkey, RDMA_UDP_QKEY);
	if (!ud.qp_num)
		die("ESTABLISHED: no remote QPN");
	printf("ud client: established, remote qpn %u qkey %#x\n", ud.qp_num, ud.qkey);
	ah = ibv_create_ah(e.id->pd, &ud.ah_attr);
	if (!ah)
		die("ibv_create_ah: %s", strerror(errno));
	for (int i = 0; i < count; i++) {
		fill(data, i);
		send_one(&e, data, ah, ud.qp_num, ud.qkey);
		msg = recv_one(&e, &wc);
		if (wc.src_qp != ud.qp_num)
			die("echo from qpn %u, expected %u", wc.src_qp, ud.qp_num);
		check(msg + GRH, i, "client");
		repost(&e, &wc);
	}
	printf("ud client: %d datagrams sent, echoed and checked\n", count);
	ibv_destroy_ah(ah);
	rdma_destroy_qp(e.id);
	rdma_dereg_mr(e.mr);
	rdma_destroy_id(e.id);
	rdma_freeaddrinfo(ai);
	rdma_destroy_event_channel(ch);
	free(e.buf);
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	int opt, srv = 0;

	while ((opt = getopt(argc, argv, "sc:p:n:")) != -1) {
		switch (opt) {
		case 's': srv = 1; break;
		case 'c': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'n': count = atoi(optarg); break;
		default: die("usage: ud -s | -c ADDR [-p PORT] [-n COUNT]");
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (srv == !!addr)
		die("usage: ud -s | -c ADDR [-p PORT] [-n COUNT]");
	return srv ? server() : client(addr);
}
