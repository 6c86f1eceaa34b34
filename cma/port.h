/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Port spaces: which id holds which port, with the in-tree CM's bind
 * rules. See port.c.
 */
#ifndef XCMA_PORT_H
#define XCMA_PORT_H

#include <linux/list.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <uapi/rdma/rdma_user_cm.h>

struct net;
struct rdma_addr;
struct xcma_port_entry;

/**
 * struct xcma_port_binding - an id's hold on a port, embedded in the id
 * @node: entry in the port's list of owners (protected by the port lock)
 * @entry: the port held, NULL while unbound. Written under the port lock by
 *	the owner's own bind and unbind, so the owner may read it unlocked.
 * @addr: the id's addresses, the pointer constant: @addr->src_addr, where
 *	the bound port is written (once bound it is read by other ids'
 *	binds under the port lock: change it then only with
 *	xcma_port_set_src()); @addr->dst_addr, same rules,
 *	xcma_port_set_dst(); @addr->dev_addr.net, the id's network namespace,
 *	constant, which the id holds a reference on.
 * @reuseaddr: rdma_set_reuseaddr(); protected by the port lock once bound
 *	(xcma_port_set_reuseaddr()), cleared by xcma_port_listen().
 * @afonly: rdma_set_afonly() or xcma_port_default_afonly(); protected by
 *	the port lock once bound (xcma_port_set_afonly()).
 * @shared: on the port of another binding (xcma_port_share()): found by
 *	xcma_port_find(), but no owner for the bind rules or
 *	xcma_port_owners(); constant while bound
 *
 * Before the first bind the owner fills it with xcma_port_binding_init()
 * and may write @reuseaddr and @afonly directly.
 */
struct xcma_port_binding {
	struct hlist_node node;
	struct xcma_port_entry *entry;
	struct rdma_addr *addr;
	bool reuseaddr;
	bool afonly;
	bool shared;
};

void xcma_port_binding_init(struct xcma_port_binding *b,
			    struct rdma_addr *addr);
bool xcma_port_default_afonly(struct net *net, sa_family_t family);
int xcma_port_bind(struct xcma_port_binding *b, enum rdma_ucm_port_space ps);
int xcma_port_listen(struct xcma_port_binding *b);
void xcma_port_share(struct xcma_port_binding *b,
		     struct xcma_port_binding *owner);
struct xcma_port_binding *
xcma_port_find(struct net *net, enum rdma_ucm_port_space ps, u16 port,
	       bool (*match)(struct xcma_port_binding *b, void *arg),
	       void *arg);
void xcma_port_unbind(struct xcma_port_binding *b);
bool xcma_port_is_bound(const struct xcma_port_binding *b);
void xcma_port_set_reuseaddr(struct xcma_port_binding *b, bool reuseaddr);
void xcma_port_set_afonly(struct xcma_port_binding *b, bool afonly);
int xcma_port_set_src(struct xcma_port_binding *b, const struct sockaddr *addr);
int xcma_port_set_dst(struct xcma_port_binding *b, const struct sockaddr *addr);
unsigned int xcma_port_owners(struct net *net, enum rdma_ucm_port_space ps,
			      u16 port);
void xcma_port_exit(void);

#endif /* XCMA_PORT_H */
