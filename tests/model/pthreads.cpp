// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The model's scenarios (scenarios.cpp, the same definitions) on real
 * threads, for ThreadSanitizer: a pthread platform for the library and a
 * second implementation of the scenarios' building blocks. Each scenario
 * runs many rounds; in each, every spawned thread is a pthread, started
 * in a random order behind a gate, and every platform step (lock, unlock,
 * get, put, callback entry and exit, cancel, release, free) may yield,
 * spin or sleep at random. The checks are the model's where real threads
 * allow them: at the step (G1-G4, G7, G8 on use, cancel and free; G5 on
 * touching a removed device and when a removal's wait returns) and at
 * the end of each round (G5, G8). No progress for kHangSecs is G6.
 *
 *   build/tsan-model/model [--only NAME] [--rounds N] | --list
 *   XCMA_TSAN_SEED=S     the seed of the random schedules (printed always)
 *   XCMA_TSAN_ROUNDS=N   rounds per scenario (default kRounds)
 *
 * One line per scenario: "tsan: NAME rounds=N seed=S violations=V". The
 * seed fixes each thread's random delays, not the interleaving itself:
 * replaying it reproduces the same pressure, not the same schedule.
 * Build with -DXCMA_PLANT_NOLOCK for the plant: the id lock (a spinlock
 * in the kernel) does nothing, TSan must report the race on the state.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "model.hpp"

namespace model
{

World W;

namespace
{

constexpr unsigned kRounds = 300;
constexpr int kSetup = 100; /* self() of the setup, as in the checker */
constexpr int kHangSecs = 60;

/* struct completion: complete() under the lock the waiter returns through */
struct Completion {
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	bool done = false;

	void complete()
	{
		pthread_mutex_lock(&m);
		done = true;
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&m);
	}
	void wait()
	{
		pthread_mutex_lock(&m);
		while (!done)
			pthread_cond_wait(&cv, &m);
		pthread_mutex_unlock(&m);
	}
};

/* what the kernel side keeps next to the library's structs */
struct PlatId {
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* spinlock */
	pthread_mutex_t handler = PTHREAD_MUTEX_INITIALIZER; /* mutex */
	std::atomic<int> handler_owner{ -1 };
	Completion unreferenced;
};

struct PlatDev {
	Completion released;
};

PlatId pid[kMaxIds];
PlatDev pdev[kMaxDevs];
pthread_mutex_t ctx_mutex = PTHREAD_MUTEX_INITIALIZER;
std::atomic<int> ctx_owner{ -1 };

struct Thread {
	const char *name;
	void (*fn)(int);
	int arg;
	int index;
	pthread_t tid;
	std::atomic<bool> done{ false };
	std::atomic<const char *> op{ "start" };
	std::atomic<const char *> obj{ "" };
};

Thread threads[kMaxThreads];
int nthreads;
std::atomic<bool> gate{ false };
std::atomic<int> running_threads{ 0 };

/* the first violation of a round, and how many */
pthread_mutex_t fail_mutex = PTHREAD_MUTEX_INITIALIZER;
int nfail;
char fail_msg[512];
const char *fail_thread;

uint64_t seed;
uint64_t round_seed;
const char *cur_scenario = "setup";
unsigned cur_round;

thread_local int tself = kSetup;
thread_local uint64_t rng;
thread_local int destroy_target = -1;

uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t next()
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

void spin(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		asm volatile("" ::: "memory");
}

/*
 * A scheduling point of the checker: here a random delay, so that the
 * threads meet at every step in many orders.
 */
void step(const char *op, const char *obj)
{
	if (tself == kSetup)
		return;
	Thread &t = threads[tself];
	t.op.store(op, std::memory_order_relaxed);
	t.obj.store(obj, std::memory_order_relaxed);
	unsigned r = next() % 100;
	if (r < 50)
		return;
	if (r < 80) {
		sched_yield();
	} else if (r < 96) {
		spin(next() % 3000);
	} else {
		timespec ts = { 0, long(1000 + next() % 40000) };
		nanosleep(&ts, nullptr);
	}
}

ModelId &of(xcma_fsm_id *fsm)
{
	ModelId *m = reinterpret_cast<ModelId *>(fsm);

	if (m < W.ids || m >= W.ids + W.nids) {
		fprintf(stderr, "tsan: platform called with a foreign id %p\n",
			(void *)fsm);
		abort();
	}
	if (!m->used)
		fail(Rule::Api, "platform called with unused id %s", m->name);
	if (m->freed)
		fail(Rule::G8, "%s used after it was freed", m->name);
	return *m;
}

PlatId &plat(xcma_fsm_id *fsm)
{
	return pid[index_of(fsm)];
}

ModelDev &of(xcma_fsm_dev *fsm)
{
	ModelDev *d = reinterpret_cast<ModelDev *>(fsm);

	if (d < W.devs || d >= W.devs + W.ndevs) {
		fprintf(stderr,
			"tsan: platform called with a foreign device\n");
		abort();
	}
	if (d->remove_returned)
		fail(Rule::G5, "%s touched after its removal returned",
		     d->name);
	return *d;
}

int dev_index(xcma_fsm_dev *fsm)
{
	return reinterpret_cast<ModelDev *>(fsm) - W.devs;
}

const char *cm_event_name(unsigned ev)
{
	static const char *const names[] = {
		"ADDR_RESOLVED",  "ADDR_ERROR",	     "ROUTE_RESOLVED",
		"ROUTE_ERROR",	  "CONNECT_REQUEST", "CONNECT_RESPONSE",
		"CONNECT_ERROR",  "UNREACHABLE",     "REJECTED",
		"ESTABLISHED",	  "DISCONNECTED",    "DEVICE_REMOVAL",
		"MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE",
		"TIMEWAIT_EXIT",
	};
	return ev < 16 ? names[ev] : "?";
}

} /* namespace */

ModelId &id(int i)
{
	return W.ids[i];
}

ModelDev &dev(int i)
{
	return W.devs[i];
}

int index_of(const xcma_fsm_id *fsm)
{
	return reinterpret_cast<const ModelId *>(fsm) - W.ids;
}

int self()
{
	return tself;
}

const char *rule_name(Rule r)
{
	static const char *const names[kNrRules] = {
		"any", "G1", "G2", "G3",  "G4",	   "G5",
		"G6",  "G7", "G8", "api", "model",
	};
	return names[int(r)];
}

/*
 * Not fatal: the thread goes on (the checker abandons it, real threads
 * cannot) and the round is counted at its end. The first violation is
 * printed at once: what follows a violation may crash or hang.
 */
void fail(Rule rule, const char *fmt, ...)
{
	pthread_mutex_lock(&fail_mutex);
	if (!nfail++) {
		int off = snprintf(fail_msg, sizeof(fail_msg),
				   "%s: ", rule_name(rule));
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(fail_msg + off, sizeof(fail_msg) - off, fmt, ap);
		va_end(ap);
		fail_thread = tself == kSetup ? "setup" : threads[tself].name;
		printf("tsan: %s round %u seed=%llu: violation in %s: %s\n",
		       cur_scenario, cur_round, (unsigned long long)seed,
		       fail_thread, fail_msg);
		fflush(stdout);
	}
	pthread_mutex_unlock(&fail_mutex);
}

void note(const char *, ...)
{
}

void sched(Wait, const char *op, const char *obj, void *, bool (*)(int), int,
	   bool)
{
	step(op, obj);
}

int current_destroy_target()
{
	return destroy_target;
}

void set_destroy_target(int i)
{
	destroy_target = i;
}

void expect_ok(int err, const char *what)
{
	if (err)
		fail(Rule::Api, "%s failed: %d", what, err);
}

int new_id(const char *name)
{
	int i = W.nids++;
	ModelId &m = W.ids[i];

	m.name = name;
	m.refs = 1;
	xcma_fsm_id_init(&m.fsm, &W.ctx);
	m.used = true;
	return i;
}

int reserve_child(const char *name)
{
	int i = W.nids++;

	W.ids[i].name = name;
	W.child_slots[W.nchild_slots++] = i;
	return i;
}

int reserve_id(const char *name)
{
	int i = W.nids++;

	W.ids[i].name = name;
	return i;
}

void init_reserved(int i)
{
	ModelId &m = W.ids[i];

	m.refs = 1;
	xcma_fsm_id_init(&m.fsm, &W.ctx);
	m.used = true;
}

int new_dev(const char *name)
{
	int i = W.ndevs++;
	ModelDev &d = W.devs[i];

	d.name = name;
	d.used = true;
	d.refs = 1;
	xcma_fsm_dev_init(&d.fsm, &W.ctx);
	return i;
}

void spawn(const char *name, void (*fn)(int), int arg)
{
	if (nthreads >= kMaxThreads) {
		fail(Rule::Model, "too many threads");
		return;
	}
	Thread &t = threads[nthreads];
	t.name = name;
	t.fn = fn;
	t.arg = arg;
	t.index = nthreads++;
}

void await(bool (*pred)(int), int arg, const char *what)
{
	for (unsigned n = 0; !pred(arg); n++) {
		step("await", what);
		if (n > 64) {
			timespec ts = { 0, 20000 };
			nanosleep(&ts, nullptr);
		} else {
			sched_yield();
		}
	}
}

unsigned peek_state(int i)
{
	return xcma_fsm_id_state(&id(i).fsm);
}

void user_destroy(int i)
{
	ModelId &m = id(i);
	int outer = destroy_target;

	destroy_target = i;
	int err = xcma_fsm_id_destroy(&m.fsm);
	destroy_target = outer;
	if (err)
		fail(Rule::Api, "destroy of %s returned %d", m.name, err);
	if (m.running)
		fail(Rule::G2, "destroy of %s returned while its callback runs",
		     m.name);
	if (!m.freed)
		fail(Rule::G2,
		     "destroy of %s returned before the id was released",
		     m.name);
	m.destroy_returned = true;
}

void user_destroy_once(int i)
{
	bool no = false;

	if (id(i).destroy_started.compare_exchange_strong(no, true))
		user_destroy(i);
}

int new_group(const char *name, int i, int d)
{
	if (W.ngroups >= kMaxGroups) {
		fail(Rule::Model, "too many groups");
		return 0;
	}
	ModelGroup &g = W.groups[W.ngroups];
	g.name = name;
	g.owner = i;
	g.dev = d;
	return W.ngroups++;
}

void release_group(ModelGroup &g, const char *by)
{
	if (!g.joined)
		fail(Rule::G8, "%s released by %s but never joined", g.name,
		     by);
	if (++g.releases > 1)
		fail(Rule::G8,
		     "%s released twice (again by %s): used after free", g.name,
		     by);
	if (g.dev >= 0 && dev(g.dev).remove_returned)
		fail(Rule::G5, "%s left after removal of %s returned", g.name,
		     dev(g.dev).name);
}

void reap(int i)
{
	await(
		[](int k) {
			ModelId &m = W.ids[k];
			return m.freed || m.destroy_started ||
			       (m.used && m.removal_ack);
		},
		i, id(i).name);
	if (!id(i).freed)
		user_destroy_once(i);
}

} /* namespace model */

