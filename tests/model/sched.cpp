// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Deterministic scheduler and explorer, bounded by preemptions.
 *
 * Threads are coroutines with their own stacks, switched by a few lines of
 * x86-64 assembly (no signal-mask syscall, unlike swapcontext). A thread
 * runs until its next scheduling point (every lock acquire and release,
 * refcount step, wait-queue operation, callback entry and exit, cancel,
 * release and free), where it announces its next operation and hands the
 * baton back. The scheduler then picks which enabled thread runs.
 *
 * Exploration is stateless DFS over those choices, re-running the scenario
 * from scratch for each schedule. The bound is on preemptions (CHESS):
 * switching away from a thread that could continue costs one; switches
 * forced by blocking or termination are free and fully explored. Every
 * schedule with at most `bound` preemptions is run exactly once.
 *
 * Lock releases are scheduling points (they show in traces and may unblock
 * others) but not preemption points: the library is data-race free (all
 * shared fields are accessed under its locks), so a preemption right after
 * a release is equivalent to one before the thread's next synchronization
 * operation, which is explored (Musuvathi and Qadeer, PLDI 2007).
 */
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "model.hpp"

extern "C" void model_switch(void **save_sp, void *new_sp);
asm(R"(
	.text
	.globl model_switch
	.type model_switch, @function
model_switch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret
	.size model_switch, .-model_switch
)");

