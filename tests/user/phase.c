// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * phase: drive a librdmacm id into one phase of its life, say so on
 * stdout ("phase: <name>"), and wait there to be killed. user.sh kills
 * the process with SIGKILL in that phase and counts what the kernel has
 * left behind once it has exited: cm_ids and QPs (rdma res) and ib_cm ids
 * (ib_cm's own check when it is unloaded).
 *
 *   phase resolve ADDR      rdma_resolve_addr to an address nobody
 *                           answers: killed while the address resolves
 *   phase connect ADDR      REQ sent to a server that holds it: killed
 *                           with the connection request outstanding
 *   phase established ADDR  connected to an accepting server
 *   phase join ADDR         UD id joined to a multicast group
 *   phase listen            listening; never reads an event, so the
 *                           connection requests queue up unread
 *   phase hold              listening; reads each CONNECT_REQUEST and
 *                           neither accepts nor rejects it
 *   phase accept            listening; accepts every request
 *
 * Every server prints "phase: <name>" once it listens, then one line per
 * request it sees ("phase: request N").
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

#define PROG "phase"
#include "util.h"

#define PORT 7475


static void say(const char *what)
{
	printf("phase: %s\n", what);
	fflush(stdout);
}

static void wait_to_be_killed(void)
{
	for (;;)
		pause();
}

static void addr_of(const char *s, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(PORT);
	if (s && inet_pton(AF_INET, s, &sin->sin_addr) != 1)
		die("bad address %s", s);
}

static void create_qp(struct rdma_cm_id *id, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr attr = {
		.qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	if (rdma_create_qp(id, NULL, &attr))
		die("rdma_create_qp: %s", strerror(errno));
}

/* a client id with its address and route resolved to ADDR */
static struct rdma_cm_id *resolved(struct rdma_event_channel *ch,
				   const char *addr, enum rdma_port_space ps)
{
	struct rdma_cm_id *id;
	struct sockaddr_in dst;

	addr_of(addr, &dst);
	if (rdma_create_id(ch, &id, NULL, ps))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000))
		die("rdma_resolve_addr: %s", strerror(errno));
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route: %s", strerror(errno));
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	return id;
}

static void client(struct rdma_event_channel *ch, const char *phase,
		   const char *addr)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1, .retry_count = 7 };
	struct rdma_cm_id *id;
	struct sockaddr_in dst;

	if (!strcmp(phase, "resolve")) {
		addr_of(addr, &dst);
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
			die("rdma_create_id: %s", strerror(errno));
		/* a minute: longer than the process lives */
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 60000))
			die("rdma_resolve_addr: %s", strerror(errno));
		say("resolve");
		wait_to_be_killed();
	}
	if (!strcmp(phase, "join")) {
		struct sockaddr_in src, grp;

		addr_of(addr, &src);
		addr_of("239.1.2.4", &grp);
		if (rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
			die("rdma_create_id: %s", strerror(errno));
		if (rdma_bind_addr(id, (struct sockaddr *)&src))
			die("rdma_bind_addr: %s", strerror(errno));
		create_qp(id, IBV_QPT_UD);
		if (rdma_join_multicast(id, (struct sockaddr *)&grp, NULL))
			die("rdma_join_multicast: %s", strerror(errno));
		rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_MULTICAST_JOIN));
		say("join");
		wait_to_be_killed();
	}
	id = resolved(ch, addr, RDMA_PS_TCP);
	create_qp(id, IBV_QPT_RC);
	if (rdma_connect(id, &param))
		die("rdma_connect: %s", strerror(errno));
	if (!strcmp(phase, "connect")) {
		say("connect");
		wait_to_be_killed();
	}
	if (strcmp(phase, "established"))
		die("unknown phase %s", phase);
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ESTABLISHED));
	say("established");
	wait_to_be_killed();
}

static void server(struct rdma_event_channel *ch, const char *phase)
{
	struct rdma_conn_param param = { .responder_resources = 1,
					 .initiator_depth = 1 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct sockaddr_in any;
	char line[32];
	int n = 0;

	addr_of(NULL, &any);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(id, (struct sockaddr *)&any))
		die("rdma_bind_addr: %s", strerror(errno));
	if (rdma_listen(id, 16))
		die("rdma_listen: %s", strerror(errno));
	say(phase);
	if (!strcmp(phase, "listen"))
		wait_to_be_killed();
	for (;;) {
		if (rdma_get_cm_event(ch, &ev))
			die("rdma_get_cm_event: %s", strerror(errno));
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			snprintf(line, sizeof(line), "request %d", ++n);
			if (!strcmp(phase, "accept")) {
				create_qp(ev->id, IBV_QPT_RC);
				if (rdma_accept(ev->id, &param))
					die("rdma_accept: %s", strerror(errno));
			}
			say(line);
		}
		/* the ids of requests held stay unacknowledged on purpose */
		if (strcmp(phase, "hold"))
			rdma_ack_cm_event(ev);
	}
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	const char *phase = argc > 1 ? argv[1] : "";

	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel: %s", strerror(errno));
	if (!strcmp(phase, "listen") || !strcmp(phase, "hold") ||
	    !strcmp(phase, "accept"))
		server(ch, phase);
	else if (argc == 3)
		client(ch, phase, argv[2]);
	else
		die("usage: phase resolve|connect|established|join ADDR | listen|hold|accept");
	return 0;
}