using namespace model;

extern "C" {

void xcma_plat_ctx_lock(xcma_fsm_ctx *)
{
	step("ctx_lock", "ctx");
	pthread_mutex_lock(&ctx_mutex);
	ctx_owner = tself;
}

void xcma_plat_ctx_unlock(xcma_fsm_ctx *)
{
	if (ctx_owner != tself)
		fail(Rule::Api, "ctx_unlock: not the owner");
	ctx_owner = -1;
	pthread_mutex_unlock(&ctx_mutex);
	step("ctx_unlock", "ctx");
}

void xcma_plat_id_lock(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	step("id_lock", m.name);
#ifndef XCMA_PLANT_NOLOCK
	pthread_mutex_lock(&plat(fsm).lock);
#endif
}

/* every state change is made under the id lock: last_live follows it */
void xcma_plat_id_unlock(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	unsigned st = fsm->state;

	if (st < XCMA_FSM_DEVICE_REMOVAL)
		m.last_live = st;
#ifndef XCMA_PLANT_NOLOCK
	pthread_mutex_unlock(&plat(fsm).lock);
#endif
	step("id_unlock", m.name);
}

void xcma_plat_id_handler_lock(xcma_fsm_id *fsm, int)
{
	ModelId &m = of(fsm);
	PlatId &p = plat(fsm);

	step("handler_lock", m.name);
	pthread_mutex_lock(&p.handler);
	p.handler_owner = tself;
	if (destroy_target == index_of(fsm))
		m.fence_passed = true;
}

void xcma_plat_id_handler_unlock(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	PlatId &p = plat(fsm);

	if (p.handler_owner != tself)
		fail(Rule::Api, "handler_unlock %s: not the owner", m.name);
	p.handler_owner = -1;
	pthread_mutex_unlock(&p.handler);
	step("handler_unlock", m.name);
}

void xcma_plat_id_assert_handler_held(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);

	if (plat(fsm).handler_owner != tself)
		fail(Rule::Api,
		     "%s: handler lock not held where the library needs it",
		     m.name);
}

