// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * storm: many RC connects and disconnects through librdmacm, for a wire
 * that loses, delays, duplicates and reorders frames (scripts/pair-guest.sh
 * under netem). It tests the CM alone: the connections carry no QP (the
 * REQ and REP name a QP number of their own), so every outcome is the
 * CM's.
 *
 *   storm -s ADDR PORT          serve until SIGTERM, then until every
 *                               accepted id has ended (STORM_IDLE_SECS
 *                               at most)
 *   storm -c ADDR PORT N P      N connects to ADDR:PORT, P at a time;
 *                               each one, once ESTABLISHED, disconnected
 *
 * Each id gets exactly one end, recorded as "EVENT status": the client's
 * connects end in CONNECT_RESPONSE (the REP of an id without a QP, after
 * which rdma_establish() sends the RTU) followed by DISCONNECTED, or in one of
 * ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, REJECTED, CONNECT_ERROR; the
 * server's accepted ids in DISCONNECTED, or in an error. Both print one
 * line per (event, status) seen and a summary. The exit status is 0 when
 * every id ended and no event came that its state does not allow,
 * whatever the ends were: the caller judges the distribution. The client
 * gives up on its ids when no event has come for STORM_IDLE_SECS seconds
 * (default 120: ib_cm gives up on a MAD after 16 sends of about 5 s each
 * on RoCE), or after 300 s in all.
 */
#define PROG "storm"
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <netdb.h>
#include "util.h"

#define MAX_SEEN 32

struct seen {
	enum rdma_cm_event_type event;
	int status;
	int n;
};

static struct seen seen[MAX_SEEN];
static int nseen;
static const char *side;
static int bad;

static void record(enum rdma_cm_event_type event, int status)
{
	int i;

	for (i = 0; i < nseen; i++)
		if (seen[i].event == event && seen[i].status == status)
			break;
	if (i == nseen) {
		if (nseen == MAX_SEEN)
			die("too many kinds of event");
		seen[nseen].event = event;
		seen[nseen].status = status;
		nseen++;
	}
	seen[i].n++;
}

static void print_seen(void)
{
	int i;

	for (i = 0; i < nseen; i++)
		printf("storm: %s: %s %d: %d\n", side,
		       rdma_event_str(seen[i].event), seen[i].status, seen[i].n);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* the next event, or NULL when none came in @ms */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&p, 1, ms) <= 0)
		return NULL;
	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event: %s", strerror(errno));
	return ev;
}

static void unexpected(struct rdma_cm_event *ev, const char *state)
{
	printf("storm: %s: unexpected %s (status %d) in %s\n", side,
	       rdma_event_str(ev->event), ev->status, state);
	bad = 1;
}

static void resolve(const char *addr, const char *port, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;

	if (getaddrinfo(addr, port, &hints, &ai))
		die("bad address %s port %s", addr, port);
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
}

/* ---- client ---- */

enum cstate { C_IDLE, C_ADDR, C_ROUTE, C_CONNECT, C_DISCONNECT };

struct conn {
	struct rdma_cm_id *id;
	enum cstate state;
	double t0;
};

static const char *cstate_name[] = { "idle", "resolving the address",
	"resolving the route", "connecting", "disconnecting" };

static struct sockaddr_storage dst;
static int qpn = 0x100;

static int start(struct rdma_event_channel *ch, struct conn *c)
{
	if (rdma_create_id(ch, &c->id, c, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	c->state = C_ADDR;
	c->t0 = now_ms();
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&dst, 5000)) {
		printf("storm: client: rdma_resolve_addr: %s\n", strerror(errno));
		bad = 1;
		rdma_destroy_id(c->id);
		c->state = C_IDLE;
		return -1;
	}
	return 0;
}

/* an end of @c: destroyed, the slot free again */
static void end(struct conn *c)
{
	rdma_destroy_id(c->id);
	c->id = NULL;
	c->state = C_IDLE;
}

