// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * xcma: an RDMA connection manager whose id lifecycle is safe against
 * device hot-removal. Module init and exit only.
 */
#include <linux/module.h>

#include "configfs.h"
#include "id.h"
#include "iw.h"
#include "neigh.h"
#include "netdev.h"
#include "port.h"
#include "sa.h"
#include "device.h"

static int __init xcma_init(void)
{
	int ret;

	ret = xcma_id_cache_init();
	if (ret)
		return ret;
	ret = xcma_netdev_init();
	if (ret)
		goto err_cache;
	ret = xcma_neigh_init();
	if (ret)
		goto err_netdev;
	ret = xcma_iw_init();
	if (ret)
		goto err_neigh;
	/* before any device: an id may query the SA from the first one on */
	xcma_sa_init();
	ret = xcma_device_init();
	if (ret)
		goto err_sa;
	ret = xcma_configfs_init();
	if (ret)
		goto err_device;
	pr_info("xcma: loaded (%s mode)\n", XCMA_MODE_NAME);
	return 0;

err_device:
	xcma_device_exit();
err_sa:
	xcma_sa_exit();
	xcma_iw_exit();
err_neigh:
	xcma_neigh_exit();
err_netdev:
	xcma_netdev_exit();
err_cache:
	xcma_id_cache_exit();
	return ret;
}

static void __exit xcma_exit(void)
{
	xcma_configfs_exit();
	xcma_device_exit();
	xcma_sa_exit();
	xcma_iw_exit();
	xcma_neigh_exit();
	xcma_netdev_exit();
	xcma_port_exit();
	xcma_id_cache_exit();
	pr_info("xcma: unloaded\n");
}

module_init(xcma_init);
module_exit(xcma_exit);

MODULE_AUTHOR("xcma developers");
MODULE_DESCRIPTION("RDMA connection manager safe against device hot-removal");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(XCMA_VERSION);
/*
 * ib_uverbs registers its ib_client before xcma's: xcma also links against
 * it (ib_copy_path_rec_from_user), which makes it a hard dependency in
 * modules.dep; the softdep says so to tools that read only modinfo.
 */
MODULE_SOFTDEP("pre: ib_uverbs");
#ifdef XCMA_AS_RDMA_CM
/* installed as rdma_cm (make install, DKMS): modprobe/modinfo xcma find it */
MODULE_ALIAS("xcma");
#endif
