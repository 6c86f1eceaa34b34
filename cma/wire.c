// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The rdma_cm's part of the IB CM protocol, for IB and RoCE.
 *
 * ib_cm moves a REQ with a service ID and a fixed-size private data area.
 * The rdma_cm of an AF_INET/AF_INET6 id spends the first 36 bytes of that
 * area on a header (struct xcma_wire_hdr) saying which IP addresses the
 * connection is between, so that the passive side can find the listener
 * and report the peer's address; the consumer's private data follows. The
 * service ID carries the port space and the destination port.
 *
 * A peer may be the in-tree CM, so nothing here may differ from it by a
 * byte or by an errno. These helpers hold no state and take no lock.
 */
#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib.h>
#include <rdma/ib_cm.h>

#include "export.h"
#include "addr.h"
#include "wire.h"

/**
 * xcma_wire_hdr_len() - room the rdma_cm header takes in a REQ
 * @family: the family of the id's source address
 *
 * Return: 0 for AF_IB, which sends no header, XCMA_WIRE_HDR_LEN otherwise.
 */
size_t xcma_wire_hdr_len(sa_family_t family)
{
	return family == AF_IB ? 0 : XCMA_WIRE_HDR_LEN;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_hdr_len);

/**
 * xcma_wire_hdr_encode() - write the header of an outgoing REQ/SIDR REQ
 * @buf: the start of the private data area
 * @len: its size; the consumer's data goes at XCMA_WIRE_HDR_LEN
 * @src: the id's source address, port included
 * @dst: the id's destination address, of the same family
 *
 * Only the first XCMA_WIRE_HDR_LEN bytes of @buf are written; the unused
 * bytes of the header (IPv4 padding, low nibble of ip_version) are zero.
 *
 * Return: 0; -EINVAL if @len is too short or the families differ;
 * -EAFNOSUPPORT if @src is not AF_INET or AF_INET6.
 */
int xcma_wire_hdr_encode(void *buf, size_t len, const struct sockaddr *src,
			 const struct sockaddr *dst)
{
	struct xcma_wire_hdr *hdr = buf;

	if (src->sa_family != AF_INET && src->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	if (len < XCMA_WIRE_HDR_LEN || dst->sa_family != src->sa_family)
		return -EINVAL;

	memset(hdr, 0, XCMA_WIRE_HDR_LEN);
	hdr->version = XCMA_WIRE_VERSION;
	if (src->sa_family == AF_INET) {
		hdr->ip_version = 4 << 4;
		hdr->src.ip4.addr = ((const struct sockaddr_in *)src)->sin_addr.s_addr;
		hdr->dst.ip4.addr = ((const struct sockaddr_in *)dst)->sin_addr.s_addr;
	} else {
		hdr->ip_version = 6 << 4;
		hdr->src.ip6 = ((const struct sockaddr_in6 *)src)->sin6_addr;
		hdr->dst.ip6 = ((const struct sockaddr_in6 *)dst)->sin6_addr;
	}
	hdr->port = xcma_addr_get_port(src);
	return 0;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_hdr_encode);

static void fill_ip(struct sockaddr_storage *ss, unsigned int ip_ver,
		    const union xcma_wire_ip *ip, __be16 port)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	if (ip_ver == 4) {
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = ip->ip4.addr;
		sin->sin_port = port;
	} else {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = ip->ip6;
		sin6->sin6_port = port;
	}
}

/**
 * xcma_wire_hdr_decode() - read the header of an incoming REQ/SIDR REQ
 * @buf: the private data ib_cm delivered
 * @len: its size (ib_cm always delivers the whole area)
 * @service_id: the service ID the REQ was sent to
 * @local: if not NULL, set to the address the peer wants to reach, with
 *	the port taken from @service_id
 * @remote: if not NULL, set to the peer's address and port
 *
 * The peer's header says nothing about IPv6 scope or flow label: those
 * come out 0, as in the in-tree CM. Neither output is written on error.
 *
 * Return: 0; -EINVAL if @len is shorter than the header or the header
 * version is not XCMA_WIRE_VERSION; -EAFNOSUPPORT if the IP version is
 * neither 4 nor 6. The in-tree CM fails the REQ with the same errnos.
 */
int xcma_wire_hdr_decode(const void *buf, size_t len, __be64 service_id,
			 struct sockaddr_storage *local,
			 struct sockaddr_storage *remote)
{
	const struct xcma_wire_hdr *hdr = buf;
	unsigned int ip_ver;

	if (len < XCMA_WIRE_HDR_LEN || hdr->version != XCMA_WIRE_VERSION)
		return -EINVAL;
	ip_ver = hdr->ip_version >> 4;
	if (ip_ver != 4 && ip_ver != 6)
		return -EAFNOSUPPORT;

	if (local)
		fill_ip(local, ip_ver, &hdr->dst,
			xcma_wire_service_id_port(service_id));
	if (remote)
		fill_ip(remote, ip_ver, &hdr->src, hdr->port);
	return 0;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_hdr_decode);

/**
 * xcma_wire_hdr_match() - may this listener take the REQ
 * @hdr: the REQ's header, already accepted by xcma_wire_hdr_decode()
 * @listen: the listener's source address
 * @afonly: the listener's afonly option
 *
 * Several listeners of one service ID (one port) can differ in address or
 * family; the header's destination picks among them. A wildcard (or
 * loopback) listener that is not afonly takes both IP versions.
 *
 * Return: true if the listener matches. AF_IB listeners take any REQ.
 */
