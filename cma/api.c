// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Stateless parts of the rdma_cm API.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <rdma/rdma_cm.h>

static const char *const event_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "address resolved",
	[RDMA_CM_EVENT_ADDR_ERROR] = "address error",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "route resolved ",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "route error",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "connect request",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "connect response",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "connect error",
	[RDMA_CM_EVENT_UNREACHABLE] = "unreachable",
	[RDMA_CM_EVENT_REJECTED] = "rejected",
	[RDMA_CM_EVENT_ESTABLISHED] = "established",
	[RDMA_CM_EVENT_DISCONNECTED] = "disconnected",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "device removal",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "multicast join",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "multicast error",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "address change",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "timewait exit",
};

/**
 * rdma_event_msg - name of a CM event, for logs
 * @event: the event
 *
 * Returns the same strings as the in-tree CM (tools match on them),
 * "unrecognized event" for values outside the enum.
 */
const char *__attribute_const__ rdma_event_msg(enum rdma_cm_event_type event)
{
	size_t index = event;

	return index < ARRAY_SIZE(event_names) && event_names[index] ?
		       event_names[index] :
		       "unrecognized event";
}
EXPORT_SYMBOL(rdma_event_msg);
