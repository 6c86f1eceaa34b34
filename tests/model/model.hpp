/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Userspace model checker of the lifecycle library: the real library runs
 * on coroutines under a deterministic scheduler that owns every lock, wait
 * queue, refcount and callback (the platform, platform.cpp). Scenarios
 * (scenarios.cpp) build ids and devices and start threads; the explorer
 * (sched.cpp) runs every schedule up to a preemption bound and checks the
 * lifecycle contract G1-G8 at every step.
 */
#ifndef XCMA_MODEL_HPP
#define XCMA_MODEL_HPP

#include <cstdint>
#ifdef XCMA_MODEL_THREADS
#include <atomic>
#endif

#include "xcma/fsm.h"

namespace model
{

/*
 * What the platform observes and the scenarios read across threads. The
 * model checker runs one thread at a time: plain fields. The same
 * scenarios on real threads (pthreads.cpp, XCMA_MODEL_THREADS): atomics.
 */
#ifdef XCMA_MODEL_THREADS
template <typename T> using Shared = std::atomic<T>;
#else
template <typename T> using Shared = T;
#endif

constexpr int kMaxThreads = 8;
constexpr int kMaxIds = 12;
constexpr int kMaxDevs = 3;
constexpr int kMaxSteps = 3000;

enum class Wait : uint8_t { None, Lock, Sleep, Await };

/* a wait queue with its one possible sleeper (a destroyer or a remover) */
struct WaitQ {
	int waiter = -1;
	bool queued = false;
	bool woken = false;
};

struct ModelId {
	xcma_fsm_id fsm; /* first: the platform casts back from it */
	const char *name = nullptr;
	Shared<bool> used = false;
	Shared<bool> freed = false;
	int lock = -1; /* id lock owner (thread), -1 free */
	int handler = -1; /* handler lock owner */
	Shared<unsigned> refs = 0;
	bool completed = false; /* the last put completed the destroyer's wait */

	/* the user's model: what its callback returns / does per cm event */
	int ret_on[16] = {};
	int destroy_on = -1; /* on this cm event, destroy id destroy_target */
	int destroy_target = -1;

	/* observations */
	Shared<int> running = 0; /* callbacks running now (G1) */
	Shared<int> notices = 0; /* DEVICE_REMOVAL delivered (G4) */
	Shared<int> cancels = 0;
	Shared<unsigned> cancel_state = 0;
	Shared<unsigned> last_live = XCMA_FSM_IDLE;
	/* devices the id was ever attached to */
	Shared<unsigned> dev_mask = 0;
	Shared<bool> detached = false; /* let go of its device by itself */
	/* user contract: destroy is decided */
	Shared<bool> destroy_started = false;
	Shared<bool> destroy_returned = false;
	/* the destroyer got the handler lock */
	Shared<bool> fence_passed = false;
	Shared<bool> nonzero_returned = false;
	/* DEVICE_REMOVAL returned 0: reap me */
	Shared<bool> removal_ack = false;
	bool wildcard = false; /* a wildcard listener that must survive (G7) */
	/* per-device child of a wildcard listener */
	Shared<bool> child = false;
};

struct ModelDev {
	xcma_fsm_dev fsm;
	const char *name = nullptr;
	Shared<bool> used = false;
	int lock = -1;
	Shared<unsigned> refs = 0;
	bool completed = false; /* the last put completed the remover's wait */
	Shared<bool> remove_started = false;
	Shared<bool> remove_returned = false;
	unsigned holders_at_start = 0; /* user ids attached at removal start */
};

/* a multicast group of an id (xcma_fsm_id_group_add/_take/_drop) */
constexpr int kMaxGroups = 4;
struct ModelGroup {
	xcma_fsm_link link; /* first: the platform casts back from it */
	const char *name = nullptr;
	int owner = -1; /* id */
	int dev = -1; /* the owner's device when joined */
	Shared<bool> joined = false; /* group_add accepted it */
	/* taken by a leave or dropped by the library */
	Shared<int> releases = 0;
};

struct World {
	xcma_fsm_ctx ctx;
	int ctx_lock = -1;
	ModelId ids[kMaxIds];
	ModelDev devs[kMaxDevs];
	int nids = 0;
	int ndevs = 0;
	int child_slots[kMaxIds]; /* pool handed out by listen_child */
	int nchild_slots = 0;
	ModelGroup groups[kMaxGroups];
	int ngroups = 0;
};

extern World W;

/* scenario building blocks, usable in setup and in threads */
int new_id(const char *name);
int new_dev(const char *name);
int reserve_child(const char *name);
int reserve_id(const char *name);
void init_reserved(int i);
ModelId &id(int i);
ModelDev &dev(int i);
int index_of(const xcma_fsm_id *fsm);
void spawn(const char *name, void (*fn)(int), int arg);
void await(bool (*pred)(int), int arg, const char *what);
/* the predicates of the platform's completions (the library's waits) */
bool id_completed(int k);
bool dev_completed(int k);
/*
 * An id's state as a scenario may read it anywhere, await predicates
 * included: directly in the checker, under the id lock on real threads.
 */
unsigned peek_state(int i);
/*
 * Every violation names the rule it breaks; the message is printed as
 * "G4: ...". The pending operation of an id counts as something it holds:
 * cancelled exactly once, with the state it had (G8). Api: the library
 * broke its own interface (a lock not held where the platform requires it,
 * an errno where none is possible, a library bug check). Model: the
 * scenario or the checker itself is wrong.
 */
enum class Rule : uint8_t { Any, G1, G2, G3, G4, G5, G6, G7, G8, Api, Model };
constexpr int kNrRules = int(Rule::Model) + 1;
const char *rule_name(Rule r);
/* "G1".."G8" only: what a mutant may be pinned to */
bool parse_pin_rule(const char *s, Rule *r);

void fail(Rule rule, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void expect_ok(int err, const char *what);

/* user actions honouring the contract (destroy at most once etc.) */
void user_destroy(int i);
void user_destroy_once(int i);
void reap(int i);
/* a group of id @i, not joined yet */
int new_group(const char *name, int i, int d);
/* the group's owner lets go of it: once, or the check fails (G8) */
void release_group(ModelGroup &g, const char *by);

struct Scenario {
	const char *name;
	const char *what;
	void (*setup)();
	int bound; /* preemption bound: the largest that runs in seconds */
};

const Scenario *scenarios(int *n);
/* the scenario called @name (its full name or "S<k>"), or NULL */
const Scenario *find_scenario(const char *name);

struct Result {
	uint64_t interleavings = 0;
	uint64_t violations = 0;
	uint64_t max_steps = 0;
	uint64_t by_rule[kNrRules] = {};
	char first_of[kNrRules][512] = {}; /* first message per rule */
	/* the first violation of the rule asked for, with its schedule */
	bool found = false;
	Rule rule = Rule::Any;
	char message[512] = {};
	int trace_len = 0;
	uint8_t trace[kMaxSteps];
};

/*
 * Explore every schedule of @s within @bound preemptions. @want: the rule
 * whose first violation is kept with its trace (Any: whichever comes
 * first); @stop: end the exploration there.
 */
Result explore(const Scenario &s, int bound, Rule want, bool stop);
void print_trace(const Scenario &s, const Result &r);

/* scheduler hooks used by the platform */
int self();
void sched(Wait w, const char *op, const char *obj, void *what = nullptr,
	   bool (*pred)(int) = nullptr, int arg = 0, bool preemptible = true);
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int current_destroy_target();
void set_destroy_target(int i);

} /* namespace model */

#endif /* XCMA_MODEL_HPP */
