// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The one way xcma subscribes to a notifier chain (netdevice events for
 * ADDR_CHANGE, netevents for UNREACHABLE): the workqueue the events are
 * handed to exists before the first event can come, and the subscription
 * ends before the workqueue does. Reclaim may need an RDMA connection to
 * make progress (NFS, iSER), so the workqueue is WQ_MEM_RECLAIM, as
 * in-tree.
 */
#include <linux/workqueue.h>

#include "notify.h"

/**
 * xcma_notify_start - create the workqueue, then subscribe
 * @n: the subscription, its @nb.notifier_call, @reg, @unreg, @wq_name and
 *	@ordered set
 *
 * Return: 0, -ENOMEM, or the errno of @reg.
 */
int xcma_notify_start(struct xcma_notify *n)
{
	int ret;

	if (n->ordered)
		n->wq = alloc_ordered_workqueue("%s", WQ_MEM_RECLAIM,
						n->wq_name);
	else
		n->wq = alloc_workqueue("%s", WQ_MEM_RECLAIM, 0, n->wq_name);
	if (!n->wq)
		return -ENOMEM;
	ret = n->reg(&n->nb);
	if (ret) {
		destroy_workqueue(n->wq);
		n->wq = NULL;
	}
	return ret;
}

/**
 * xcma_notify_stop - unsubscribe, then drain and destroy the workqueue
 * @n: a started subscription
 */
void xcma_notify_stop(struct xcma_notify *n)
{
	n->unreg(&n->nb);
	destroy_workqueue(n->wq);
	n->wq = NULL;
}
