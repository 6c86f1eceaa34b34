/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the rdma_cm puts on the wire beyond ib_cm's own fields: the header
 * in front of the consumer's private data in a REQ and a SIDR REQ, the
 * service ID of a port, and how much private data each message carries.
 * Byte for byte the in-tree CM's, so either end may be the in-tree CM.
 * See wire.c.
 */
#ifndef XCMA_WIRE_H
#define XCMA_WIRE_H

#include <linux/build_bug.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <uapi/rdma/rdma_user_cm.h>

/* The only header version there has ever been. */
#define XCMA_WIRE_VERSION 0x00

/**
 * union xcma_wire_ip - an address in the header
 * @ip6: an IPv6 address, network byte order
 * @ip4: an IPv4 address sits in the last 4 of the 16 bytes
 * @ip4.pad: zero
 * @ip4.addr: the IPv4 address, network byte order
 */
union xcma_wire_ip {
	struct in6_addr ip6;
	struct {
		__be32 pad[3];
		__be32 addr;
	} ip4;
};

/**
 * struct xcma_wire_hdr - the rdma_cm header of a REQ or SIDR REQ
 * @version: XCMA_WIRE_VERSION
 * @ip_version: 4 or 6 in bits 7:4; bits 3:0 are zero when sent, ignored
 *	when received
 * @port: the sender's source port
 * @src: the sender's source address
 * @dst: the address the sender wants to reach
 *
 * 36 bytes, no padding. It leads the private data of messages whose id is
 * AF_INET or AF_INET6; an AF_IB id sends none (its addresses are GIDs that
 * the path record already carries). The destination port is not in it: it
 * is the low 16 bits of the service ID.
 */
struct xcma_wire_hdr {
	u8 version;
	u8 ip_version;
	__be16 port;
	union xcma_wire_ip src;
	union xcma_wire_ip dst;
};

#define XCMA_WIRE_HDR_LEN 36
static_assert(sizeof(struct xcma_wire_hdr) == XCMA_WIRE_HDR_LEN);
static_assert(offsetof(struct xcma_wire_hdr, port) == 2);
static_assert(offsetof(struct xcma_wire_hdr, src) == 4);
static_assert(offsetof(struct xcma_wire_hdr, dst) == 20);

/**
 * enum xcma_wire_msg - ib_cm messages that carry consumer private data
 * @XCMA_WIRE_REQ: connection request (rdma_connect)
 * @XCMA_WIRE_SIDR_REQ: service ID resolution request (rdma_connect, UD)
 * @XCMA_WIRE_REP: connection reply (rdma_accept)
 * @XCMA_WIRE_SIDR_REP: SIDR reply (rdma_accept or rdma_reject, UD)
 * @XCMA_WIRE_REJ: reject (rdma_reject)
 * @XCMA_WIRE_RTU: ready to use
 * @XCMA_WIRE_DREQ: disconnect request
 * @XCMA_WIRE_DREP: disconnect reply
 * @XCMA_WIRE_MRA: message receipt acknowledgment
 */
enum xcma_wire_msg {
	XCMA_WIRE_REQ,
	XCMA_WIRE_SIDR_REQ,
	XCMA_WIRE_REP,
	XCMA_WIRE_SIDR_REP,
	XCMA_WIRE_REJ,
	XCMA_WIRE_RTU,
	XCMA_WIRE_DREQ,
	XCMA_WIRE_DREP,
	XCMA_WIRE_MRA,
};

size_t xcma_wire_hdr_len(sa_family_t family);
int xcma_wire_hdr_encode(void *buf, size_t len, const struct sockaddr *src,
			 const struct sockaddr *dst);
int xcma_wire_hdr_decode(const void *buf, size_t len, __be64 service_id,
			 struct sockaddr_storage *local,
			 struct sockaddr_storage *remote);
bool xcma_wire_hdr_match(const struct xcma_wire_hdr *hdr,
			 const struct sockaddr *listen, bool afonly);
int xcma_wire_max_private_data(enum xcma_wire_msg msg, sa_family_t family);
int xcma_wire_check_private_data(enum xcma_wire_msg msg, sa_family_t family,
				 const void *data, unsigned int len);
__be64 xcma_wire_service_id(enum rdma_ucm_port_space ps, __be16 port);
__be64 xcma_wire_addr_service_id(enum rdma_ucm_port_space ps,
				 const struct sockaddr *addr);
enum rdma_ucm_port_space xcma_wire_service_id_ps(__be64 service_id);
__be16 xcma_wire_service_id_port(__be64 service_id);

#endif /* XCMA_WIRE_H */