void xcma_plat_id_get(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);

	step("id_get", m.name);
	if (!m.refs.fetch_add(1))
		fail(Rule::G8, "%s referenced again after its last put",
		     m.name);
}

/* refcount_dec_and_test() then complete(), a step between the two */
void xcma_plat_id_put(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);
	PlatId &p = plat(fsm);

	step("id_put", m.name);
	unsigned old = m.refs.fetch_sub(1);
	if (!old)
		fail(Rule::G8, "%s put below zero", m.name);
	if (old != 1)
		return;
	step("complete", m.name);
	p.unreferenced.complete();
}

void xcma_plat_id_wait_unreferenced(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);

	step("wait_unreferenced", m.name);
	plat(fsm).unreferenced.wait();
}

void xcma_plat_dev_get(xcma_fsm_dev *fsm)
{
	ModelDev &d = of(fsm);

	step("dev_get", d.name);
	if (!d.refs.fetch_add(1))
		fail(Rule::G8, "%s referenced after its last put", d.name);
}

void xcma_plat_dev_put(xcma_fsm_dev *fsm)
{
	ModelDev &d = of(fsm);

	step("dev_put", d.name);
	unsigned old = d.refs.fetch_sub(1);
	if (!old)
		fail(Rule::G8, "%s put below zero", d.name);
	if (old != 1)
		return;
	step("complete", d.name);
	pdev[dev_index(fsm)].released.complete();
}

