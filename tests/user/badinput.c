// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * badinput: calls through librdmacm and rdma_ucm that the CM must refuse,
 * each followed by a call that shows the refused one changed nothing.
 * One line per call: "badinput: <case>: <what> -> <errno name or ok>".
 * The lines are the same whichever CM runs under rdma_ucm when both
 * follow the in-tree rules: user.sh compares xcma's run with the in-tree
 * CM's, line by line.
 *
 *   badinput ADDR          ADDR: this host's address on the RDMA netdev
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#define PROG "badinput"
#include "util.h"


static struct rdma_event_channel *ch;
static const char *self;

static const char *ename(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case EADDRINUSE: return "EADDRINUSE";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case ENODEV: return "ENODEV";
	case ENOSYS: return "ENOSYS";
	case ENOENT: return "ENOENT";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EBUSY: return "EBUSY";
	case EISCONN: return "EISCONN";
	case ENOTCONN: return "ENOTCONN";
	case ETIMEDOUT: return "ETIMEDOUT";
	default: return strerror(e);
	}
}

/* one call's outcome: "ok" or the errno it failed with */
static void show(const char *tc, const char *what, int rc)
{
	printf("badinput: %s: %s -> %s\n", tc, what, rc ? ename(errno) : "ok");
	fflush(stdout);
}

static struct sockaddr *ip4(const char *a, int port)
{
	static struct sockaddr_in s[4];
	static int n;
	struct sockaddr_in *p = &s[n++ % 4];

	memset(p, 0, sizeof(*p));
	p->sin_family = AF_INET;
	p->sin_port = htons(port);
	if (inet_pton(AF_INET, a, &p->sin_addr) != 1)
		die("bad address %s", a);
	return (struct sockaddr *)p;
}

static struct rdma_cm_id *new_id(enum rdma_port_space ps)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, ps))
		die("rdma_create_id: %s", strerror(errno));
	return id;
}

/* the next event, by name, or "none" if none comes within 5 s */
static void next_event(const char *tc)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, 5000) != 1) {
		printf("badinput: %s: event -> none\n", tc);
		return;
	}
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event: %s", strerror(errno));
	printf("badinput: %s: event -> %s status %d\n", tc,
	       rdma_event_str(ev->event), ev->status);
	rdma_ack_cm_event(ev);
}

static void destroy(struct rdma_cm_id *id)
{
	if (rdma_destroy_id(id))
		die("rdma_destroy_id: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	struct rdma_cm_id *a, *b;
	int one = 1;
	uint8_t t = 14;

	if (argc != 2)
		die("usage: badinput ADDR");
	self = argv[1];
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel: %s", strerror(errno));

	a = new_id(RDMA_PS_TCP);
	show("bind-twice", "bind", rdma_bind_addr(a, ip4(self, 7480)));
	show("bind-twice", "bind again", rdma_bind_addr(a, ip4(self, 7481)));
	show("bind-twice", "listen", rdma_listen(a, 4));
	show("listen-twice", "listen again", rdma_listen(a, 8));
	show("listen-twice", "reuseaddr on a listener",
	     rdma_set_option(a, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)));
	show("accept-listener", "accept", rdma_accept(a, &cp));
	show("reject-listener", "reject", rdma_reject(a, NULL, 0));
	show("disconnect-listener", "disconnect", rdma_disconnect(a));

	b = new_id(RDMA_PS_TCP);
	show("bind-in-use", "bind the listener's port", rdma_bind_addr(b, ip4(self, 7480)));
	show("bind-in-use", "bind another port", rdma_bind_addr(b, ip4(self, 7482)));
	show("bound", "resolve_route", rdma_resolve_route(b, 1000));
	show("bound", "connect", rdma_connect(b, &cp));
	show("bound", "accept", rdma_accept(b, &cp));
	show("bound", "reject", rdma_reject(b, NULL, 0));
	show("bound", "disconnect", rdma_disconnect(b));
	show("bound", "afonly", rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &one, sizeof(one)));
	show("bound", "reuseaddr", rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)));
	show("bound", "join a TCP id", rdma_join_multicast(b, ip4("239.1.2.5", 0), NULL));
	show("bound", "tos (allowed)", rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &t, sizeof(t)));
	show("bound", "listen (still bound)", rdma_listen(b, 4));
	destroy(b);

	b = new_id(RDMA_PS_TCP);
	show("not-local", "bind 10.99.0.77", rdma_bind_addr(b, ip4("10.99.0.77", 0)));
	show("not-local", "bind self", rdma_bind_addr(b, ip4(self, 0)));
	destroy(b);

	b = new_id(RDMA_PS_TCP);
	/* librdmacm itself dereferences an idle id's device in
	 * rdma_resolve_route, rdma_disconnect and rdma_accept: not sent */
	show("idle", "listen twice after an implicit bind", rdma_listen(b, 4) || rdma_listen(b, 4));
	destroy(b);

	b = new_id(RDMA_PS_TCP);
	show("resolving", "resolve_addr", rdma_resolve_addr(b, NULL, ip4(self, 7480), 2000));
	show("resolving", "resolve_addr again", rdma_resolve_addr(b, NULL, ip4(self, 7480), 2000));
	next_event("resolving");
	show("resolved", "resolve_addr again", rdma_resolve_addr(b, NULL, ip4(self, 7480), 2000));
	show("resolved", "connect before the route", rdma_connect(b, &cp));
	show("resolved", "listen", rdma_listen(b, 4));
	show("resolved", "bind", rdma_bind_addr(b, ip4(self, 7483)));
	show("resolved", "reuseaddr", rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one, sizeof(one)));
	show("resolved", "resolve_route", rdma_resolve_route(b, 1000));
	next_event("resolved");
	show("route", "resolve_route again", rdma_resolve_route(b, 1000));
	show("route", "accept", rdma_accept(b, &cp));
	destroy(b);

	b = new_id(RDMA_PS_UDP);
	show("udp", "ack_timeout on a UD id",
	     rdma_set_option(b, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t)));
	show("udp", "join unbound", rdma_join_multicast(b, ip4("239.1.2.5", 0), NULL));
	show("udp", "bind", rdma_bind_addr(b, ip4(self, 7484)));
	show("udp", "leave a group never joined", rdma_leave_multicast(b, ip4("239.1.2.6", 0)));
	show("udp", "join", rdma_join_multicast(b, ip4("239.1.2.5", 0), NULL));
	next_event("udp");
	show("udp", "join the same group again", rdma_join_multicast(b, ip4("239.1.2.5", 0), NULL));
	show("udp", "leave", rdma_leave_multicast(b, ip4("239.1.2.5", 0)));
	show("udp", "leave again", rdma_leave_multicast(b, ip4("239.1.2.5", 0)));
	destroy(b);

	destroy(a);
	rdma_destroy_event_channel(ch);
	printf("badinput: done\n");
	return 0;
}