namespace model
{

World W;

namespace
{

constexpr size_t kStack = 256 * 1024;
alignas(64) char stacks[kMaxThreads][kStack];

struct Thread {
	const char *name;
	void (*fn)(int);
	int arg;
	void *sp;
	bool done;
	Wait wait;
	int *lock;
	WaitQ *wq;
	bool (*pred)(int);
	int pred_arg;
	const char *op;
	const char *obj;
	bool preemptible;
	int destroy_target;
};

struct Choice {
	uint8_t enabled;
	uint8_t chosen;
	uint8_t tried;
	int8_t cur;
	uint16_t pre;
};

struct Sched {
	Thread th[kMaxThreads];
	int n;
	int cur; /* running thread, -1 in setup and in the scheduler */
	void *main_sp;
	bool failed;
	Rule rule;
	char message[512];
	/* tracing of one replayed schedule */
	bool tracing;
	int step;
} S;

Choice trace[kMaxSteps];

void trampoline()
{
	Thread &t = S.th[S.cur];

	t.fn(t.arg);
	t.done = true;
	model_switch(&t.sp, S.main_sp);
	__builtin_unreachable();
}

void *initial_stack(int i)
{
	uintptr_t top = reinterpret_cast<uintptr_t>(stacks[i] + kStack);
	top &= ~uintptr_t(15);
	void **sp = reinterpret_cast<void **>(top);
	*--sp = nullptr; /* trampoline's "return address" */
	*--sp = reinterpret_cast<void *>(&trampoline);
	for (int r = 0; r < 6; r++)
		*--sp = nullptr;
	return sp;
}

bool enabled(const Thread &t)
{
	if (t.done)
		return false;
	switch (t.wait) {
	case Wait::None:
		return true;
	case Wait::Lock:
		return *t.lock == -1;
	case Wait::Sleep:
		return t.wq->woken;
	case Wait::Await:
		return t.pred(t.pred_arg);
	}
	return false;
}

const char *state_name(unsigned s)
{
	return xcma_fsm_state_name(s);
}

void snapshot(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < W.nids && off < len; i++) {
		ModelId &m = W.ids[i];

		if (!m.used)
			continue;
		if (m.freed)
			off += snprintf(buf + off, len - off, " %s=freed",
					m.name);
		else
			off += snprintf(buf + off, len - off, " %s=%s/r%u",
					m.name, state_name(m.fsm.state),
					m.refs);
	}
	for (int i = 0; i < W.ndevs && off < len; i++)
		off += snprintf(buf + off, len - off, " %s=r%u", W.devs[i].name,
				W.devs[i].refs);
}

/* checks made between any two steps */
void check_world()
{
	for (int i = 0; i < W.nids; i++) {
		ModelId &m = W.ids[i];

		if (!m.used || m.freed)
			continue;
		unsigned st = m.fsm.state;
		if (st >= XCMA_FSM_NR_STATES) {
			fail(Rule::Api, "%s: invalid state %u", m.name, st);
			return;
		}
		if (st < XCMA_FSM_DEVICE_REMOVAL)
			m.last_live = st;
		if (m.fsm.dev)
			m.dev_mask |= 1u << (reinterpret_cast<ModelDev *>(
						     m.fsm.dev) -
					     W.devs);
		if (m.running > 1) {
			fail(Rule::G1, "%d callbacks of %s run at once", m.running,
			     m.name);
			return;
		}
		/* G7: a wildcard listener survives the removal of a device */
		if (m.wildcard && !m.destroy_started) {
			for (int d = 0; d < W.ndevs; d++)
				if (W.devs[d].remove_returned &&
				    (st != XCMA_FSM_LISTEN ||
				     !(m.fsm.flags & XCMA_FSM_F_WILDCARD))) {
					fail(Rule::G7,
					     "wildcard listener %s is %s%s "
					     "after removal of %s",
					     m.name, state_name(st),
					     m.fsm.flags & XCMA_FSM_F_WILDCARD ?
						     "" :
						     ", no longer wildcard,",
					     W.devs[d].name);
					return;
				}
		}
	}
	for (int d = 0; d < W.ndevs; d++) {
		ModelDev &md = W.devs[d];

		if (md.remove_returned &&
		    (md.refs != 0 || md.fsm.ids.next != &md.fsm.ids)) {
			fail(Rule::G5, "%s removed while %u references remain",
			     md.name, md.refs);
			return;
		}
	}
}

/* checks once every thread finished */
void check_end()
{
	for (int i = 0; i < W.nids && !S.failed; i++) {
		ModelId &m = W.ids[i];

		if (!m.used)
			continue;
		if (!m.freed)
			fail(Rule::G8, "%s never freed (state %s, %u refs)", m.name,
			     state_name(m.fsm.state), m.refs);
	}
	for (int d = 0; d < W.ndevs && !S.failed; d++) {
		ModelDev &md = W.devs[d];

		if (md.remove_started && !md.remove_returned)
			fail(Rule::G5, "removal of %s never returned", md.name);
		else if (md.remove_returned && md.refs)
			fail(Rule::G8, "%s keeps %u references", md.name,
			     md.refs);
		/* a device still present: its own reference, no id */
		else if (md.used && !md.remove_started &&
			 (md.refs != 1 || md.fsm.ids.next != &md.fsm.ids))
			fail(Rule::G8,
			     "%s keeps %u references once every id is gone",
			     md.name, md.refs);
	}
	for (int k = 0; k < W.ngroups && !S.failed; k++) {
		ModelGroup &g = W.groups[k];

		if (g.joined && g.releases != 1)
			fail(Rule::G8, "%s released %d times", g.name,
			     g.releases);
	}
	if (!S.failed && W.ctx_lock != -1)
		fail(Rule::G8, "ctx lock still held");
	if (!S.failed && (W.ctx.listeners.next != &W.ctx.listeners))
		fail(Rule::G8, "a wildcard listener is still registered");
}

/*
 * Nobody can run. The platform's waits are completions (await on
 * id_completed/dev_completed). If the library is quiescent (only users
 * wait, for a notice or a removal that never comes) what is left over says
 * why: check as at the end (G8, G5). A waiter whose count is down to zero
 * but never completed lost its wake-up (G6). A remover waiting for a
 * device that no id holds while nobody is inside a lock step waits for a
 * leaked reference (G8). Anything else is a deadlock (G6).
 */
void report_stuck()
{
	bool in_lock = false, lib_wait = false;

	for (int i = 0; i < S.n; i++) {
		const Thread &t = S.th[i];

		in_lock |= !t.done && t.wait == Wait::Lock;
		lib_wait |= !t.done && t.wait == Wait::Await &&
			    (t.pred == id_completed || t.pred == dev_completed);
	}
	if (!in_lock && !lib_wait) {
		check_end();
		if (S.failed)
			return;
	}
	for (int i = 0; i < S.n; i++) {
		Thread &t = S.th[i];

		if (t.done || t.wait != Wait::Await)
			continue;
		if (t.pred == id_completed && W.ids[t.pred_arg].refs == 0) {
			fail(Rule::G6,
			     "lost wake-up: %s waits for %s whose references "
			     "are all gone",
			     t.name, W.ids[t.pred_arg].name);
			return;
		}
		if (t.pred != dev_completed)
			continue;
		ModelDev &md = W.devs[t.pred_arg];
		if (md.refs == 0) {
			fail(Rule::G6,
			     "lost wake-up: %s waits for %s which no id holds "
			     "any more",
			     t.name, md.name);
			return;
		}
		if (in_lock)
			continue;
		bool held = false;
		for (int j = 0; j < W.nids; j++)
			held |= W.ids[j].used && !W.ids[j].freed &&
				W.ids[j].fsm.dev == &md.fsm;
		if (!held) {
			fail(Rule::G8,
			     "%s keeps %u references that no id holds: %s "
			     "waits for them forever",
			     md.name, md.refs, t.name);
			return;
		}
	}
	char who[256];
	size_t off = 0;
	for (int i = 0; i < S.n && off < sizeof(who); i++)
		if (!S.th[i].done)
			off += snprintf(who + off, sizeof(who) - off,
					" %s@%s(%s)", S.th[i].name,
					S.th[i].op, S.th[i].obj);
	fail(Rule::G6, "deadlock:%s", who);
}

void reset_world()
{
	W = World();
	xcma_fsm_ctx_init(&W.ctx);
	memset(&S, 0, sizeof(S));
	S.cur = -1;
}

/*
 * Run one schedule: the first `prefix` choices are replayed from trace[],
 * the rest take the default (keep running the current thread) and are
 * recorded. Returns the number of steps.
 */
int run_once(const Scenario &sc, int prefix, int bound, Result &r,
	     Rule want, bool tracing)
{
	reset_world();
	S.tracing = tracing;
	sc.setup();
	if (!S.failed)
		check_world();

	int cur = -1;
	unsigned pre = 0;
	int step = 0;
	while (!S.failed) {
		uint8_t en = 0;
		bool all_done = true;

		for (int i = 0; i < S.n; i++) {
			if (!S.th[i].done)
				all_done = false;
			if (enabled(S.th[i]))
				en |= 1u << i;
		}
		if (all_done) {
			check_end();
			break;
		}
		if (!en) {
			report_stuck();
			break;
		}
		if (step >= kMaxSteps) {
			fail(Rule::G6, "no progress after %d steps", step);
			break;
		}
		bool cur_en = cur >= 0 && (en & (1u << cur));
		/* right after a release the current thread just goes on */
		if (cur_en && !S.th[cur].preemptible)
			en = 1u << cur;
		uint8_t pick;
		if (step < prefix) {
			pick = trace[step].chosen;
			if (!(en & (1u << pick))) {
				fail(Rule::Model, "replay diverged at step %d",
				     step);
				break;
			}
		} else {
			pick = cur_en ? cur : __builtin_ctz(en);
			trace[step] = { en, pick, uint8_t(1u << pick),
					int8_t(cur), uint16_t(pre) };
		}
		if (cur_en && pick != cur)
			pre++;
		(void)bound;
		if (tracing) {
			char snap[400];
			snapshot(snap, sizeof(snap));
			printf("    %4d  %-12s %-22s %-8s |%s\n", step,
			       S.th[pick].name, S.th[pick].op, S.th[pick].obj,
			       snap);
		}
		cur = pick;
		S.cur = pick;
		S.step = step;
		model_switch(&S.main_sp, S.th[pick].sp);
		S.cur = -1;
		step++;
		if (!S.failed)
			check_world();
	}
	if (S.failed && !tracing) {
		int k = int(S.rule);
		if (!r.by_rule[k]++)
			snprintf(r.first_of[k], sizeof(r.first_of[k]), "%s",
				 S.message);
	}
	if (S.failed && !tracing && !r.found &&
	    (want == Rule::Any || want == S.rule)) {
		r.found = true;
		r.rule = S.rule;
		snprintf(r.message, sizeof(r.message), "%s", S.message);
		r.trace_len = step;
		for (int i = 0; i < step && i < kMaxSteps; i++)
			r.trace[i] = trace[i].chosen;
	}
	if (S.failed && tracing)
		printf("    %4d  violation: %s\n", step, S.message);
	return step;
}

/* deepest choice with an untried alternative within the bound */
int backtrack(int depth, int bound)
{
	for (int i = depth - 1; i >= 0; i--) {
		Choice &c = trace[i];
		bool cur_en = c.cur >= 0 && (c.enabled & (1u << c.cur));
		uint8_t left = c.enabled & ~c.tried;

		while (left) {
			int t = __builtin_ctz(left);
			left &= left - 1;
			c.tried |= 1u << t;
			unsigned cost = (cur_en && t != c.cur) ? 1 : 0;
			if (c.pre + cost <= unsigned(bound)) {
				c.chosen = t;
				return i + 1;
			}
		}
	}
	return -1;
}

} /* namespace */

