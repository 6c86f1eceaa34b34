// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The ib_client: one struct xcma_device per RDMA device, created by .add
 * and torn down by .remove. Whether a device is usable, who holds it and
 * when removal may finish are decided by the lifecycle library (fsm); this
 * file allocates, lists, waits where the library says so, and frees.
 */
#include <linux/debugfs.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "xcma.h"
#include "lifecycle.h"

/*
 * devices_lock protects the devices list and the counters. Lock order:
 * devices_lock, then a device's fsm locks (lifecycle.c).
 */
static DEFINE_MUTEX(devices_lock);
static LIST_HEAD(devices);
static struct xcma_device_counters counters;
static struct dentry *debug_dir;

/**
 * struct xcma_device - xcma's record of one RDMA device
 * @ibdev: the device; valid until .remove for it returns
 * @list: entry in devices (protected by devices_lock)
 * @life: lifecycle state and holders, owned by the library
 */
struct xcma_device {
	struct ib_device *ibdev;
	struct list_head list;
	struct xcma_life_dev life;
};

static struct ib_client xcma_client;

static int add_one(struct ib_device *ibdev)
{
	struct xcma_device *dev;
	int ret;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	dev->ibdev = ibdev;
	/* visible to wildcard listeners from here; on error already removed */
	ret = xcma_life_dev_init(&dev->life);
	if (ret) {
		kfree(dev);
		return ret;
	}

	mutex_lock(&devices_lock);
	list_add_tail(&dev->list, &devices);
	counters.added++;
	counters.live++;
	mutex_unlock(&devices_lock);

	ib_set_client_data(ibdev, &xcma_client, dev);
	pr_info("xcma: %s: added\n", dev_name(&ibdev->dev));
	return 0;
}

static void remove_one(struct ib_device *ibdev, void *client_data)
{
	struct xcma_device *dev = client_data;

	/* No new id can bind to the device past this point. */
	mutex_lock(&devices_lock);
	list_del(&dev->list);
	mutex_unlock(&devices_lock);

	/* Notifies the ids that hold the device and waits until none does. */
	xcma_life_dev_remove(&dev->life);

	mutex_lock(&devices_lock);
	counters.removed++;
	counters.live--;
	mutex_unlock(&devices_lock);
	pr_info("xcma: %s: removed\n", dev_name(&ibdev->dev));
	xcma_life_dev_destroy(&dev->life);
	kfree(dev);
}

static struct ib_client xcma_client = {
	.name = "xcma",
	.add = add_one,
	.remove = remove_one,
};

/**
 * xcma_device_get_counters - snapshot of what the ib_client has seen
 * @c: filled in
 */
void xcma_device_get_counters(struct xcma_device_counters *c)
{
	mutex_lock(&devices_lock);
	*c = counters;
	mutex_unlock(&devices_lock);
}
EXPORT_SYMBOL_NS_GPL(xcma_device_get_counters, XCMA_INTERNAL);

/**
 * xcma_device_query - lifecycle state of a device xcma knows by name
 * @name: the ib_device's name, e.g. "rxe0"
 * @state: its state (enum xcma_dev_state of xcma/fsm.h)
 * @holders: how many ids hold it
 *
 * Return: 0, or -ENODEV if no such device is recorded.
 */
int xcma_device_query(const char *name, int *state, unsigned int *holders)
{
	struct xcma_device *dev;
	int ret = -ENODEV;

	mutex_lock(&devices_lock);
	list_for_each_entry(dev, &devices, list) {
		if (strcmp(dev_name(&dev->ibdev->dev), name))
			continue;
		*state = xcma_life_dev_state(&dev->life);
		*holders = xcma_life_dev_holders(&dev->life);
		ret = 0;
		break;
	}
	mutex_unlock(&devices_lock);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(xcma_device_query, XCMA_INTERNAL);

static int devices_show(struct seq_file *s, void *unused)
{
	struct xcma_device *dev;

	mutex_lock(&devices_lock);
	list_for_each_entry(dev, &devices, list)
		seq_printf(s, "%s %s holders=%u\n", dev_name(&dev->ibdev->dev),
			   xcma_life_dev_state_name(&dev->life),
			   xcma_life_dev_holders(&dev->life));
	mutex_unlock(&devices_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(devices);

int xcma_device_init(void)
{
	int ret;

	debug_dir = debugfs_create_dir("xcma", NULL);
	debugfs_create_file("devices", 0444, debug_dir, NULL, &devices_fops);

	/* .add runs here for every device that already exists */
	ret = ib_register_client(&xcma_client);
	if (ret)
		goto err_debugfs;
	return 0;

err_debugfs:
	debugfs_remove_recursive(debug_dir);
	return ret;
}

void xcma_device_exit(void)
{
	/* .remove runs here for every device still registered */
	ib_unregister_client(&xcma_client);
	debugfs_remove_recursive(debug_dir);
}
