// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Socket addresses as the rdma_cm API takes them. A consumer hands xcma a
 * struct sockaddr of family AF_INET, AF_INET6 or AF_IB, and xcma keeps it
 * in a struct sockaddr_storage. Every rule here is the in-tree CM's, so
 * that a consumer sees the same errors and the same bind conflicts: in
 * particular a loopback address counts as "any" for binding, and two IPv6
 * link-local addresses are the same only within one scope.
 *
 * These helpers hold no state and take no lock.
 */
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/module.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <rdma/ib.h>

#include "export.h"
#include "addr.h"

/**
 * xcma_addr_size() - bytes that an address of this family occupies
 * @addr: the address; only its family is read
 *
 * Return: sizeof the family's sockaddr, or 0 for a family the rdma_cm API
 * does not take (as rdma_addr_size() does).
 */
size_t xcma_addr_size(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	case AF_IB:
		return sizeof(struct sockaddr_ib);
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_size);

/**
 * xcma_addr_validate() - check the family of a consumer's address
 * @addr: the address given to rdma_bind_addr() and friends
 *
 * The kernel API passes no length: the family alone says how much of
 * @addr may be read.
 *
 * Return: 0, or -EAFNOSUPPORT for a family other than AF_INET, AF_INET6
 * and AF_IB (what rdma_bind_addr() returns).
 */
int xcma_addr_validate(const struct sockaddr *addr)
{
	return xcma_addr_size(addr) ? 0 : -EAFNOSUPPORT;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_validate);

/**
 * xcma_addr_validate_len() - check an address that came with a length
 * @addr: the address, at least @len bytes readable
 * @len: the length the caller gave (rdma_ucm's addr_size, src_size, ...)
 *
 * rdma_ucm requires the length to be exactly the family's size; an
 * unknown family has size 0 and so fails the same way.
 *
 * Return: 0, or -EINVAL.
 */
int xcma_addr_validate_len(const struct sockaddr *addr, size_t len)
{
	size_t size = xcma_addr_size(addr);

	if (!len || len != size)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_validate_len);

/**
 * xcma_addr_is_zero() - is this the unspecified address of its family
 * @addr: the address
 *
 * Return: true for 0.0.0.0, ::, or the all-zero GID; false otherwise and
 * for an unknown family.
 */
