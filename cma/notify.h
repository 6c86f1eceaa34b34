/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A notifier chain subscription with the workqueue its events are passed
 * to, started and stopped as one. See notify.c.
 */
#ifndef XCMA_NOTIFY_H
#define XCMA_NOTIFY_H

#include <linux/notifier.h>
#include <linux/types.h>

struct workqueue_struct;

/**
 * struct xcma_notify - a subscription and its workqueue
 * @nb: the notifier block; the owner sets @nb.notifier_call
 * @reg: the chain's register function (register_netevent_notifier(), ...)
 * @unreg: its unregister function
 * @wq_name: the workqueue's name
 * @ordered: one work item at a time, in queueing order
 * @wq: the workqueue, valid between xcma_notify_start() and
 *	xcma_notify_stop(); already there when the first event comes
 */
struct xcma_notify {
	struct notifier_block nb;
	int (*reg)(struct notifier_block *nb);
	int (*unreg)(struct notifier_block *nb);
	const char *wq_name;
	bool ordered;
	struct workqueue_struct *wq;
};

int xcma_notify_start(struct xcma_notify *n);
void xcma_notify_stop(struct xcma_notify *n);

#endif /* XCMA_NOTIFY_H */
