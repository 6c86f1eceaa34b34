/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Socket addresses as the rdma_cm API takes them (AF_INET, AF_INET6,
 * AF_IB), with the rules of the in-tree CM. See addr.c.
 */
#ifndef XCMA_ADDR_H
#define XCMA_ADDR_H

#include <linux/socket.h>
#include <linux/types.h>

size_t xcma_addr_size(const struct sockaddr *addr);
int xcma_addr_validate(const struct sockaddr *addr);
int xcma_addr_validate_len(const struct sockaddr *addr, size_t len);
bool xcma_addr_is_zero(const struct sockaddr *addr);
bool xcma_addr_is_loopback(const struct sockaddr *addr);
bool xcma_addr_is_any(const struct sockaddr *addr);
__be16 xcma_addr_get_port(const struct sockaddr *addr);
int xcma_addr_set_port(struct sockaddr *addr, __be16 port);
bool xcma_addr_is_any_port(const struct sockaddr *addr);
int xcma_addr_cmp(const struct sockaddr *a, const struct sockaddr *b);
int xcma_addr_copy(struct sockaddr_storage *dst, const struct sockaddr *src);
bool xcma_addr_set_any(struct sockaddr_storage *any,
		       const struct sockaddr *like, int *bound_dev_if);
int xcma_addr_check_linklocal(const struct sockaddr *addr, int *bound_dev_if);

#endif /* XCMA_ADDR_H */
