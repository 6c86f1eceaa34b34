// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma_lifecycle: the lifecycle library on the kernel platform
 * (cma/lifecycle.c) with real kthreads, on synthetic ids and a synthetic
 * device of a context of its own (no RDMA needed). Each round races event
 * sources (some handlers return non-zero), a user destroy, and device
 * removal, then checks G1-G4 and G8 on the round's event log.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "../../cma/lifecycle.h"
#include "xcma_kunit.h"

#define ROUNDS 200
#define BATCH 50
#define NIDS 3
#define LOG_MAX 128

enum lt_kind { CB_START, CB_END, DESTROY_CALL, DESTROY_RET, REMOVE_END };

struct lt_rec {
	u8 kind;
	u8 id;
	u8 event;
	u8 ret;
};

struct lt_round;

/**
 * struct lt_id - a synthetic id
 * @life: the id's lifecycle, embedded as a real owner embeds it
 * @round: the round it belongs to
 * @idx: index in @round->ids
 * @ret_on: what its callback returns, per cm event
 * @destroy_started: the user decided to destroy it (contract: once)
 * @removal_ack: DEVICE_REMOVAL returned 0, the reaper must destroy it
 * @cancels: cancel calls seen
 * @freed: the library handed it back
 */
struct lt_id {
	struct xcma_life_id life;
	struct lt_round *round;
	int idx;
	int ret_on[16];
	atomic_t destroy_started;
	atomic_t removal_ack;
	atomic_t cancels;
	atomic_t freed;
};

/**
 * struct lt_round - one race
 * @ctx: a lifecycle context of its own
 * @dev: the synthetic device
 * @ids: the synthetic ids, all bound to @dev
 * @lock: protects @log and @nlog
 * @log: what happened, in order
 * @nlog: entries used in @log
 * @wq: the reapers wait here for @removal_ack or @destroy_started
 * @start: every thread waits for it, to start together
 */
struct lt_round {
	struct xcma_life_ctx ctx;
	struct xcma_life_dev dev;
	struct lt_id ids[NIDS];
	spinlock_t lock; /* protects log and nlog */
	struct lt_rec log[LOG_MAX];
	int nlog;
	wait_queue_head_t wq;
	struct completion start;
};

static void lt_log(struct lt_round *r, u8 kind, int id, unsigned int ev,
		   int ret)
{
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	if (r->nlog < LOG_MAX)
		r->log[r->nlog++] = (struct lt_rec){ kind, id, ev, ret };
	spin_unlock_irqrestore(&r->lock, flags);
}

static struct lt_id *lt_of(struct xcma_life_id *life)
{
	return container_of(life, struct lt_id, life);
}

static bool claim_destroy(struct lt_id *t)
{
	return atomic_cmpxchg(&t->destroy_started, 0, 1) == 0;
}

static int lt_event(struct xcma_life_id *life, unsigned int ev, int status)
{
	struct lt_id *t = lt_of(life);
	int ret;

	lt_log(t->round, CB_START, t->idx, ev, 0);
	udelay(5); /* widen the window for overlapping callbacks */
	ret = t->ret_on[ev & 15] && claim_destroy(t);
	if (!ret && ev == XCMA_CM_EVENT_DEVICE_REMOVAL)
		atomic_set(&t->removal_ack, 1);
	lt_log(t->round, CB_END, t->idx, ev, ret);
	wake_up_all(&t->round->wq);
	return ret;
}

static void lt_cancel(struct xcma_life_id *life, unsigned int state)
{
	atomic_inc(&lt_of(life)->cancels);
}

static void lt_free(struct xcma_life_id *life)
{
	struct lt_id *t = lt_of(life);

	atomic_set(&t->freed, 1);
	wake_up_all(&t->round->wq);
}

static const struct xcma_life_id_ops lt_ops = {
	.event = lt_event,
	.cancel = lt_cancel,
	.free = lt_free,
};

static void lt_destroy(struct lt_id *t)
{
	lt_log(t->round, DESTROY_CALL, t->idx, 0, 0);
	WARN_ON(xcma_fsm_id_destroy(&t->life.fsm));
	lt_log(t->round, DESTROY_RET, t->idx, 0, 0);
}

struct lt_thread {
	struct lt_round *r;
	int (*fn)(struct lt_round *r, int arg);
	int arg;
	struct completion done;
};

static int lt_thread_fn(void *p)
{
	struct lt_thread *th = p;

	wait_for_completion(&th->r->start);
	th->fn(th->r, th->arg);
	complete(&th->done);
	return 0;
}

/* an event source holding a reference, like a queued work item */
static int run_source(struct lt_round *r, int arg)
{
	static const unsigned int ev[NIDS] = { XCMA_EV_ESTABLISHED,
					       XCMA_EV_ADDR_CHANGE,
					       XCMA_EV_ESTABLISHED };
	int ret = xcma_fsm_id_deliver(&r->ids[arg].life.fsm, ev[arg], 0,
				      XCMA_FSM_PUT_REF);

	WARN_ON(ret < 0);
	return 0;
}

