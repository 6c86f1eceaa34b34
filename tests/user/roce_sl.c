// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * roce_sl: the service level and traffic class of a RoCE route through
 * librdmacm, for the port's default TOS and for each TOS given. An RC id
 * resolves LOCAL to itself and then its route, with
 * rdma_set_option(RDMA_OPTION_ID_TOS) before the route for each -t; one
 * line per TOS, compared by check.sh between xcma and the in-tree CM on
 * a VLAN with an egress QoS map (issue 26, bug 5: the SL of a VLAN).
 *
 *   roce_sl -b LOCAL [-t TOS]...
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define PROG "roce_sl"
#include "util.h"

#define MAXT 8

/* the route of LOCAL to itself with TOS @tos (-1: the default); prints it */
static void one(struct rdma_event_channel *ch, const char *local, int tos)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct rdma_cm_event *ev = NULL;
	struct rdma_cm_id *id;
	struct ibv_sa_path_rec *p;
	uint8_t t = (uint8_t)tos;
	int i;

	if (inet_pton(AF_INET, local, &a.sin_addr) != 1)
		die("bad IPv4 address %s", local);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	/* the VLAN's GIDs may still be coming: retry for 10 s */
	for (i = 0; i < 50; i++) {
		if (rdma_resolve_addr(id, (struct sockaddr *)&a, (struct sockaddr *)&a, 2000))
			die("rdma_resolve_addr: %s", strerror(errno));
		if (rdma_get_cm_event(ch, &ev))
			die("rdma_get_cm_event: %s", strerror(errno));
		if (ev->event == RDMA_CM_EVENT_ADDR_RESOLVED)
			break;
		rdma_ack_cm_event(ev);
		ev = NULL;
		usleep(200000);
	}
	if (!ev)
		die("%s does not resolve", local);
	rdma_ack_cm_event(ev);
	if (tos >= 0 && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &t, sizeof(t)))
		die("rdma_set_option(TOS %d): %s", tos, strerror(errno));
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route: %s", strerror(errno));
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	if (id->route.num_paths < 1 || !id->route.path_rec)
		die("no path record");
	p = id->route.path_rec;
	if (tos < 0)
		printf("roce_sl: tos default sl %u traffic_class %u\n", p->sl, p->traffic_class);
	else
		printf("roce_sl: tos %d sl %u traffic_class %u\n", tos, p->sl, p->traffic_class);
	rdma_destroy_id(id);
}

int main(int argc, char **argv)
{
	const char *local = NULL;
	int tos[MAXT], n = 0, opt;
	struct rdma_event_channel *ch;

	while ((opt = getopt(argc, argv, "b:t:")) != -1) {
		switch (opt) {
		case 'b': local = optarg; break;
		case 't':
			if (n == MAXT)
				die("at most %d -t", MAXT);
			tos[n++] = (int)strtol(optarg, NULL, 0) & 0xff;
			break;
		default: die("usage: roce_sl -b LOCAL [-t TOS]...");
		}
	}
	if (!local)
		die("usage: roce_sl -b LOCAL [-t TOS]...");
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel: %s", strerror(errno));
	one(ch, local, -1);
	for (int i = 0; i < n; i++)
		one(ch, local, tos[i]);
	rdma_destroy_event_channel(ch);
	return 0;
}
