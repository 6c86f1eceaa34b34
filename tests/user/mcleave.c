// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mcleave: joins and leaves of one multicast group in a loop through
 * librdmacm, each leave racing its join's MULTICAST_JOIN (issue 26, bug
 * 1). rdma_ucm frees its struct ucma_multicast, the group's context, as
 * soon as rdma_leave_multicast() returns in the kernel, and its event
 * handler reads it: a leave that returns while the join's event is being
 * delivered is a use-after-free, which the debug kernel's KASAN reports.
 *
 * The main thread joins, waits a pseudo-random 0 to DELAY-1 us (DELAY a
 * power of two, 512 unless given; seeded, the seed printed), and leaves; a second thread reads and acknowledges the
 * events (librdmacm's leave waits until the events it was told of are
 * acknowledged). Every join and every leave must succeed, and every
 * event must be a MULTICAST_JOIN or MULTICAST_ERROR.
 *
 *   mcleave -b LOCAL [-m GROUP] [-n ROUNDS] [-s SEED] [-d DELAY]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define PROG "mcleave"
#include "util.h"

static int joins_seen, errors_seen;

static void *events(void *arg)
{
	struct rdma_event_channel *ch = arg;
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(ch, &ev)) {
		if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN)
			__atomic_add_fetch(&joins_seen, 1, __ATOMIC_RELAXED);
		else if (ev->event == RDMA_CM_EVENT_MULTICAST_ERROR)
			__atomic_add_fetch(&errors_seen, 1, __ATOMIC_RELAXED);
		else
			die("event %s (status %d) in the loop",
			    rdma_event_str(ev->event), ev->status);
		rdma_ack_cm_event(ev);
	}
	return NULL;
}

static void addr4(struct sockaddr_in *sin, const char *s)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, s, &sin->sin_addr) != 1)
		die("bad IPv4 address %s", s);
}

int main(int argc, char **argv)
{
	const char *local = NULL, *group = "239.99.0.2";
	unsigned int seed = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	int opt, rounds = 2000, delay = 512;
	struct sockaddr_in src, grp;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	pthread_t t;

	while ((opt = getopt(argc, argv, "b:m:n:s:d:")) != -1) {
		switch (opt) {
		case 'b': local = optarg; break;
		case 'm': group = optarg; break;
		case 'n': rounds = atoi(optarg); break;
		case 's': seed = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'd': delay = atoi(optarg); break;
		default: die("usage: mcleave -b LOCAL [-m GROUP] [-n ROUNDS] [-s SEED] [-d DELAY]");
		}
	}
	if (!local || rounds < 1 || delay < 1 || (delay & (delay - 1)))
		die("usage: mcleave -b LOCAL [-m GROUP] [-n ROUNDS] [-s SEED] [-d DELAY]");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("mcleave: seed %u, %d rounds, delay below %d us\n", seed, rounds, delay);
	srand(seed);
	addr4(&src, local);
	addr4(&grp, group);
	ch = rdma_create_event_channel();
	if (!ch || rdma_create_id(ch, &id, NULL, RDMA_PS_UDP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_resolve_addr(id, (struct sockaddr *)&src, (struct sockaddr *)&grp, 2000))
		die("rdma_resolve_addr: %s", strerror(errno));
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (pthread_create(&t, NULL, events, ch))
		die("pthread_create");
	for (int i = 0; i < rounds; i++) {
		if (rdma_join_multicast(id, (struct sockaddr *)&grp, NULL))
			die("round %d: rdma_join_multicast: %s", i, strerror(errno));
		usleep(rand() & (delay - 1));
		if (rdma_leave_multicast(id, (struct sockaddr *)&grp))
			die("round %d: rdma_leave_multicast: %s", i, strerror(errno));
	}
	printf("mcleave: %d joins and leaves, %d MULTICAST_JOIN and %d MULTICAST_ERROR delivered\n",
	       rounds, __atomic_load_n(&joins_seen, __ATOMIC_RELAXED),
	       __atomic_load_n(&errors_seen, __ATOMIC_RELAXED));
	/* the event thread is blocked in a read: the process ends here */
	return 0;
}
