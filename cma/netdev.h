/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* Netdev events for bound ids (ADDR_CHANGE). See netdev.c. */
#ifndef XCMA_NETDEV_H
#define XCMA_NETDEV_H

#include <linux/types.h>

struct net_device;

/**
 * struct xcma_netdev_scan - one scan of the ids for a netdev event
 * @ndev: the netdev whose address changed (set by the caller)
 * @queued: ids an event was queued for
 */
struct xcma_netdev_scan {
	struct net_device *ndev;
	unsigned int queued;
};

int xcma_netdev_addr_change(struct xcma_netdev_scan *scan);
bool xcma_netdev_event_wanted(unsigned long event, struct net_device *ndev);
void xcma_netdev_flush(void);
int xcma_netdev_init(void);
void xcma_netdev_exit(void);

#endif /* XCMA_NETDEV_H */