static int run_destroy(struct lt_round *r, int arg)
{
	if (claim_destroy(&r->ids[arg]))
		lt_destroy(&r->ids[arg]);
	return 0;
}

static int run_remove(struct lt_round *r, int arg)
{
	xcma_life_dev_remove(&r->dev);
	lt_log(r, REMOVE_END, 0, 0, 0);
	return 0;
}

/* the user contract: an id that got DEVICE_REMOVAL is destroyed */
static int run_reap(struct lt_round *r, int arg)
{
	struct lt_id *t = &r->ids[arg];

	wait_event(r->wq, atomic_read(&t->removal_ack) ||
		   atomic_read(&t->destroy_started) ||
		   atomic_read(&t->freed));
	if (!atomic_read(&t->freed) && claim_destroy(t))
		lt_destroy(t);
	return 0;
}

static void lt_op(struct kunit *test, struct lt_id *t, unsigned int ev)
{
	KUNIT_ASSERT_EQ(test, xcma_fsm_id_transition(&t->life.fsm, ev), 0);
}

/* id 0 and 2 connected, id 1 bound; all on the round's device */
static void lt_setup(struct kunit *test, struct lt_round *r, int round)
{
	int i;

	xcma_life_ctx_init(&r->ctx, &lt_ops);
	KUNIT_ASSERT_EQ(test, xcma_life_dev_init_in(&r->dev, &r->ctx), 0);
	spin_lock_init(&r->lock);
	init_waitqueue_head(&r->wq);
	init_completion(&r->start);
	for (i = 0; i < NIDS; i++) {
		struct lt_id *t = &r->ids[i];

		t->round = r;
		t->idx = i;
		xcma_life_id_init(&t->life, &r->ctx);
		lt_op(test, t, XCMA_EV_BIND);
		KUNIT_ASSERT_EQ(test,
				xcma_fsm_id_attach(&t->life.fsm, &r->dev.fsm), 0);
		if (i == 1)
			continue;
		lt_op(test, t, XCMA_EV_RESOLVE_ADDR);
		KUNIT_ASSERT_EQ(test,
				xcma_fsm_id_deliver(&t->life.fsm,
						    XCMA_EV_ADDR_RESOLVED, 0, 0),
				XCMA_FSM_DELIVERED);
		lt_op(test, t, XCMA_EV_SET_IB_PATH);
		mutex_lock(&t->life.handler_mutex);
		lt_op(test, t, XCMA_EV_CONNECT);
		mutex_unlock(&t->life.handler_mutex);
	}
	r->nlog = 0; /* setup's own callbacks are not part of the race */

	/* vary who destroys the id by returning non-zero */
	r->ids[0].ret_on[XCMA_CM_EVENT_ESTABLISHED] = round % 3 == 0;
	r->ids[0].ret_on[XCMA_CM_EVENT_DEVICE_REMOVAL] = round % 3 == 1;
	r->ids[1].ret_on[XCMA_CM_EVENT_DEVICE_REMOVAL] = round % 2;
	r->ids[2].ret_on[XCMA_CM_EVENT_ESTABLISHED] = round % 4 == 1;
	for (i = 0; i < NIDS; i++)
		xcma_fsm_id_get(&r->ids[i].life.fsm); /* the sources' refs */
}

/*
 * G1: callbacks of an id never overlap. G2: none after its destroy
 * returned. G3: none after one returned non-zero. G4: at most one
 * DEVICE_REMOVAL, nothing after it, and exactly one unless the id was
 * being destroyed by then.
 */
static void lt_check_log(struct kunit *test, struct lt_round *r, int round)
{
	bool running[NIDS] = {}, destroyed[NIDS] = {}, nonzero[NIDS] = {};
	bool destroy_called[NIDS] = {};
	int notices[NIDS] = {};
	int i;

	KUNIT_ASSERT_LT(test, r->nlog, LOG_MAX);
	for (i = 0; i < r->nlog; i++) {
		struct lt_rec *e = &r->log[i];
		int id = e->id;

		switch (e->kind) {
		case CB_START:
			KUNIT_EXPECT_FALSE_MSG(test, running[id],
					       "G1 round %d id %d", round, id);
			KUNIT_EXPECT_FALSE_MSG(test, destroyed[id],
					       "G2 round %d id %d", round, id);
			KUNIT_EXPECT_FALSE_MSG(test, nonzero[id],
					       "G3 round %d id %d", round, id);
			KUNIT_EXPECT_EQ_MSG(test, notices[id], 0,
					    "G4 round %d id %d event %d", round,
					    id, e->event);
			if (e->event == XCMA_CM_EVENT_DEVICE_REMOVAL)
				notices[id]++;
			running[id] = true;
			break;
		case CB_END:
			running[id] = false;
			if (e->ret)
				nonzero[id] = true;
			break;
		case DESTROY_CALL:
			destroy_called[id] = true;
			break;
		case DESTROY_RET:
			KUNIT_EXPECT_FALSE_MSG(test, running[id],
					       "G2 round %d id %d", round, id);
			destroyed[id] = true;
			break;
		case REMOVE_END:
			for (id = 0; id < NIDS; id++)
				KUNIT_EXPECT_TRUE_MSG(test,
						      notices[id] == 1 ||
						      destroy_called[id] ||
						      nonzero[id],
					"G4 round %d id %d: no removal notice",
					round, id);
			break;
		}
	}
}

