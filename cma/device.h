/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RDMA devices as xcma sees them: struct xcma_device and device.c's
 * functions (the device list, acquiring a device for an id). Shared by
 * the C files and, in the test build, by the KUnit module (export.h).
 */
#ifndef XCMA_DEVICE_H
#define XCMA_DEVICE_H

#include <linux/list.h>
#include <linux/types.h>

#include "lifecycle.h"

struct ib_device;
struct xcma_id;
struct xcma_defaults;

#ifdef XCMA_SIDE_BY_SIDE
#define XCMA_MODE_NAME "side-by-side"
#else
#define XCMA_MODE_NAME "drop-in"
#endif

/**
 * struct xcma_device - xcma's record of one RDMA device
 * @ibdev: the device; valid until .remove for it returns
 * @life: lifecycle state and holders, owned by the library
 * @defaults: per-port defaults for new ids (defaults.h)
 */
struct xcma_device {
	struct ib_device *ibdev;
	struct xcma_life_dev life;
	struct xcma_defaults *defaults;
};

static inline struct xcma_device *xcma_device_of_life(struct xcma_life_dev *l)
{
	return container_of(l, struct xcma_device, life);
}

/* device.c: the ib_client */
int xcma_device_init(void);
void xcma_device_report_holder(struct xcma_life_dev *life,
			       struct xcma_life_id *l);
int xcma_device_acquire(struct xcma_id *xid);
int xcma_device_acquire_loopback(struct xcma_id *xid);
const struct ib_gid_attr *xcma_device_conn_gid(struct xcma_device *dev,
					       struct xcma_id *xid, u32 port);
int xcma_device_acquire_ib(struct xcma_id *xid, const union ib_gid *dgid,
			   u16 pkey, union ib_gid *sgid);
void xcma_device_exit(void);

/**
 * struct xcma_device_counters - what the ib_client has seen since load
 * @added: devices .add accepted
 * @removed: devices whose .remove ran to completion
 * @live: device records currently allocated
 */
struct xcma_device_counters {
	unsigned int added;
	unsigned int removed;
	unsigned int live;
};

void xcma_device_get_counters(struct xcma_device_counters *c);
int xcma_device_query(const char *name, int *state, unsigned int *holders);
int xcma_device_with(const char *name,
		     int (*fn)(struct xcma_device *dev, void *arg), void *arg);
struct xcma_device *xcma_device_of_id(struct xcma_id *xid);

#endif /* XCMA_DEVICE_H */
