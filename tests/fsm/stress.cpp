// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Real-thread stress test of the library on a pthread platform, built with
 * ThreadSanitizer. Each round races event sources (one returning non-zero
 * in some rounds), a user destroy, a connect request, device removal and
 * the destroy of a wildcard listener, then checks G1-G4 and G8 from
 * per-id counters. TSan checks the library for data races.
 */
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "xcma/fsm.h"

namespace
{

std::atomic<int> failures{ 0 };
std::atomic<int> refused_reqs{ 0 }; /* requests refused at delivery */

#define CHECK(cond, ...)                                             \
	do {                                                         \
		if (!(cond)) {                                       \
			if (failures.fetch_add(1) < 10) {            \
				fprintf(stderr, "FAIL %s:%d: ", __FILE__, \
					__LINE__);                   \
				fprintf(stderr, __VA_ARGS__);        \
				fprintf(stderr, "\n");               \
			}                                            \
		}                                                    \
	} while (0)

/* struct completion: complete() under the lock the waiter returns through */
struct Completion {
	std::mutex m;
	std::condition_variable cv;
	bool done = false;

	void complete()
	{
		std::lock_guard<std::mutex> g(m);
		done = true;
		cv.notify_all();
	}
	void wait()
	{
		std::unique_lock<std::mutex> g(m);
		cv.wait(g, [&] { return done; });
	}
};

struct PId {
	xcma_fsm_id fsm;
	const char *name = "";
	std::mutex lock;
	std::mutex handler;
	std::atomic<std::thread::id> owner{};
	std::atomic<unsigned> refs{ 1 };
	Completion unreferenced;
	int ret_on[16] = {};
	bool child = false;
	std::atomic<bool> used{ false };
	std::atomic<int> running{ 0 };
	std::atomic<int> notices{ 0 };
	std::atomic<int> events{ 0 };
	std::atomic<int> cancels{ 0 };
	std::atomic<bool> freed{ false };
	std::atomic<bool> destroy_started{ false };
	std::atomic<bool> destroy_returned{ false };
	std::atomic<bool> nonzero{ false };
	std::atomic<bool> removal_ack{ false };
	std::atomic<bool> refused{ false };
};

struct PDev {
	xcma_fsm_dev fsm;
	std::atomic<unsigned> refs{ 1 };
	Completion released;
	std::atomic<bool> removed{ false };
};

std::mutex ctx_mutex;
xcma_fsm_ctx ctx;
std::vector<PId *> child_pool; /* ctx lock */

PId &of(xcma_fsm_id *f)
{
	return *reinterpret_cast<PId *>(f);
}

PDev &of(xcma_fsm_dev *f)
{
	return *reinterpret_cast<PDev *>(f);
}

bool claim_destroy(PId &p)
{
	bool no = false;
	return p.destroy_started.compare_exchange_strong(no, true);
}

void user_destroy(PId &p)
{
	CHECK(xcma_fsm_id_destroy(&p.fsm) == 0, "%s: destroy failed", p.name);
	CHECK(p.freed.load(), "G2: %s not released by destroy", p.name);
	CHECK(p.running.load() == 0, "G2: %s callback runs after destroy",
	      p.name);
	p.destroy_returned = true;
}

void reap(PId &p)
{
	while (!p.freed && !p.destroy_started &&
	       !(p.used && p.removal_ack))
		std::this_thread::yield();
	if (!p.freed && claim_destroy(p))
		user_destroy(p);
}

} /* namespace */

