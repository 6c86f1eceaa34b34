/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A single-threaded, recording platform for the unit tests. Locks are
 * flags that must never be taken twice; a wait that would block calls the
 * test's hook instead (standing in for the other thread), and fails the
 * test if the hook does not make progress.
 */
#ifndef XCMA_TEST_PLATFORM_HPP
#define XCMA_TEST_PLATFORM_HPP

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "xcma/fsm.h"

struct TId {
	xcma_fsm_id fsm;
	std::string name;
	bool lock = false;
	bool handler = false;
	unsigned refs = 1;
	bool freed = false;
	int cancels = 0;
	unsigned cancel_state = XCMA_FSM_NO_STATE;
	int releases = 0;
	int ret[16] = {};
	std::vector<unsigned> events;
	std::function<void(TId &, unsigned)> on_event;
};

/* a multicast group as the C side keeps one: linked on its id's groups */
struct TGroup {
	xcma_fsm_link link;
	int addr = 0;
	int drops = 0;
};

inline int tgroup_match(xcma_fsm_link *l, const void *arg)
{
	const TGroup *g = reinterpret_cast<const TGroup *>(l);

	return g->addr == *static_cast<const int *>(arg);
}

struct TDev {
	xcma_fsm_dev fsm;
	std::string name;
	bool lock = false;
	unsigned refs = 1;
	std::vector<std::string> reported;
};

struct TestWorld {
	xcma_fsm_ctx ctx;
	bool ctx_lock = false;
	std::vector<std::unique_ptr<TId>> ids;
	std::vector<std::unique_ptr<TDev>> devs;
	std::vector<TId *> child_pool;
	std::vector<std::string> bugs;
	/* xcma_plat_id_assert_handler_held() found the lock not held */
	std::vector<std::string> unheld;
	std::vector<std::string> log; /* "event <id> <cm_event>", "cancel ..." */
	/* a destroyer would sleep: play the other thread */
	std::function<void(TId &)> on_id_sleep;
	/* a remover would sleep: play the users; return 1 for a timeout */
	std::function<int(TDev &)> on_dev_sleep;
};

extern TestWorld *tw;

TId &tid(xcma_fsm_id *fsm);
TId &new_tid(const char *name);
TDev &new_tdev(const char *name, bool add = true);
TId &new_child_slot(const char *name);
/* the next device a listener meets gets no child (the platform skips it) */
void new_no_child_slot();

#endif /* XCMA_TEST_PLATFORM_HPP */