/*
 * No timeout here either (a hang is G6). When the wait returns, no id may
 * be listed on the device any more (G5).
 */
void xcma_plat_dev_wait_released(xcma_fsm_dev *fsm)
{
	ModelDev &d = of(fsm);

	step("wait_released", d.name);
	pdev[dev_index(fsm)].released.wait();
	pthread_mutex_lock(&ctx_mutex);
	bool listed = fsm->ids.next != &fsm->ids ||
		      fsm->visited.next != &fsm->visited;
	pthread_mutex_unlock(&ctx_mutex);
	if (listed || d.refs)
		fail(Rule::G5, "%s released while ids still hold it (%u refs)",
		     d.name, d.refs.load());
}

/* the checker's checks of a callback, in its order */
int xcma_plat_id_event(xcma_fsm_id *fsm, unsigned int ev, int)
{
	ModelId &m = of(fsm);
	const char *evn = cm_event_name(ev);

	step(ev == XCMA_CM_EVENT_DEVICE_REMOVAL ? "cb DEVICE_REMOVAL" :
						  "callback",
	     m.name);
	if (m.fsm.flags & XCMA_FSM_F_INTERNAL)
		fail(Rule::G7, "the user saw %s of internal listener %s", evn,
		     m.name);
	if (m.running.fetch_add(1))
		fail(Rule::G1, "callback of %s (%s) while another runs", m.name,
		     evn);
	if (m.destroy_returned || m.fence_passed)
		fail(Rule::G2, "callback of %s (%s) after destroy fenced it",
		     m.name, evn);
	if (m.nonzero_returned)
		fail(Rule::G3, "callback of %s (%s) after it returned non-zero",
		     m.name, evn);
	if (m.notices)
		fail(Rule::G4, "%s delivered to %s after DEVICE_REMOVAL", evn,
		     m.name);
	if (ev == XCMA_CM_EVENT_DEVICE_REMOVAL)
		m.notices++;

	step("in callback", m.name);
	if (m.destroy_on == int(ev) && m.destroy_target >= 0)
		user_destroy_once(m.destroy_target);
	int ret = m.ret_on[ev & 15];
	/* contract: no non-zero return once the user decided to destroy */
	if (ret) {
		bool no = false;
		if (!m.destroy_started.compare_exchange_strong(no, true))
			ret = 0;
	}
	if (!ret && ev == XCMA_CM_EVENT_DEVICE_REMOVAL)
		m.removal_ack = true;
	m.running--;
	step(ret ? "cb returns 1" : "cb returns 0", m.name);
	if (ret)
		m.nonzero_returned = true;
	return ret;
}

