// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Per-port defaults for new ids, with the in-tree CM's rules: RoCE v2
 * where the port has it (else the first GID type it supports), TOS 0;
 * a GID type is accepted only if the port supports it, "IB/RoCE v1"
 * meaning RoCE v1 on a RoCE port. They go with the device: a device added
 * again starts from the defaults.
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "export.h"
#include "defaults.h"

/* the GID types a port can resolve with (ib_core's own rule) */
static unsigned long gid_types(struct ib_device *ibdev, u32 port)
{
	unsigned long mask = 0;

	if (!rdma_protocol_roce(ibdev, port))
		return BIT(IB_GID_TYPE_IB);
	if (rdma_protocol_roce_eth_encap(ibdev, port))
		mask |= BIT(IB_GID_TYPE_ROCE);
	if (rdma_protocol_roce_udp_encap(ibdev, port))
		mask |= BIT(IB_GID_TYPE_ROCE_UDP_ENCAP);
	return mask;
}

/**
 * xcma_defaults_alloc - the defaults of a device that is being added
 * @ibdev: the device
 *
 * Return: its defaults, one per port, or NULL for want of memory.
 */
struct xcma_defaults *xcma_defaults_alloc(struct ib_device *ibdev)
{
	struct xcma_defaults *defs;
	unsigned long mask;
	u32 port;

	defs = kzalloc(struct_size(defs, port, ibdev->phys_port_cnt),
		       GFP_KERNEL);
	if (!defs)
		return NULL;
	defs->ibdev = ibdev;
	rdma_for_each_port(ibdev, port) {
		struct xcma_port_defaults *d =
			&defs->port[port - rdma_start_port(ibdev)];

		mask = gid_types(ibdev, port);
		if (mask & BIT(IB_GID_TYPE_ROCE_UDP_ENCAP))
			d->gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP;
		else
			d->gid_type = mask ? __ffs(mask) : IB_GID_TYPE_IB;
	}
	return defs;
}

/**
 * xcma_defaults_free - free them with the device
 * @defs: from xcma_defaults_alloc(), or NULL
 */
void xcma_defaults_free(struct xcma_defaults *defs)
{
	kfree(defs);
}

static struct xcma_port_defaults *port_defaults(struct xcma_defaults *defs,
						u32 port)
{
	if (!rdma_is_port_valid(defs->ibdev, port))
		return NULL;
	return &defs->port[port - rdma_start_port(defs->ibdev)];
}

/**
 * xcma_defaults_gid_type - the GID type new ids on @port resolve with
 * @defs: the device's defaults
 * @port: its port
 *
 * Return: enum ib_gid_type, or -EINVAL for a port the device lacks.
 */
int xcma_defaults_gid_type(struct xcma_defaults *defs, u32 port)
{
	struct xcma_port_defaults *d = port_defaults(defs, port);

	return d ? READ_ONCE(d->gid_type) : -EINVAL;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_defaults_gid_type);

/**
 * xcma_defaults_set_gid_type - change it
 * @defs: the device's defaults
 * @port: its port
 * @gid_type: enum ib_gid_type; IB on a RoCE v1 port means RoCE v1
 *
 * Return: 0; -EINVAL for a port the device lacks or a type it does not
 * support.
 */
int xcma_defaults_set_gid_type(struct xcma_defaults *defs, u32 port,
			       int gid_type)
{
	struct xcma_port_defaults *d = port_defaults(defs, port);

	if (!d || gid_type < 0 || gid_type >= BITS_PER_LONG)
		return -EINVAL;
	if (gid_type == IB_GID_TYPE_IB &&
	    rdma_protocol_roce_eth_encap(defs->ibdev, port))
		gid_type = IB_GID_TYPE_ROCE;
	if (!(gid_types(defs->ibdev, port) & BIT(gid_type)))
		return -EINVAL;
	WRITE_ONCE(d->gid_type, gid_type);
	return 0;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_defaults_set_gid_type);

/**
 * xcma_defaults_tos - the TOS of routes whose user set none
 * @defs: the device's defaults
 * @port: its port
 *
 * Return: the TOS, or -EINVAL for a port the device lacks.
 */
int xcma_defaults_tos(struct xcma_defaults *defs, u32 port)
{
	struct xcma_port_defaults *d = port_defaults(defs, port);

	return d ? READ_ONCE(d->tos) : -EINVAL;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_defaults_tos);

/**
 * xcma_defaults_set_tos - change it
 * @defs: the device's defaults
 * @port: its port
 * @tos: any value
 *
 * Return: 0, or -EINVAL for a port the device lacks.
 */
int xcma_defaults_set_tos(struct xcma_defaults *defs, u32 port, u8 tos)
{
	struct xcma_port_defaults *d = port_defaults(defs, port);

	if (!d)
		return -EINVAL;
	WRITE_ONCE(d->tos, tos);
	return 0;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_defaults_set_tos);

/*
 * The names configfs shows and takes, as ib_core spells them: IB and RoCE
 * v1 share one (parsing it gives IB, which a RoCE v1 port takes as v1).
 */
static const char *const gid_type_names[] = {
	[IB_GID_TYPE_IB] = "IB/RoCE v1",
	[IB_GID_TYPE_ROCE] = "IB/RoCE v1",
	[IB_GID_TYPE_ROCE_UDP_ENCAP] = "RoCE v2",
};

const char *xcma_defaults_gid_type_str(int gid_type)
{
	if (gid_type >= 0 && gid_type < ARRAY_SIZE(gid_type_names) &&
	    gid_type_names[gid_type])
		return gid_type_names[gid_type];
	return "Invalid GID type";
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_defaults_gid_type_str);

/**
 * xcma_defaults_parse_gid_type - a name, one trailing newline allowed
 * @buf: what was written
 *
 * Return: enum ib_gid_type, or -EINVAL.
 */
int xcma_defaults_parse_gid_type(const char *buf)
{
	size_t len = strlen(buf);
	int i;

	if (len && buf[len - 1] == '\n')
		len--;
	if (!len)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(gid_type_names); i++)
		if (gid_type_names[i] && strlen(gid_type_names[i]) == len &&
		    !strncmp(buf, gid_type_names[i], len))
			return i;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_defaults_parse_gid_type);
