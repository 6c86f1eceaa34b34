// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The in-tree CM's configfs tree, for xcma's devices:
 *   <subsys>/<dev>/ports/<n>/default_roce_mode   "RoCE v2" | "IB/RoCE v1"
 *   <subsys>/<dev>/ports/<n>/default_roce_tos    0..255
 * <subsys> is rdma_cm in drop-in mode, xcma side by side (so that it never
 * clashes with the in-tree one). mkdir <dev> fails with -ENODEV for a
 * device xcma does not have; the directory outlives the device (reads and
 * writes then fail with -ENODEV), and values go with the device, as
 * in-tree. The values live in defaults.c; this is only their interface.
 */
#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "configfs.h"
#include "defaults.h"
#include "device.h"

#ifdef XCMA_SIDE_BY_SIDE
#define SUBSYS_NAME "xcma"
#else
#define SUBSYS_NAME "rdma_cm"
#endif

struct port_group {
	u32 port;
	struct dev_group *dg;
	struct config_group group;
};

/**
 * struct dev_group - <subsys>/<dev>
 * @name: the device's name, looked up at every access
 * @group: the directory
 * @ports_group: its ports/
 * @ports: one per port, allocated at mkdir
 */
struct dev_group {
	char name[IB_DEVICE_NAME_MAX];
	struct config_group group;
	struct config_group ports_group;
	struct port_group *ports;
};

static struct port_group *to_port_group(struct config_item *item)
{
	return container_of(to_config_group(item), struct port_group, group);
}

/* a read or a write of one port's value, done under devices_lock */
struct port_access {
	u32 port;
	const char *in;
	int value;
};

static int get_mode(struct xcma_device *dev, void *arg)
{
	struct port_access *a = arg;

	a->value = xcma_defaults_gid_type(dev->defaults, a->port);
	return a->value < 0 ? a->value : 0;
}

static int set_mode(struct xcma_device *dev, void *arg)
{
	struct port_access *a = arg;

	return xcma_defaults_set_gid_type(dev->defaults, a->port, a->value);
}

static int get_tos(struct xcma_device *dev, void *arg)
{
	struct port_access *a = arg;

	a->value = xcma_defaults_tos(dev->defaults, a->port);
	return a->value < 0 ? a->value : 0;
}

static int set_tos(struct xcma_device *dev, void *arg)
{
	struct port_access *a = arg;

	return xcma_defaults_set_tos(dev->defaults, a->port, a->value);
}

static ssize_t default_roce_mode_show(struct config_item *item, char *buf)
{
	struct port_group *pg = to_port_group(item);
	struct port_access a = { .port = pg->port };
	int ret = xcma_device_with(pg->dg->name, get_mode, &a);

	if (ret)
		return ret;
	return sysfs_emit(buf, "%s\n", xcma_defaults_gid_type_str(a.value));
}

static ssize_t default_roce_mode_store(struct config_item *item,
				       const char *buf, size_t count)
{
	struct port_group *pg = to_port_group(item);
	struct port_access a = { .port = pg->port };
	int ret;

	/* the in-tree order: the device first, then the value */
	ret = xcma_device_with(pg->dg->name, get_mode, &a);
	if (ret)
		return ret;
	a.value = xcma_defaults_parse_gid_type(buf);
	if (a.value < 0)
		return -EINVAL;
	ret = xcma_device_with(pg->dg->name, set_mode, &a);
	return ret ? ret : strnlen(buf, count);
}

CONFIGFS_ATTR(, default_roce_mode);

static ssize_t default_roce_tos_show(struct config_item *item, char *buf)
{
	struct port_group *pg = to_port_group(item);
	struct port_access a = { .port = pg->port };
	int ret = xcma_device_with(pg->dg->name, get_tos, &a);

	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", a.value);
}