extern "C" {

void xcma_plat_ctx_lock(xcma_fsm_ctx *)
{
	ctx_mutex.lock();
}
void xcma_plat_ctx_unlock(xcma_fsm_ctx *)
{
	ctx_mutex.unlock();
}
void xcma_plat_id_lock(xcma_fsm_id *f)
{
	of(f).lock.lock();
}
void xcma_plat_id_unlock(xcma_fsm_id *f)
{
	of(f).lock.unlock();
}
void xcma_plat_id_handler_lock(xcma_fsm_id *f, int)
{
	of(f).handler.lock();
	of(f).owner = std::this_thread::get_id();
}
void xcma_plat_id_handler_unlock(xcma_fsm_id *f)
{
	of(f).owner = std::thread::id();
	of(f).handler.unlock();
}
void xcma_plat_id_assert_handler_held(xcma_fsm_id *f)
{
	CHECK(of(f).owner.load() == std::this_thread::get_id(),
	      "%s: handler lock not held", of(f).name);
}
void xcma_plat_id_get(xcma_fsm_id *f)
{
	CHECK(of(f).refs.fetch_add(1) > 0, "get on a dead id");
}
void xcma_plat_id_put(xcma_fsm_id *f)
{
	if (of(f).refs.fetch_sub(1) == 1)
		of(f).unreferenced.complete();
}
void xcma_plat_id_wait_unreferenced(xcma_fsm_id *f)
{
	of(f).unreferenced.wait();
}
void xcma_plat_dev_get(xcma_fsm_dev *f)
{
	CHECK(of(f).refs.fetch_add(1) > 0, "get on a released device");
}
void xcma_plat_dev_put(xcma_fsm_dev *f)
{
	if (of(f).refs.fetch_sub(1) == 1)
		of(f).released.complete();
}
void xcma_plat_dev_wait_released(xcma_fsm_dev *f)
{
	of(f).released.wait();
}

int xcma_plat_id_event(xcma_fsm_id *f, unsigned int ev, int)
{
	PId &p = of(f);

	CHECK(!p.child, "G7: event %u on internal child", ev);
	CHECK(p.running.fetch_add(1) == 0, "G1: %s: two callbacks", p.name);
	CHECK(!p.destroy_returned && !p.nonzero, "G2/G3: %s: late event %u",
	      p.name, ev);
	CHECK(p.notices.load() == 0, "G4: %s: event %u after removal",
	      p.name, ev);
	if (ev == XCMA_CM_EVENT_DEVICE_REMOVAL)
		p.notices++;
	p.events++;
	std::this_thread::yield();
	int ret = p.ret_on[ev & 15] && claim_destroy(p);
	if (!ret && ev == XCMA_CM_EVENT_DEVICE_REMOVAL)
		p.removal_ack = true;
	p.running--;
	if (ret)
		p.nonzero = true;
	return ret;
}
void xcma_plat_id_cancel(xcma_fsm_id *f, unsigned int)
{
	CHECK(of(f).cancels.fetch_add(1) == 0, "%s cancelled twice",
	      of(f).name);
}
void xcma_plat_id_group_drop(xcma_fsm_id *, xcma_fsm_link *)
{
	CHECK(false, "%s", "no scenario here joins a group");
}
void xcma_plat_id_release_dev(xcma_fsm_id *, xcma_fsm_dev *d)
{
	CHECK(!of(d).removed, "G5: device touched after removal");
}
void xcma_plat_id_free(xcma_fsm_id *f)
{
	PId &p = of(f);
	CHECK(p.refs.load() == 0, "G8: %s freed with references", p.name);
	CHECK(p.cancels.load() == 1, "%s freed after %d cancels", p.name,
	      p.cancels.load());
	p.freed = true;
}
int xcma_plat_listen_child(xcma_fsm_id *, xcma_fsm_dev *,
			   xcma_fsm_id **child)
{
	if (child_pool.empty())
		return -12; /* -ENOMEM */
	PId *c = child_pool.back();
	child_pool.pop_back();
	c->child = true;
	c->used = true;
	xcma_fsm_id_init(&c->fsm, &ctx);
	*child = &c->fsm;
	return 0;
}
void xcma_plat_dev_report_holder(xcma_fsm_dev *, xcma_fsm_id *)
{
}
void xcma_plat_bug(const char *what)
{
	CHECK(false, "library bug check: %s", what);
}

} /* extern "C" */