void xcma_plat_id_cancel(xcma_fsm_id *fsm, unsigned int state)
{
	ModelId &m = of(fsm);

	step("cancel", m.name);
	if (m.cancels.fetch_add(1))
		fail(Rule::G8, "%s: operation cancelled twice", m.name);
	if (state != m.last_live)
		fail(Rule::G8, "%s: cancel with state %s, the id was %s",
		     m.name, xcma_fsm_state_name(state),
		     xcma_fsm_state_name(m.last_live));
	m.cancel_state = state;
}

void xcma_plat_id_group_drop(xcma_fsm_id *fsm, xcma_fsm_link *l)
{
	ModelId &m = of(fsm);
	ModelGroup *g = reinterpret_cast<ModelGroup *>(l);

	if (g < W.groups || g >= W.groups + W.ngroups) {
		fail(Rule::Api, "group_drop with a foreign group");
		return;
	}
	step("group_drop", g->name);
	if (&id(g->owner) != &m)
		fail(Rule::Api, "%s dropped by %s", g->name, m.name);
	release_group(*g, "drop");
}

void xcma_plat_id_release_dev(xcma_fsm_id *fsm, xcma_fsm_dev *dfsm)
{
	ModelId &m = of(fsm);
	ModelDev &d = of(dfsm);

	step("release_dev", m.name);
	m.dev_mask |= 1u << dev_index(dfsm);
	if (d.refs < 2 && !d.remove_started)
		fail(Rule::G8, "%s released %s below its own reference", m.name,
		     d.name);
}

void xcma_plat_id_free(xcma_fsm_id *fsm)
{
	ModelId &m = of(fsm);

	step("free", m.name);
	if (m.refs)
		fail(Rule::G8, "%s freed with %u references", m.name,
		     m.refs.load());
	if (m.running)
		fail(Rule::G2, "%s freed while its callback runs", m.name);
	if (m.cancels != 1)
		fail(Rule::G8, "%s freed after %d cancels", m.name,
		     m.cancels.load());
	if (m.fsm.dev)
		fail(Rule::G8, "%s freed while holding a device", m.name);
	if (plat(fsm).handler_owner != -1)
		fail(Rule::G8, "%s freed with its handler lock held", m.name);
	if (m.fsm.state != XCMA_FSM_DESTROYING)
		fail(Rule::G2, "%s freed in state %s", m.name,
		     xcma_fsm_state_name(m.fsm.state));
	m.freed = true;
	/* a later access without ordering is a race TSan reports */
	memset(&m.fsm, 0x6b, sizeof(m.fsm));
}

