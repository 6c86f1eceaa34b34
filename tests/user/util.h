/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the librdmacm test programs share. Define PROG (the program's
 * name, a string literal) before including it.
 */
#ifndef XCMA_USER_UTIL_H
#define XCMA_USER_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_cma.h>

#define die(...) do { fprintf(stderr, PROG ": " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

/* the channel's next event, which must be TYPE (acknowledged by the caller) */
static inline struct rdma_cm_event *expect(struct rdma_event_channel *ch,
					   enum rdma_cm_event_type type)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event: %s", strerror(errno));
	if (ev->event != type)
		die("event %s (status %d), expected %s", rdma_event_str(ev->event),
		    ev->status, rdma_event_str(type));
	return ev;
}

#endif
