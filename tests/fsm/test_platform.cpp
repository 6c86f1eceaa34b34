// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#include "test_platform.hpp"

#include <gtest/gtest.h>

TestWorld *tw;

TId &tid(xcma_fsm_id *fsm)
{
	for (auto &p : tw->ids)
		if (&p->fsm == fsm) {
			EXPECT_FALSE(p->freed) << p->name << " used after free";
			return *p;
		}
	ADD_FAILURE() << "unknown id";
	return *tw->ids.front();
}

static TDev &tdev(xcma_fsm_dev *fsm)
{
	for (auto &p : tw->devs)
		if (&p->fsm == fsm)
			return *p;
	ADD_FAILURE() << "unknown device";
	return *tw->devs.front();
}

TId &new_tid(const char *name)
{
	tw->ids.push_back(std::make_unique<TId>());
	TId &t = *tw->ids.back();
	t.name = name;
	xcma_fsm_id_init(&t.fsm, &tw->ctx);
	return t;
}

TId &new_child_slot(const char *name)
{
	TId &t = new_tid(name);
	tw->child_pool.push_back(&t);
	return t;
}

void new_no_child_slot()
{
	tw->child_pool.push_back(nullptr);
}

TDev &new_tdev(const char *name, bool add)
{
	tw->devs.push_back(std::make_unique<TDev>());
	TDev &d = *tw->devs.back();
	d.name = name;
	xcma_fsm_dev_init(&d.fsm, &tw->ctx);
	if (add) {
		EXPECT_EQ(xcma_fsm_dev_add(&d.fsm), 0);
	}
	return d;
}

extern "C" {

void xcma_plat_ctx_lock(xcma_fsm_ctx *)
{
	EXPECT_FALSE(tw->ctx_lock) << "ctx lock taken twice";
	tw->ctx_lock = true;
}

void xcma_plat_ctx_unlock(xcma_fsm_ctx *)
{
	EXPECT_TRUE(tw->ctx_lock);
	tw->ctx_lock = false;
}

void xcma_plat_id_lock(xcma_fsm_id *fsm)
{
	TId &t = tid(fsm);
	EXPECT_FALSE(t.lock) << t.name << ": id lock taken twice";
	t.lock = true;
}

void xcma_plat_id_unlock(xcma_fsm_id *fsm)
{
	TId &t = tid(fsm);
	EXPECT_TRUE(t.lock);
	t.lock = false;
}

void xcma_plat_id_handler_lock(xcma_fsm_id *fsm, int)
{
	TId &t = tid(fsm);
	EXPECT_FALSE(t.handler) << t.name << ": handler lock taken twice";
	t.handler = true;
}

void xcma_plat_id_handler_unlock(xcma_fsm_id *fsm)
{
	TId &t = tid(fsm);
	EXPECT_TRUE(t.handler);
	t.handler = false;
}

void xcma_plat_id_assert_handler_held(xcma_fsm_id *fsm)
{
	TId &t = tid(fsm);
	if (!t.handler)
		tw->unheld.push_back(t.name);
}

void xcma_plat_id_get(xcma_fsm_id *fsm)
{
	TId &t = tid(fsm);
	EXPECT_GT(t.refs, 0u);
	t.refs++;
}

void xcma_plat_id_put(xcma_fsm_id *fsm)
{
	TId &t = tid(fsm);
	EXPECT_GT(t.refs, 0u);
	t.refs--;
}

void xcma_plat_id_wait_unreferenced(xcma_fsm_id *fsm)
{
	TId &t = tid(fsm);
	while (t.refs) {
		unsigned before = t.refs;
		ASSERT_TRUE(tw->on_id_sleep) << t.name << ": destroy would hang";
		tw->on_id_sleep(t);
		ASSERT_LT(t.refs, before) << t.name << ": destroy would hang";
	}
}

void xcma_plat_dev_get(xcma_fsm_dev *fsm)
{
	TDev &d = tdev(fsm);
	EXPECT_GT(d.refs, 0u);
	d.refs++;
}

void xcma_plat_dev_put(xcma_fsm_dev *fsm)
{
	TDev &d = tdev(fsm);
	EXPECT_GT(d.refs, 0u);
	d.refs--;
}

/* a remover's sleep plays the users; a timeout (1) asks for the report */
void xcma_plat_dev_wait_released(xcma_fsm_dev *fsm)
{
	TDev &d = tdev(fsm);
	while (d.refs) {
		if (!tw->on_dev_sleep) {
			ADD_FAILURE() << d.name << ": removal would hang";
			d.refs = 0; /* give up waiting */
			return;
		}
		if (tw->on_dev_sleep(d))
			xcma_fsm_dev_report_holders(fsm);
	}
}

int xcma_plat_id_event(xcma_fsm_id *fsm, unsigned int ev, int)
{
	TId &t = tid(fsm);
	EXPECT_TRUE(t.handler) << t.name << ": callback without handler lock";
	t.events.push_back(ev);
	if (t.events.size() > 64) {
		/* a runaway delivery loop: fail, and stop it by returning 1 */
		ADD_FAILURE() << t.name << ": more than 64 events";
		return t.events.size() < 128 ? 1 : 0;
	}
	tw->log.push_back("event " + t.name + " " + std::to_string(ev));
	if (t.on_event)
		t.on_event(t, ev);
	return t.ret[ev & 15];
}

void xcma_plat_id_cancel(xcma_fsm_id *fsm, unsigned int state)
{
	TId &t = tid(fsm);
	t.cancels++;
	t.cancel_state = state;
	tw->log.push_back("cancel " + t.name + " " +
			  xcma_fsm_state_name(state));
}

void xcma_plat_id_group_drop(xcma_fsm_id *fsm, xcma_fsm_link *l)
{
	TGroup *g = reinterpret_cast<TGroup *>(l);

	EXPECT_FALSE(tid(fsm).lock) << "group dropped under the id lock";
	g->drops++;
	tw->log.push_back("drop " + tid(fsm).name + " " +
			  std::to_string(g->addr));
}

void xcma_plat_id_release_dev(xcma_fsm_id *fsm, xcma_fsm_dev *dfsm)
{
	TId &t = tid(fsm);
	t.releases++;
	tw->log.push_back("release " + t.name + " " + tdev(dfsm).name);
}

void xcma_plat_id_free(xcma_fsm_id *fsm)
{
	TId &t = tid(fsm);
	EXPECT_EQ(t.refs, 0u);
	EXPECT_FALSE(t.lock || t.handler) << t.name << " freed locked";
	tw->log.push_back("free " + t.name);
	t.freed = true;
}

int xcma_plat_listen_child(xcma_fsm_id *, xcma_fsm_dev *,
			   xcma_fsm_id **child)
{
	EXPECT_TRUE(tw->ctx_lock);
	if (tw->child_pool.empty())
		return -12; /* -ENOMEM */
	TId *c = tw->child_pool.front();
	tw->child_pool.erase(tw->child_pool.begin());
	if (c) /* else: no child on this device */
		*child = &c->fsm;
	return 0;
}

void xcma_plat_dev_report_holder(xcma_fsm_dev *dfsm, xcma_fsm_id *fsm)
{
	tdev(dfsm).reported.push_back(tid(fsm).name);
}

void xcma_plat_bug(const char *what)
{
	tw->bugs.push_back(what);
}

} /* extern "C" */