int xcma_plat_listen_child(xcma_fsm_id *pfsm, xcma_fsm_dev *dfsm,
			   xcma_fsm_id **child)
{
	ModelId &p = of(pfsm);

	of(dfsm);
	if (ctx_owner != tself)
		fail(Rule::Api, "listen_child without the ctx lock");
	for (int k = 0; k < W.nchild_slots; k++) {
		ModelId &c = W.ids[W.child_slots[k]];
		if (c.used)
			continue;
		c.child = true;
		c.refs = 1;
		xcma_fsm_id_init(&c.fsm, &W.ctx);
		c.used = true;
		*child = &c.fsm;
		return 0;
	}
	fail(Rule::Model, "scenario reserved too few children for %s", p.name);
	return -12; /* -ENOMEM */
}

void xcma_plat_dev_report_holder(xcma_fsm_dev *dfsm, xcma_fsm_id *fsm)
{
	fail(Rule::Model, "%s reported as holding %s: no timeout here",
	     of(fsm).name, of(dfsm).name);
}

void xcma_plat_bug(const char *what)
{
	fail(Rule::Api, "library bug check: %s", what);
}

} /* extern "C" */

namespace
{

void *thread_main(void *arg)
{
	Thread &t = *static_cast<Thread *>(arg);

	tself = t.index;
	rng = mix(round_seed ^ mix(t.index + 1)) | 1;
	destroy_target = -1;
	while (!gate.load())
		sched_yield();
	step("start", "");
	t.fn(t.arg);
	t.op = "done";
	t.done = true;
	running_threads--;
	return nullptr;
}

void reset_round()
{
	W.~World();
	new (&W) World();
	xcma_fsm_ctx_init(&W.ctx);
	for (PlatId &p : pid) {
		p.handler_owner = -1;
		p.unreferenced.done = false;
	}
	for (PlatDev &d : pdev)
		d.released.done = false;
	ctx_owner = -1;
	for (Thread &t : threads) {
		t.done = false;
		t.op = "start";
		t.obj = "";
	}
	nthreads = 0;
	nfail = 0;
	fail_msg[0] = 0;
	fail_thread = nullptr;
	gate = false;
	tself = kSetup;
	destroy_target = -1;
}

/* the checker's end-of-schedule checks, once every thread is joined */
void check_end()
{
	for (int i = 0; i < W.nids; i++) {
		ModelId &m = W.ids[i];

		if (m.used && !m.freed)
			fail(Rule::G8, "%s never freed (state %s, %u refs)",
			     m.name, xcma_fsm_state_name(m.fsm.state),
			     m.refs.load());
	}
	for (int d = 0; d < W.ndevs; d++) {
		ModelDev &md = W.devs[d];

		if (md.remove_started && !md.remove_returned)
			fail(Rule::G5, "removal of %s never returned", md.name);
		else if (md.remove_returned && md.refs)
			fail(Rule::G8, "%s keeps %u references", md.name,
			     md.refs.load());
		else if (md.used && !md.remove_started &&
			 (md.refs != 1 || md.fsm.ids.next != &md.fsm.ids))
			fail(Rule::G8,
			     "%s keeps %u references once every id is gone",
			     md.name, md.refs.load());
	}
	for (int k = 0; k < W.ngroups; k++) {
		ModelGroup &g = W.groups[k];

		if (g.joined && g.releases != 1)
			fail(Rule::G8, "%s released %d times", g.name,
			     g.releases.load());
	}
	if (ctx_owner != -1)
		fail(Rule::G8, "ctx lock still held");
	if (W.ctx.listeners.next != &W.ctx.listeners)
		fail(Rule::G8, "a wildcard listener is still registered");
}

void report_hang(const Scenario &sc, unsigned r)
{
	char who[512];
	size_t off = 0;

	who[0] = 0;
	for (int i = 0; i < nthreads && off < sizeof(who); i++)
		if (!threads[i].done)
			off += snprintf(who + off, sizeof(who) - off,
					" %s@%s(%s)", threads[i].name,
					threads[i].op.load(),
					threads[i].obj.load());
	printf("tsan: %s round %u seed=%llu: G6: no progress for %d s:%s\n",
	       sc.name, r, (unsigned long long)seed, kHangSecs, who);
	printf("tsan: %s rounds=%u seed=%llu violations=1\n", sc.name, r + 1,
	       (unsigned long long)seed);
	fflush(stdout);
	_exit(1);
}

/* 0, or the round's violations (the first one printed) */
int run_round(const Scenario &sc, int si, unsigned r)
{
	reset_round();
	cur_scenario = sc.name;
	cur_round = r;
	round_seed = mix(seed ^ mix((uint64_t(si) << 32) | r));
	rng = round_seed | 1;
	sc.setup();

	/* threads start in a random order, released together by the gate */
	int order[kMaxThreads];
	for (int i = 0; i < nthreads; i++)
		order[i] = i;
	for (int i = nthreads - 1; i > 0; i--) {
		int j = next() % (i + 1);
		int tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	running_threads = nthreads;
	for (int i = 0; i < nthreads; i++) {
		Thread &t = threads[order[i]];
		if (pthread_create(&t.tid, nullptr, thread_main, &t)) {
			perror("pthread_create");
			exit(2);
		}
	}
	gate = true;
	auto t0 = std::chrono::steady_clock::now();
	while (running_threads.load()) {
		timespec ts = { 0, 200000 };
		nanosleep(&ts, nullptr);
		if (std::chrono::steady_clock::now() - t0 >
		    std::chrono::seconds(kHangSecs))
			report_hang(sc, r);
	}
	for (int i = 0; i < nthreads; i++)
		pthread_join(threads[i].tid, nullptr);
	check_end();
	if (nfail)
		printf("tsan: %s round %u seed=%llu: %d violations\n", sc.name,
		       r, (unsigned long long)seed, nfail);
	return nfail;
}

unsigned env_unsigned(const char *name, unsigned dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtoul(v, nullptr, 0) : dflt;
}

} /* namespace */

int main(int argc, char **argv)
{
	const char *only = nullptr;
	unsigned rounds = env_unsigned("XCMA_TSAN_ROUNDS", kRounds);
	int n;
	const Scenario *sc = scenarios(&n);

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--list")) {
			for (int k = 0; k < n; k++)
				printf("%s\n", sc[k].name);
			return 0;
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = strtoul(argv[++i], nullptr, 0);
		} else {
			fprintf(stderr,
				"usage: %s [--only NAME] [--rounds N] | --list\n"
				"  XCMA_TSAN_SEED=S replays a seed\n",
				argv[0]);
			return 2;
		}
	}
	setvbuf(stdout, nullptr, _IOLBF, 0);
	const char *s = getenv("XCMA_TSAN_SEED");
	seed = s && *s ? strtoull(s, nullptr, 0) :
			 mix(uint64_t(time(nullptr)) ^
			     (uint64_t(getpid()) << 20)) &
				 0xffffffffull;
	const Scenario *pick = only ? find_scenario(only) : nullptr;
	if (only && !pick) {
		fprintf(stderr, "tsan: no scenario %s\n", only);
		return 2;
	}

	int bad = 0;
	for (int i = 0; i < n; i++) {
		if (pick && pick != &sc[i])
			continue;
		auto t0 = std::chrono::steady_clock::now();
		unsigned r, v = 0;
		for (r = 0; r < rounds && !v; r++)
			v = run_round(sc[i], i, r);
		printf("tsan: %s rounds=%u seed=%llu violations=%u\n",
		       sc[i].name, r, (unsigned long long)seed, v);
		fprintf(stderr, "  %s: %.1f s\n", sc[i].name,
			std::chrono::duration<double>(
				std::chrono::steady_clock::now() - t0)
				.count());
		bad += v != 0;
	}
	return bad ? 1 : 0;
}
