/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* configfs rdma_cm/<dev>/ports/<n>/default_roce_{mode,tos}; see configfs.c */
#ifndef XCMA_CONFIGFS_H
#define XCMA_CONFIGFS_H

#if IS_ENABLED(CONFIG_CONFIGFS_FS)
int xcma_configfs_init(void);
void xcma_configfs_exit(void);
#else
/* kernels without configfs (the KUnit kernel): the defaults stay settable
 * through defaults.h only
 */
static inline int xcma_configfs_init(void)
{
	return 0;
}

static inline void xcma_configfs_exit(void)
{
}
#endif

#endif /* XCMA_CONFIGFS_H */