static void lt_round(struct kunit *test, int round)
{
	struct lt_thread *th;
	struct lt_round *r;
	int n = 0, i;

	/* on the heap: completions with lockdep maps overflow the stack */
	th = kunit_kcalloc(test, 2 * NIDS + 2, sizeof(*th), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, th);
	r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	lt_setup(test, r, round);

	for (i = 0; i < NIDS; i++)
		th[n++] = (struct lt_thread){ r, run_source, i };
	if (round & 1)
		th[n++] = (struct lt_thread){ r, run_destroy, 0 };
	th[n++] = (struct lt_thread){ r, run_remove, 0 };
	for (i = 0; i < NIDS; i++)
		th[n++] = (struct lt_thread){ r, run_reap, i };

	for (i = 0; i < n; i++) {
		struct task_struct *task;

		init_completion(&th[i].done);
		task = kthread_run(lt_thread_fn, &th[i], "xcma_lt%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	complete_all(&r->start);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_GT_MSG(test,
				    wait_for_completion_timeout(&th[i].done,
								30 * HZ),
				    0UL, "G6: round %d thread %d hangs", round,
				    i);

	lt_check_log(test, r, round);
	for (i = 0; i < NIDS; i++) {
		KUNIT_EXPECT_TRUE(test, atomic_read(&r->ids[i].freed));
		KUNIT_EXPECT_EQ(test, atomic_read(&r->ids[i].cancels), 1);
	}
	KUNIT_EXPECT_EQ(test, refcount_read(&r->dev.refcount), 0U);
	KUNIT_EXPECT_EQ(test, xcma_life_dev_state(&r->dev),
			(int)XCMA_DEV_REMOVED);
	KUNIT_EXPECT_TRUE(test, xcma_fsm_ctx_idle(&r->ctx.fsm));
}

/*
 * The rounds in batches, each a case of its own: the KUnit runner waits
 * for a case uninterruptibly, and one case of all 200 rounds took 16.6 s
 * on a slow host (52.6 s beside other VMs), near and past the boot's
 * hung-task bound of 20 s.
 */
static const void *races_gen(const void *prev, char *desc)
{
	unsigned long first = prev ? (unsigned long)prev + BATCH : 1;

	if (first > ROUNDS)
		return NULL;
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "rounds_%03lu_%03lu", first,
		 first + BATCH - 1);
	return (const void *)first;
}

/* destroy, events and removal racing, a batch of rounds */
static void lifecycle_races(struct kunit *test)
{
	int first = (unsigned long)test->param_value - 1;
	int round;

	for (round = first; round < first + BATCH; round++) {
		lt_round(test, round);
		if (test->status == KUNIT_FAILURE)
			break;
	}
}

/* table spot checks through the module's exported table */
static void lifecycle_table(struct kunit *test)
{
	unsigned int next;

	KUNIT_EXPECT_EQ(test, xcma_fsm_rule(XCMA_FSM_IDLE, XCMA_EV_BIND, &next),
			0);
	KUNIT_EXPECT_EQ(test, next, (unsigned int)XCMA_FSM_ADDR_BOUND);
	KUNIT_EXPECT_EQ(test,
			xcma_fsm_rule(XCMA_FSM_CONNECT, XCMA_EV_BIND, &next),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			xcma_fsm_rule(XCMA_FSM_IDLE, XCMA_EV_REQ_ON_LISTENER,
				      &next),
			-ECONNABORTED);
	KUNIT_EXPECT_EQ(test,
			xcma_fsm_rule(XCMA_FSM_DESTROYING, XCMA_EV_DESTROY,
				      &next),
			-EINVAL);
	KUNIT_EXPECT_STREQ(test, xcma_fsm_state_name(XCMA_FSM_DEVICE_REMOVAL),
			   "DEVICE_REMOVAL");
}

static struct kunit_case lifecycle_cases[] = {
	KUNIT_CASE(lifecycle_table),
	KUNIT_CASE_PARAM_ATTR(lifecycle_races, races_gen,
			      { .speed = KUNIT_SPEED_SLOW }),
	{}
};

static struct kunit_suite lifecycle_suite = {
	.name = "xcma_lifecycle",
	.init = xcma_kunit_sweep_init,
	.test_cases = lifecycle_cases,
};

kunit_test_suite(lifecycle_suite);