static ssize_t default_roce_tos_store(struct config_item *item,
				      const char *buf, size_t count)
{
	struct port_group *pg = to_port_group(item);
	struct port_access a = { .port = pg->port };
	u8 tos;
	int ret;

	/* the in-tree order: the value first, then the device */
	ret = kstrtou8(buf, 0, &tos);
	if (ret)
		return ret;
	a.value = tos;
	ret = xcma_device_with(pg->dg->name, set_tos, &a);
	return ret ? ret : strnlen(buf, count);
}

CONFIGFS_ATTR(, default_roce_tos);

static struct configfs_attribute *port_attrs[] = {
	&attr_default_roce_mode,
	&attr_default_roce_tos,
	NULL,
};

static const struct config_item_type port_type = {
	.ct_attrs = port_attrs,
	.ct_owner = THIS_MODULE,
};

static void ports_release(struct config_item *item)
{
	struct dev_group *dg = container_of(to_config_group(item),
					    struct dev_group, ports_group);

	kfree(dg->ports);
	dg->ports = NULL;
}

static struct configfs_item_operations ports_item_ops = {
	.release = ports_release,
};

static const struct config_item_type ports_type = {
	.ct_item_ops = &ports_item_ops,
	.ct_owner = THIS_MODULE,
};

static void dev_release(struct config_item *item)
{
	kfree(container_of(to_config_group(item), struct dev_group, group));
}

static struct configfs_item_operations dev_item_ops = {
	.release = dev_release,
};

static const struct config_item_type dev_type = {
	.ct_item_ops = &dev_item_ops,
	.ct_owner = THIS_MODULE,
};

static int count_ports(struct xcma_device *dev, void *arg)
{
	*(u32 *)arg = dev->ibdev->phys_port_cnt;
	return 0;
}

static struct config_group *make_dev(struct config_group *parent,
				     const char *name)
{
	struct dev_group *dg;
	u32 nports = 0, i;
	int ret;

	ret = xcma_device_with(name, count_ports, &nports);
	if (ret)
		return ERR_PTR(ret);
	dg = kzalloc(sizeof(*dg), GFP_KERNEL);
	if (!dg)
		return ERR_PTR(-ENOMEM);
	dg->ports = kcalloc(nports, sizeof(*dg->ports), GFP_KERNEL);
	if (!dg->ports) {
		kfree(dg);
		return ERR_PTR(-ENOMEM);
	}
	strscpy(dg->name, name, sizeof(dg->name));
	config_group_init_type_name(&dg->ports_group, "ports", &ports_type);
	for (i = 0; i < nports; i++) {
		char port[11];

		dg->ports[i].port = i + 1;
		dg->ports[i].dg = dg;
		snprintf(port, sizeof(port), "%u", i + 1);
		config_group_init_type_name(&dg->ports[i].group, port,
					    &port_type);
		configfs_add_default_group(&dg->ports[i].group,
					   &dg->ports_group);
	}
	config_group_init_type_name(&dg->group, name, &dev_type);
	configfs_add_default_group(&dg->ports_group, &dg->group);
	return &dg->group;
}

static void drop_dev(struct config_group *parent, struct config_item *item)
{
	struct dev_group *dg = container_of(to_config_group(item),
					    struct dev_group, group);

	configfs_remove_default_groups(&dg->ports_group);
	configfs_remove_default_groups(&dg->group);
	config_item_put(item);
}

static struct configfs_group_operations subsys_ops = {
	.make_group = make_dev,
	.drop_item = drop_dev,
};

static const struct config_item_type subsys_type = {
	.ct_group_ops = &subsys_ops,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = SUBSYS_NAME,
			.ci_type = &subsys_type,
		},
	},
};

int xcma_configfs_init(void)
{
	config_group_init(&subsys.su_group);
	mutex_init(&subsys.su_mutex);
	return configfs_register_subsystem(&subsys);
}

void xcma_configfs_exit(void)
{
	configfs_unregister_subsystem(&subsys);
}