static int client(const char *addr, const char *port, int n, int par)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct conn *conns = calloc(par, sizeof(*conns));
	int started = 0, ended = 0, established = 0, live = 0, i;
	double deadline = now_ms() + 300e3, est_sum = 0, est_max = 0, last;
	const char *idle_env = getenv("STORM_IDLE_SECS");
	double idle = (idle_env ? atoi(idle_env) : 120) * 1e3;

	side = "client";
	if (!ch || !conns)
		die("no event channel");
	resolve(addr, port, &dst);
	last = now_ms();
	while (ended < n) {
		struct rdma_cm_event *ev;
		struct conn *c;
		enum rdma_cm_event_type type;
		int status, done = 0;

		for (i = 0; i < par && started < n; i++) {
			if (conns[i].state != C_IDLE)
				continue;
			started++;
			if (start(ch, &conns[i]))
				ended++;
			else
				live++;
		}
		if (now_ms() > deadline || now_ms() - last > idle)
			break;
		ev = next_event(ch, 1000);
		if (!ev)
			continue;
		last = now_ms();
		c = ev->id->context;
		type = ev->event;
		status = ev->status;
		switch (type) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (c->state != C_ADDR) {
				unexpected(ev, cstate_name[c->state]);
				break;
			}
			c->state = C_ROUTE;
			if (rdma_resolve_route(c->id, 5000)) {
				printf("storm: client: rdma_resolve_route: %s\n", strerror(errno));
				bad = 1;
				done = 1;
			}
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED: {
			struct rdma_conn_param p = {
				.qp_num = qpn++ & 0xffffff,
				.retry_count = 7,
				.rnr_retry_count = 7,
			};

			if (c->state != C_ROUTE) {
				unexpected(ev, cstate_name[c->state]);
				break;
			}
			c->state = C_CONNECT;
			if (rdma_connect(c->id, &p)) {
				printf("storm: client: rdma_connect: %s\n", strerror(errno));
				bad = 1;
				done = 1;
			}
			break;
		}
		case RDMA_CM_EVENT_CONNECT_RESPONSE: {
			/*
			 * The REP of an id without a QP: rdma_establish() sends
			 * the RTU, and the id is connected (no ESTABLISHED
			 * follows on this side).
			 */
			double ms = now_ms() - c->t0;

			if (c->state != C_CONNECT) {
				unexpected(ev, cstate_name[c->state]);
				break;
			}
			record(type, status);
			if (rdma_establish(c->id)) {
				printf("storm: client: rdma_establish: %s\n", strerror(errno));
				bad = 1;
			}
			established++;
			est_sum += ms;
			if (ms > est_max)
				est_max = ms;
			c->state = C_DISCONNECT;
			if (rdma_disconnect(c->id)) {
				printf("storm: client: rdma_disconnect: %s\n", strerror(errno));
				bad = 1;
			}
			break;
		}
		case RDMA_CM_EVENT_DISCONNECTED:
			if (c->state != C_DISCONNECT)
				unexpected(ev, cstate_name[c->state]);
			record(type, status);
			done = 1;
			break;
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
			if (c->state == C_DISCONNECT || c->state == C_IDLE)
				unexpected(ev, cstate_name[c->state]);
			record(type, status);
			done = 1;
			break;
		default:
			unexpected(ev, cstate_name[c->state]);
			break;
		}
		rdma_ack_cm_event(ev);
		if (done) {
			end(c);
			ended++;
			live--;
		}
	}
	print_seen();
	for (i = 0; i < par; i++) {
		if (conns[i].state == C_IDLE)
			continue;
		printf("storm: client: an id without an end (%s) after %.0f s\n",
		       cstate_name[conns[i].state], (now_ms() - last) / 1e3);
		bad = 1;
		end(&conns[i]);
	}
	printf("storm: client: connects %d ended %d established %d (%d%%) to-established mean %.0f ms max %.0f ms\n",
	       n, ended, established, n ? established * 100 / n : 0,
	       established ? est_sum / established : 0, est_max);
	rdma_destroy_event_channel(ch);
	free(conns);
	return bad || ended != n || live;
}

/* ---- server ---- */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int server(const char *addr, const char *port)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lis;
	struct sockaddr_storage ss;
	int live = 0, requests = 0;
	double grace = 0;
	const char *idle_env = getenv("STORM_IDLE_SECS");
	double idle = (idle_env ? atoi(idle_env) : 120) * 1e3;

	side = "server";
	if (!ch)
		die("no event channel");
	signal(SIGTERM, on_term);
	resolve(addr, port, &ss);
	if (rdma_create_id(ch, &lis, NULL, RDMA_PS_TCP))
		die("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(lis, (struct sockaddr *)&ss) || rdma_listen(lis, 128))
		die("listen on %s:%s: %s", addr, port, strerror(errno));
	printf("storm: server: listening on %s:%s\n", addr, port);
	fflush(stdout);
	for (;;) {
		struct rdma_cm_event *ev;
		struct rdma_cm_id *id;
		int done = 0;

		if (stop && !grace)
			grace = now_ms() + idle;
		if (stop && (!live || now_ms() > grace))
			break;
		ev = next_event(ch, 200);
		if (!ev)
			continue;
		id = ev->id;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST: {
			struct rdma_conn_param p = {
				.qp_num = qpn++ & 0xffffff,
				.retry_count = 7,
				.rnr_retry_count = 7,
			};

			requests++;
			live++;
			if (rdma_accept(id, &p)) {
				printf("storm: server: rdma_accept: %s\n", strerror(errno));
				done = 1;
			}
			break;
		}
		case RDMA_CM_EVENT_ESTABLISHED:
			record(ev->event, ev->status);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
			record(ev->event, ev->status);
			done = 1;
			break;
		default:
			unexpected(ev, id == lis ? "listening" : "accepted");
			break;
		}
		rdma_ack_cm_event(ev);
		if (done) {
			rdma_destroy_id(id);
			live--;
		}
	}
	print_seen();
	printf("storm: server: requests %d, ids without an end %d\n", requests, live);
	rdma_destroy_id(lis);
	rdma_destroy_event_channel(ch);
	return bad || live;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "-s"))
		return server(argv[2], argv[3]);
	if (argc == 6 && !strcmp(argv[1], "-c"))
		return client(argv[2], argv[3], atoi(argv[4]), atoi(argv[5]));
	die("usage: storm -s ADDR PORT | storm -c ADDR PORT N P");
}