bool xcma_wire_hdr_match(const struct xcma_wire_hdr *hdr,
			 const struct sockaddr *listen, bool afonly)
{
	bool any = xcma_addr_is_any(listen);
	unsigned int ip_ver = hdr->ip_version >> 4;

	if (any && !afonly)
		return true;

	switch (listen->sa_family) {
	case AF_INET:
		return ip_ver == 4 &&
		       (any || hdr->dst.ip4.addr ==
			((const struct sockaddr_in *)listen)->sin_addr.s_addr);
	case AF_INET6:
		return ip_ver == 6 &&
		       (any || !memcmp(&hdr->dst.ip6,
				       &((const struct sockaddr_in6 *)listen)->sin6_addr,
				       sizeof(hdr->dst.ip6)));
	case AF_IB:
		return true;
	default:
		return false;
	}
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_hdr_match);

static int area_size(enum xcma_wire_msg msg)
{
	switch (msg) {
	case XCMA_WIRE_REQ:
		return IB_CM_REQ_PRIVATE_DATA_SIZE;
	case XCMA_WIRE_SIDR_REQ:
		return IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE;
	case XCMA_WIRE_REP:
		return IB_CM_REP_PRIVATE_DATA_SIZE;
	case XCMA_WIRE_SIDR_REP:
		return IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
	case XCMA_WIRE_REJ:
		return IB_CM_REJ_PRIVATE_DATA_SIZE;
	case XCMA_WIRE_RTU:
		return IB_CM_RTU_PRIVATE_DATA_SIZE;
	case XCMA_WIRE_DREQ:
		return IB_CM_DREQ_PRIVATE_DATA_SIZE;
	case XCMA_WIRE_DREP:
		return IB_CM_DREP_PRIVATE_DATA_SIZE;
	case XCMA_WIRE_MRA:
		return IB_CM_MRA_PRIVATE_DATA_SIZE;
	default:
		return -EINVAL;
	}
}

static bool has_hdr(enum xcma_wire_msg msg)
{
	return msg == XCMA_WIRE_REQ || msg == XCMA_WIRE_SIDR_REQ;
}

/**
 * xcma_wire_max_private_data() - consumer bytes a message can carry
 * @msg: the message
 * @family: the family of the id's source address
 *
 * This is also the private_data_len the passive side reports with a
 * CONNECT_REQUEST: ib_cm delivers the whole area, whatever was sent.
 *
 * Return: the size of the message's private data area, less the rdma_cm
 * header for a REQ or SIDR REQ of an IP id; -EINVAL for an unknown @msg.
 */
int xcma_wire_max_private_data(enum xcma_wire_msg msg, sa_family_t family)
{
	int size = area_size(msg);

	if (size < 0 || !has_hdr(msg))
		return size;
	return size - xcma_wire_hdr_len(family);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_max_private_data);

/**
 * xcma_wire_check_private_data() - would the in-tree CM send this
 * @msg: the message
 * @family: the family of the id's source address
 * @data: the consumer's private data pointer
 * @len: the consumer's private_data_len
 *
 * ib_cm checks the length only when there is a buffer. For a REQ or SIDR
 * REQ the rdma_cm builds the buffer itself whenever header plus data is
 * not empty, so a NULL @data with a non-zero @len is checked (and sent as
 * zeros); for the other messages the consumer's pointer is passed on and a
 * NULL @data sends nothing, whatever @len says. The sum of header and data
 * must also fit ib_cm's u8 length.
 *
 * Return: 0, or -EINVAL where the in-tree CM fails the call with -EINVAL.
 */
int xcma_wire_check_private_data(enum xcma_wire_msg msg, sa_family_t family,
				 const void *data, unsigned int len)
{
	int size = area_size(msg);
	size_t total;

	if (size < 0)
		return size;
	if (has_hdr(msg)) {
		total = xcma_wire_hdr_len(family) + len;
		if (total > U8_MAX || total > size)
			return -EINVAL;
		return 0;
	}
	if (data && len > size)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_check_private_data);

/**
 * xcma_wire_service_id() - the IB service ID of a port
 * @ps: the port space (RDMA_PS_TCP, ...)
 * @port: the port, network byte order
 *
 * The port space number sits above the port, which makes the TCP, UDP and
 * IB spaces the RDMA_IB_IP_PS_* ranges of the IBTA's IP addressing annex.
 *
 * Return: (@ps << 16) + @port, big endian.
 */
__be64 xcma_wire_service_id(enum rdma_ucm_port_space ps, __be16 port)
{
	return cpu_to_be64(((u64)ps << 16) + be16_to_cpu(port));
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_service_id);

/**
 * xcma_wire_addr_service_id() - the service ID to listen on or connect to
 * @ps: the id's port space
 * @addr: the address (its port is used)
 *
 * As rdma_get_service_id(): an AF_IB address carries its service ID.
 *
 * Return: the service ID, big endian.
 */
__be64 xcma_wire_addr_service_id(enum rdma_ucm_port_space ps,
				 const struct sockaddr *addr)
{
	if (addr->sa_family == AF_IB)
		return ((const struct sockaddr_ib *)addr)->sib_sid;
	return xcma_wire_service_id(ps, xcma_addr_get_port(addr));
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_addr_service_id);

/**
 * xcma_wire_service_id_ps() - the port space a service ID names
 * @service_id: big endian
 *
 * Return: bits 31:16, whether or not they are a known port space.
 */
enum rdma_ucm_port_space xcma_wire_service_id_ps(__be64 service_id)
{
	return (be64_to_cpu(service_id) >> 16) & 0xffff;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_service_id_ps);

/**
 * xcma_wire_service_id_port() - the port a service ID names
 * @service_id: big endian
 *
 * Return: bits 15:0, network byte order.
 */
__be16 xcma_wire_service_id_port(__be64 service_id)
{
	return htons((u16)be64_to_cpu(service_id));
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_wire_service_id_port);