bool xcma_addr_is_zero(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_zeronet(((const struct sockaddr_in *)addr)->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_any(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	case AF_IB:
		return ib_addr_any(&((const struct sockaddr_ib *)addr)->sib_addr);
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_is_zero);

/**
 * xcma_addr_is_loopback() - is this a loopback address
 * @addr: the address
 *
 * Return: true for 127.0.0.0/8, ::1, or the GID ::1; false otherwise and
 * for an unknown family.
 */
bool xcma_addr_is_loopback(const struct sockaddr *addr)
{
	switch (addr->sa_family) {
	case AF_INET:
		return ipv4_is_loopback(((const struct sockaddr_in *)addr)->sin_addr.s_addr);
	case AF_INET6:
		return ipv6_addr_loopback(&((const struct sockaddr_in6 *)addr)->sin6_addr);
	case AF_IB:
		return ib_addr_loopback(&((const struct sockaddr_ib *)addr)->sib_addr);
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_is_loopback);

/**
 * xcma_addr_is_any() - does this address stand for no particular device
 * @addr: the address
 *
 * A loopback address is bound to no RDMA device either, so the CM treats it
 * like the wildcard: for bind conflicts, for listening on every device and
 * for resolving to a local device.
 *
 * Return: xcma_addr_is_zero() || xcma_addr_is_loopback().
 */
bool xcma_addr_is_any(const struct sockaddr *addr)
{
	return xcma_addr_is_zero(addr) || xcma_addr_is_loopback(addr);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_is_any);

/**
 * xcma_addr_get_port() - the port of an address
 * @addr: the address
 *
 * An AF_IB address has no port field: its port is the low 16 bits of the
 * service ID, as far as the service ID mask covers them.
 *
 * Return: the port in network byte order, 0 for an unknown family.
 */
__be16 xcma_addr_get_port(const struct sockaddr *addr)
{
	const struct sockaddr_ib *sib;

	switch (addr->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)addr)->sin_port;
	case AF_INET6:
		return ((const struct sockaddr_in6 *)addr)->sin6_port;
	case AF_IB:
		sib = (const struct sockaddr_ib *)addr;
		return htons((u16)(be64_to_cpu(sib->sib_sid) &
				   be64_to_cpu(sib->sib_sid_mask)));
	default:
		return 0;
	}
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_get_port);

/**
 * xcma_addr_set_port() - write the port of an IP address
 * @addr: the address
 * @port: the port, network byte order
 *
 * An AF_IB address keeps its port in the low 16 bits of the service ID:
 * the bits under the mask stay, the port replaces the low ones, and the
 * whole service ID is then significant (in-tree cma_bind_port()).
 *
 * Return: 0, or -EAFNOSUPPORT for an unknown family.
 */
int xcma_addr_set_port(struct sockaddr *addr, __be16 port)
{
	struct sockaddr_ib *sib;
	u64 sid;

	switch (addr->sa_family) {
	case AF_INET:
		((struct sockaddr_in *)addr)->sin_port = port;
		return 0;
	case AF_INET6:
		((struct sockaddr_in6 *)addr)->sin6_port = port;
		return 0;
	case AF_IB:
		sib = (struct sockaddr_ib *)addr;
		sid = be64_to_cpu(sib->sib_sid) & be64_to_cpu(sib->sib_sid_mask);
		sib->sib_sid = cpu_to_be64((sid & ~0xffffULL) | ntohs(port));
		sib->sib_sid_mask = cpu_to_be64(~0ULL);
		return 0;
	default:
		return -EAFNOSUPPORT;
	}
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_set_port);

/**
 * xcma_addr_is_any_port() - does the address leave the port to the CM
 * @addr: the address
 *
 * Return: true if the port is 0.
 */
bool xcma_addr_is_any_port(const struct sockaddr *addr)
{
	return !xcma_addr_get_port(addr);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_is_any_port);

/**
 * xcma_addr_cmp() - are two addresses the same host address
 * @a: one address
 * @b: the other
 *
 * Ports are not compared. Addresses of different families always differ.
 * An IPv6 link-local address names a host only within one link, so two
 * equal link-local addresses are the same only if their scope ids are.
 * Families outside the rdma_cm API never get this far (bind rejects them);
 * they compare as different rather than being read as AF_IB.
 *
 * Return: 0 if the same, non-zero otherwise (like memcmp(), without an
 * order).
 */
int xcma_addr_cmp(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr_in6 *a6, *b6;

	if (a->sa_family != b->sa_family)
		return -1;

	switch (a->sa_family) {
	case AF_INET:
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr !=
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	case AF_INET6:
		a6 = (const struct sockaddr_in6 *)a;
		b6 = (const struct sockaddr_in6 *)b;
		if (ipv6_addr_cmp(&a6->sin6_addr, &b6->sin6_addr))
			return 1;
		if (!(ipv6_addr_type(&b6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
			return 0;
		return a6->sin6_scope_id != b6->sin6_scope_id;
	case AF_IB:
		return ib_addr_cmp(&((const struct sockaddr_ib *)a)->sib_addr,
				   &((const struct sockaddr_ib *)b)->sib_addr);
	default:
		return -1;
	}
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_cmp);

/**
 * xcma_addr_copy() - store a consumer's address
 * @dst: where xcma keeps it
 * @src: the consumer's address, xcma_addr_size(@src) bytes readable
 *
 * Only the family's size is read from @src, because that is all the
 * consumer promised; the rest of @dst is left as it was.
 *
 * Return: 0, or -EAFNOSUPPORT (nothing copied) for an unknown family.
 */
int xcma_addr_copy(struct sockaddr_storage *dst, const struct sockaddr *src)
{
	size_t size = xcma_addr_size(src);

	if (!size)
		return -EAFNOSUPPORT;
	memcpy(dst, src, size);
	return 0;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_copy);

/**
 * xcma_addr_set_any() - the source address to bind when none was given
 * @any: set to the wildcard address of @like's family, port 0
 * @like: the destination the id is about to resolve
 * @bound_dev_if: if not NULL and @like is IPv6 link-local, set to its scope
 *	id (0 included); left alone otherwise
 *
 * Resolving without a source address binds the wildcard of the
 * destination's family. It keeps what routing needs from the destination:
 * the IPv6 scope id and the AF_IB partition key. A link-local destination
 * also pins the interface to route through, even with scope id 0 (then
 * routing finds none), as in the in-tree CM; the wildcard source itself
 * passes xcma_addr_check_linklocal().
 *
 * Return: true if @bound_dev_if was set.
 */
bool xcma_addr_set_any(struct sockaddr_storage *any,
		       const struct sockaddr *like, int *bound_dev_if)
{
	const struct sockaddr_in6 *like6;
	bool pinned = false;

	memset(any, 0, sizeof(*any));
	any->ss_family = like->sa_family;
	switch (like->sa_family) {
	case AF_INET6:
		if (!IS_ENABLED(CONFIG_IPV6))
			break;
		like6 = (const struct sockaddr_in6 *)like;
		((struct sockaddr_in6 *)any)->sin6_scope_id = like6->sin6_scope_id;
		if (bound_dev_if &&
		    (ipv6_addr_type(&like6->sin6_addr) & IPV6_ADDR_LINKLOCAL)) {
			*bound_dev_if = like6->sin6_scope_id;
			pinned = true;
		}
		break;
	case AF_IB:
		((struct sockaddr_ib *)any)->sib_pkey =
			((const struct sockaddr_ib *)like)->sib_pkey;
		break;
	}
	return pinned;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_set_any);

/**
 * xcma_addr_check_linklocal() - an IPv6 link-local address needs its link
 * @addr: the address being bound
 * @bound_dev_if: if not NULL, set to the scope id of a link-local @addr
 *	(the interface it lives on); left alone otherwise
 *
 * fe80::/10 exists on every link, so without a scope id the address does
 * not say which interface, hence which RDMA device, is meant.
 *
 * Return: 0, or -EINVAL for a link-local IPv6 address with scope id 0.
 */
int xcma_addr_check_linklocal(const struct sockaddr *addr, int *bound_dev_if)
{
	const struct sockaddr_in6 *sin6;

	if (!IS_ENABLED(CONFIG_IPV6) || addr->sa_family != AF_INET6)
		return 0;

	sin6 = (const struct sockaddr_in6 *)addr;
	if (!(ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL))
		return 0;
	if (!sin6->sin6_scope_id)
		return -EINVAL;
	if (bound_dev_if)
		*bound_dev_if = sin6->sin6_scope_id;
	return 0;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_addr_check_linklocal);