namespace
{

PId *make(std::vector<std::unique_ptr<PId>> &all, const char *name)
{
	all.push_back(std::make_unique<PId>());
	PId *p = all.back().get();
	p->name = name;
	p->used = true;
	xcma_fsm_id_init(&p->fsm, &ctx);
	return p;
}

void op(PId *p, unsigned ev)
{
	CHECK(xcma_fsm_id_transition(&p->fsm, ev) == 0, "%s: %s", p->name,
	      xcma_fsm_event_name(ev));
}

void round(unsigned r)
{
	std::vector<std::unique_ptr<PId>> all;
	PDev d;

	xcma_fsm_dev_init(&d.fsm, &ctx);
	CHECK(xcma_fsm_dev_add(&d.fsm) == 0, "dev_add");
	PId *c0 = make(all, "child");
	c0->used = false;
	child_pool.assign(1, c0);

	PId *l = make(all, "L");
	op(l, XCMA_EV_BIND);
	CHECK(xcma_fsm_id_listen(&l->fsm) == 0, "listen");

	PId *a = make(all, "a"); /* connected */
	op(a, XCMA_EV_BIND);
	CHECK(xcma_fsm_id_attach(&a->fsm, &d.fsm) == 0, "attach a");
	op(a, XCMA_EV_RESOLVE_ADDR);
	CHECK(xcma_fsm_id_deliver(&a->fsm, XCMA_EV_ADDR_RESOLVED, 0, 0) ==
		      XCMA_FSM_DELIVERED,
	      "a resolved");
	op(a, XCMA_EV_SET_IB_PATH);
	xcma_plat_id_handler_lock(&a->fsm, 0);
	op(a, XCMA_EV_CONNECT);
	xcma_plat_id_handler_unlock(&a->fsm);
	a->events = 0;

	PId *b = make(all, "b"); /* resolving */
	op(b, XCMA_EV_BIND);
	CHECK(xcma_fsm_id_attach(&b->fsm, &d.fsm) == 0, "attach b");
	op(b, XCMA_EV_RESOLVE_ADDR);

	PId *conn = make(all, "conn");
	conn->used = false;

	/* vary who destroys by return */
	a->ret_on[XCMA_CM_EVENT_ESTABLISHED] = r % 3 == 0;
	a->ret_on[XCMA_CM_EVENT_DEVICE_REMOVAL] = r % 3 == 1;
	b->ret_on[XCMA_CM_EVENT_ADDR_RESOLVED] = r % 4 == 0;
	b->ret_on[XCMA_CM_EVENT_DEVICE_REMOVAL] = r % 2;
	conn->ret_on[XCMA_CM_EVENT_CONNECT_REQUEST] = r % 5 == 0;

	xcma_fsm_id_get(&a->fsm);
	xcma_fsm_id_get(&a->fsm);
	xcma_fsm_id_get(&b->fsm);
	xcma_fsm_id_get(&c0->fsm); /* a REQ in flight in ib_cm */

	std::vector<std::thread> t;
	t.emplace_back([&] {
		int v = xcma_fsm_id_deliver(&a->fsm, XCMA_EV_ESTABLISHED, 0,
					    XCMA_FSM_PUT_REF);
		CHECK(v >= 0, "deliver a");
	});
	t.emplace_back([&] {
		int v = xcma_fsm_id_deliver(&a->fsm, XCMA_EV_ADDR_CHANGE, 0,
					    XCMA_FSM_PUT_REF);
		CHECK(v >= 0, "deliver a");
	});
	t.emplace_back([&] {
		int v = xcma_fsm_id_deliver(&b->fsm, XCMA_EV_ADDR_RESOLVED, 0,
					    XCMA_FSM_PUT_REF);
		CHECK(v >= 0, "deliver b");
	});
	t.emplace_back([&] {
		conn->used = true;
		int v = xcma_fsm_id_deliver_req(&c0->fsm, &conn->fsm, 0);
		CHECK(v >= 0 || v == -XCMA_ECONNABORTED || v == -XCMA_ENODEV,
		      "deliver_req: %d", v);
		/*
		 * A request refused because the listener or the device is
		 * going never reaches the user: conn is the library's to
		 * free, no callback of it may have run, and G4 (which is
		 * about ids the user holds) does not apply to it.
		 */
		if (v < 0) {
			CHECK(conn->events == 0, "refused conn saw %d events",
			      conn->events.load());
			conn->refused = true;
			refused_reqs++;
		}
		xcma_fsm_id_put(&c0->fsm);
	});
	t.emplace_back([&] {
		if (r & 1 && claim_destroy(*a))
			user_destroy(*a);
	});
	t.emplace_back([&] {
		xcma_fsm_dev_remove(&d.fsm);
		CHECK(d.refs.load() == 0, "G5: removal returned early");
		d.removed = true;
	});
	t.emplace_back([&] {
		if (claim_destroy(*l))
			user_destroy(*l);
	});
	t.emplace_back([&] { reap(*a); });
	t.emplace_back([&] { reap(*b); });
	t.emplace_back([&] { reap(*conn); });
	for (auto &th : t)
		th.join();

	for (auto &p : all) {
		if (!p->used)
			continue;
		CHECK(p->freed, "G8: %s not freed", p->name);
		CHECK(p->notices <= 1, "G4: %s: %d removals", p->name,
		      p->notices.load());
		CHECK(p->notices == 1 || p->destroy_started || p->child ||
			      p->refused,
		      "G4: %s missed DEVICE_REMOVAL", p->name);
	}
	CHECK(xcma_fsm_ctx_idle(&ctx), "G8: ctx not idle");
}

} /* namespace */

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? atoi(argv[1]) : 300;

	xcma_fsm_ctx_init(&ctx);
	for (unsigned r = 0; r < rounds && !failures; r++)
		round(r);
	printf("stress: %u rounds, %d failures (%d connect requests refused "
	       "at delivery)\n",
	       rounds, failures.load(), refused_reqs.load());
	return failures ? 1 : 0;
}
