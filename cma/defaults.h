/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Per-port defaults of a device for new ids: the RoCE GID type resolution
 * looks for and the TOS of a route whose user set none (configfs
 * rdma_cm/<dev>/ports/<n>/default_roce_{mode,tos}). See defaults.c.
 */
#ifndef XCMA_DEFAULTS_H
#define XCMA_DEFAULTS_H

#include <linux/types.h>

struct ib_device;

/**
 * struct xcma_port_defaults - one port's defaults
 * @gid_type: enum ib_gid_type (READ_ONCE/WRITE_ONCE: a byte, no lock)
 * @tos: default type of service (READ_ONCE/WRITE_ONCE)
 */
struct xcma_port_defaults {
	u8 gid_type;
	u8 tos;
};

/**
 * struct xcma_defaults - a device's defaults
 * @ibdev: the device
 * @port: one per port, from rdma_start_port()
 */
struct xcma_defaults {
	struct ib_device *ibdev;
	struct xcma_port_defaults port[];
};

struct xcma_defaults *xcma_defaults_alloc(struct ib_device *ibdev);
void xcma_defaults_free(struct xcma_defaults *defs);
int xcma_defaults_gid_type(struct xcma_defaults *defs, u32 port);
int xcma_defaults_set_gid_type(struct xcma_defaults *defs, u32 port,
			       int gid_type);
int xcma_defaults_tos(struct xcma_defaults *defs, u32 port);
int xcma_defaults_set_tos(struct xcma_defaults *defs, u32 port, u8 tos);
const char *xcma_defaults_gid_type_str(int gid_type);
int xcma_defaults_parse_gid_type(const char *buf);

#endif /* XCMA_DEFAULTS_H */
