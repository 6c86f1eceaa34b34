/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Helpers that both test modules compile in: xcma_kunit.ko and
 * xcma_interop.ko. The interop boot loads the latter without the former,
 * so it cannot call xcma_kunit.ko's exports; hence static inline, here.
 */
#ifndef XCMA_KUNIT_INLINE_H
#define XCMA_KUNIT_INLINE_H

#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/umh.h>
#include <rdma/ib_verbs.h>

/**
 * xcma_kunit_umh - run a command of the VM's userspace and wait for it
 * @words: "/path arg ..." split on spaces, at most 15 words; split in place
 *
 * Return: the command's exit status, or a negative errno if it could not
 * be started.
 */
static inline int xcma_kunit_umh(char *words)
{
	char home[] = "HOME=/", path[] = "PATH=/bin:/sbin:/usr/bin:/usr/sbin";
	char *envp[3] = { home, path, NULL };
	char *argv[16], *p;
	int argc = 0, ret;

	for (p = strsep(&words, " "); p && argc < 15; p = strsep(&words, " "))
		if (*p)
			argv[argc++] = p;
	argv[argc] = NULL;
	ret = call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
	return ret > 0 ? (ret >> 8) & 0xff : ret;
}

/**
 * xcma_kunit_send - one SEND from @from to a RECV posted on @to
 * @from: the sending QP; its PD's lkey, its send CQ polled
 * @to: the receiving QP, connected to @from; its PD's, its receive CQ
 * @msg: what to send, its NUL included, at most 63 characters
 *
 * Both CQs must be IB_POLL_DIRECT and hold no earlier completion.
 *
 * Return: 0 once both work requests completed successfully and @msg
 * arrived whole, -EIO if either failed or did not complete within 500
 * polls (at least 2.5 s), -EBADMSG if something else arrived, or the
 * error of posting them.
 */
static inline int xcma_kunit_send(struct ib_qp *from, struct ib_qp *to,
				  const char *msg)
{
	struct ib_device *sdev = from->device, *rdev = to->device;
	char *sbuf = kzalloc(64, GFP_KERNEL), *rbuf = kzalloc(64, GFP_KERNEL);
	struct ib_sge ssge, rsge;
	struct ib_recv_wr rwr = { .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr swr = { .sg_list = &ssge, .num_sge = 1,
				  .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	int i, got_s = 0, got_r = 0, ret = -ENOMEM;
	struct ib_wc wc;
	u64 sdma, rdma;

	if (!sbuf || !rbuf)
		goto out;
	strscpy(sbuf, msg, 64);
	sdma = ib_dma_map_single(sdev, sbuf, 64, DMA_TO_DEVICE);
	rdma = ib_dma_map_single(rdev, rbuf, 64, DMA_FROM_DEVICE);
	ssge = (struct ib_sge){ .addr = sdma, .length = strlen(msg) + 1,
				.lkey = from->pd->local_dma_lkey };
	rsge = (struct ib_sge){ .addr = rdma, .length = 64,
				.lkey = to->pd->local_dma_lkey };
	ret = ib_post_recv(to, &rwr, NULL);
	if (!ret)
		ret = ib_post_send(from, &swr, NULL);
	for (i = 0; !ret && i < 500 && !(got_s && got_r); i++) {
		if (!got_s && ib_poll_cq(from->send_cq, 1, &wc) == 1)
			got_s = wc.status == IB_WC_SUCCESS ? 1 : -1;
		if (!got_r && ib_poll_cq(to->recv_cq, 1, &wc) == 1)
			got_r = wc.status == IB_WC_SUCCESS ? 1 : -1;
		usleep_range(5000, 10000);
	}
	ib_dma_unmap_single(sdev, sdma, 64, DMA_TO_DEVICE);
	ib_dma_unmap_single(rdev, rdma, 64, DMA_FROM_DEVICE);
	if (!ret && (got_s != 1 || got_r != 1))
		ret = -EIO;
	if (!ret && strcmp(rbuf, msg))
		ret = -EBADMSG;
out:
	kfree(sbuf);
	kfree(rbuf);
	return ret;
}

#endif