/* setup runs as a pseudo-thread of its own, so its locks look held */
constexpr int kSetup = 100;

int self()
{
	return S.cur >= 0 ? S.cur : kSetup;
}

void sched(Wait w, const char *op, const char *obj, void *what,
	   bool (*pred)(int), int arg, bool preemptible)
{
	if (S.cur < 0) {
		/* setup runs alone: nothing can block it */
		if (w == Wait::Lock && *static_cast<int *>(what) != -1)
			fail(Rule::Model, "setup: %s %s would block", op, obj);
		if (w == Wait::Sleep && !static_cast<WaitQ *>(what)->woken)
			fail(Rule::Model, "setup: %s %s would sleep", op, obj);
		return;
	}
	Thread &t = S.th[S.cur];
	t.wait = w;
	t.op = op;
	t.obj = obj;
	t.lock = w == Wait::Lock ? static_cast<int *>(what) : nullptr;
	t.wq = w == Wait::Sleep ? static_cast<WaitQ *>(what) : nullptr;
	t.pred = pred;
	t.pred_arg = arg;
	t.preemptible = preemptible;
	model_switch(&t.sp, S.main_sp);
	t.wait = Wait::None;
}

void note(const char *fmt, ...)
{
	if (!S.tracing)
		return;
	va_list ap;
	va_start(ap, fmt);
	printf("          ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

const char *rule_name(Rule r)
{
	static const char *const names[kNrRules] = {
		"any", "G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "api",
		"model",
	};
	return names[int(r)];
}

bool parse_pin_rule(const char *s, Rule *r)
{
	for (int i = int(Rule::G1); i <= int(Rule::G8); i++)
		if (!strcmp(s, rule_name(Rule(i)))) {
			*r = Rule(i);
			return true;
		}
	return false;
}

void fail(Rule rule, const char *fmt, ...)
{
	if (!S.failed) {
		int off = snprintf(S.message, sizeof(S.message), "%s: ",
				   rule_name(rule));
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(S.message + off, sizeof(S.message) - off, fmt, ap);
		va_end(ap);
		S.failed = true;
		S.rule = rule;
	}
	if (S.cur >= 0) {
		/* abandon this thread: the schedule ends here */
		Thread &t = S.th[S.cur];
		t.wait = Wait::Await;
		t.pred = [](int) { return false; };
		model_switch(&t.sp, S.main_sp);
		__builtin_unreachable();
	}
}

void spawn(const char *name, void (*fn)(int), int arg)
{
	Thread &t = S.th[S.n];

	t.name = name;
	t.fn = fn;
	t.arg = arg;
	t.sp = initial_stack(S.n);
	t.wait = Wait::None;
	t.op = "start";
	t.obj = "";
	t.preemptible = true;
	t.destroy_target = -1;
	S.n++;
}

void await(bool (*pred)(int), int arg, const char *what)
{
	sched(Wait::Await, "await", what, nullptr, pred, arg);
}

int current_destroy_target()
{
	return S.cur >= 0 ? S.th[S.cur].destroy_target : -1;
}

void set_destroy_target(int i)
{
	if (S.cur >= 0)
		S.th[S.cur].destroy_target = i;
}

Result explore(const Scenario &sc, int bound, Rule want, bool stop)
{
	Result r;
	int prefix = 0;

	for (;;) {
		int depth = run_once(sc, prefix, bound, r, want, false);
		r.interleavings++;
		if ((uint64_t)depth > r.max_steps)
			r.max_steps = depth;
		if (S.failed) {
			r.violations++;
			if (stop && r.found)
				break;
		}
		prefix = backtrack(depth, bound);
		if (prefix < 0)
			break;
	}
	return r;
}

void print_trace(const Scenario &sc, const Result &r)
{
	for (int i = 0; i < r.trace_len; i++) {
		trace[i].chosen = r.trace[i];
	}
	printf("  counterexample in scenario %s (%s):\n", sc.name, sc.what);
	printf("    step  thread       next operation         object   | "
	       "states before the step (id=state/refs, dev=refs)\n");
	run_once(sc, r.trace_len, 1 << 30, const_cast<Result &>(r), r.rule,
		 true);
}

} /* namespace model */
