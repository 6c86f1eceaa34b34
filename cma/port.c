// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Port spaces. Like sockets, rdma_cm ids bind to a port of a port space
 * (RDMA_PS_TCP, _UDP, _IB, _IPOIB) in their network namespace, and the port
 * becomes part of the IB service ID that REQs are sent to. One entry per
 * (net, port space, port) in use lists the ids that share the port.
 *
 * The rules are the in-tree CM's, exactly, because consumers depend on
 * them (rdma_bind_addr()'s errnos, which ids may share a port):
 * - A specific port is refused to an id whose address overlaps one of the
 *   port's owners: -EADDRNOTAVAIL if either address is a wildcard (or
 *   loopback, which is no more specific for RDMA), -EADDRINUSE if both are
 *   the same address. Two ids that both set reuseaddr never conflict, nor
 *   do two afonly ids of different families. Ports below PROT_SOCK need
 *   CAP_NET_BIND_SERVICE.
 * - An ephemeral port is searched from a random start within the netns'
 *   ip_local_port_range, skipping the port handed out last so that a port
 *   is not reused the moment it is released. An active-side id may share a
 *   port with ids that go to a different destination, as TCP connections
 *   share a local port.
 * - A reuseaddr id that starts listening stops being reusable, and must
 *   then be the only id on its address.
 *
 * Locking: port_lock, a mutex, protects the table, every entry and the
 * bound bindings' fields (see struct xcma_port_binding). It is a leaf: no
 * other lock is taken under it, so callers may hold their own id locks.
 */
#include <linux/capability.h>
#include <linux/hash.h>
#include <linux/hashtable.h>
#include <linux/lockdep.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <rdma/ib.h>
#include <rdma/rdma_cm.h>

#include "export.h"
#include "addr.h"
#include "port.h"

/**
 * struct xcma_port_entry - a port in use
 * @hash: entry in port_table (protected by port_lock)
 * @owners: the bindings that hold the port, never empty while the entry
 *	is in port_table (protected by port_lock); the port's namespace is
 *	theirs (entry_net())
 * @ps: port space, constant
 * @port: host byte order, constant
 *
 * 32 bytes (kmalloc-32): every bound id has one of its own unless it
 * shares a port.
 */
struct xcma_port_entry {
	struct hlist_node hash;
	struct hlist_head owners;
	enum rdma_ucm_port_space ps;
	u16 port;
};

static_assert(sizeof(struct xcma_port_entry) <= 32);

#define PORT_TABLE_BITS 10

static DEFINE_MUTEX(port_lock);
/* (net, ps, port) -> struct xcma_port_entry; protected by port_lock */
static DEFINE_HASHTABLE(port_table, PORT_TABLE_BITS);
/*
 * The ephemeral port handed out last, in any space or namespace (as in
 * the in-tree CM); protected by port_lock.
 */
static unsigned int last_used_port;

static u32 port_key(const struct net *net, enum rdma_ucm_port_space ps,
		    u16 port)
{
	return hash_ptr(net, 32) ^ ((u32)ps << 16 | port);
}

static struct sockaddr *src_of(const struct xcma_port_binding *b)
{
	return (struct sockaddr *)&b->addr->src_addr;
}

static struct sockaddr *dst_of(const struct xcma_port_binding *b)
{
	return (struct sockaddr *)&b->addr->dst_addr;
}

static struct net *net_of(const struct xcma_port_binding *b)
{
	return b->addr->dev_addr.net;
}

/* the namespace of a port in use: that of any owner, all share it */
static struct net *entry_net(struct xcma_port_entry *e)
{
	lockdep_assert_held(&port_lock);

	return net_of(hlist_entry(e->owners.first, struct xcma_port_binding,
				  node));
}

static struct xcma_port_entry *find_entry(struct net *net,
					  enum rdma_ucm_port_space ps, u16 port)
{
	struct xcma_port_entry *e;

	lockdep_assert_held(&port_lock);

	hash_for_each_possible(port_table, e, hash, port_key(net, ps, port))
		if (e->ps == ps && e->port == port && entry_net(e) == net)
			return e;
	return NULL;
}

/* The port is written into the id's address only once the id holds it. */
static void attach(struct xcma_port_entry *e, struct xcma_port_binding *b)
{
	lockdep_assert_held(&port_lock);

	xcma_addr_set_port(src_of(b), htons(e->port));
	b->entry = e;
	hlist_add_head(&b->node, &e->owners);
}

static int attach_new(struct xcma_port_binding *b, enum rdma_ucm_port_space ps,
		      u16 port)
{
	struct xcma_port_entry *e;

	lockdep_assert_held(&port_lock);

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	INIT_HLIST_HEAD(&e->owners);
	e->ps = ps;
	e->port = port;
	/* owned before it is found: entry_net() reads the first owner */
	attach(e, b);
	hash_add(port_table, &e->hash, port_key(net_of(b), ps, port));
	return 0;
}

/*
 * May b take a specific port that e's owners hold, or, for listen, keep
 * it? b may itself be an owner already.
 */
static int check_port(struct xcma_port_entry *e, struct xcma_port_binding *b,
		      bool reuseaddr)
{
	struct sockaddr *addr = src_of(b), *cur_addr;
	struct xcma_port_binding *cur;

	lockdep_assert_held(&port_lock);

	hlist_for_each_entry(cur, &e->owners, node) {
		if (cur == b || cur->shared)
			continue;
		if (reuseaddr && cur->reuseaddr)
			continue;
		cur_addr = src_of(cur);
		if (b->afonly && cur->afonly &&
		    addr->sa_family != cur_addr->sa_family)
			continue;
		if (xcma_addr_is_any(addr) || xcma_addr_is_any(cur_addr))
			return -EADDRNOTAVAIL;
		if (!xcma_addr_cmp(addr, cur_addr))
			return -EADDRINUSE;
	}
	return 0;
}

/*
 * May b share an ephemeral port with e's owners? Only if, against each
 * owner, something tells the two ids' connections apart: the destination
 * port, the source address or the destination address. A wildcard matches
 * everything, so it tells nothing apart.
 */
static int port_is_unique(struct xcma_port_entry *e,
			  struct xcma_port_binding *b)
{
	struct sockaddr *saddr = src_of(b), *daddr = dst_of(b);
	struct sockaddr *cur_saddr, *cur_daddr;
	struct xcma_port_binding *cur;

	lockdep_assert_held(&port_lock);

	hlist_for_each_entry(cur, &e->owners, node) {
		if (cur == b || cur->shared)
			continue;
		cur_saddr = src_of(cur);
		cur_daddr = dst_of(cur);

		if (!xcma_addr_is_any_port(daddr) &&
		    !xcma_addr_is_any_port(cur_daddr) &&
		    xcma_addr_get_port(daddr) != xcma_addr_get_port(cur_daddr))
			continue;
		if (!xcma_addr_is_any(saddr) && !xcma_addr_is_any(cur_saddr) &&
		    xcma_addr_cmp(saddr, cur_saddr))
			continue;
		if (!xcma_addr_is_any(daddr) && !xcma_addr_is_any(cur_daddr) &&
		    xcma_addr_cmp(daddr, cur_daddr))
			continue;
		return -EADDRNOTAVAIL;
	}
	return 0;
}

static int bind_any_port(struct xcma_port_binding *b,
			 enum rdma_ucm_port_space ps)
{
	unsigned int rover;
	int low, high, remaining, ret;
	struct xcma_port_entry *e;

	lockdep_assert_held(&port_lock);

	inet_get_local_port_range(net_of(b), &low, &high);
	remaining = high - low + 1;
	rover = get_random_u32_inclusive(low, high);
	for (; remaining > 0; remaining--, rover = rover < high ? rover + 1 : low) {
		if (rover == last_used_port)
			continue;
		e = find_entry(net_of(b), ps, rover);
		if (!e) {
			ret = attach_new(b, ps, rover);
		} else {
			ret = port_is_unique(e, b);
			if (!ret)
				attach(e, b);
		}
		if (!ret)
			last_used_port = rover;
		if (ret != -EADDRNOTAVAIL)
			return ret;
	}
	return -EADDRNOTAVAIL;
}

static int bind_port(struct xcma_port_binding *b, enum rdma_ucm_port_space ps)
{
	u16 port = ntohs(xcma_addr_get_port(src_of(b)));
	struct xcma_port_entry *e;
	int ret;

	lockdep_assert_held(&port_lock);

	if (port < PROT_SOCK && !capable(CAP_NET_BIND_SERVICE))
		return -EACCES;

	e = find_entry(net_of(b), ps, port);
	if (!e)
		return attach_new(b, ps, port);
	ret = check_port(e, b, b->reuseaddr);
	if (!ret)
		attach(e, b);
	return ret;
}

/**
 * xcma_port_binding_init() - prepare an id's binding, unbound
 * @b: the binding, embedded in the id
 * @addr: the id's addresses: its source, where the bound port will be
 *	written; its destination (ephemeral ports may be shared between ids
 *	that go to different destinations); its namespace, dev_addr.net,
 *	already set
 */
void xcma_port_binding_init(struct xcma_port_binding *b,
			    struct rdma_addr *addr)
{
	INIT_HLIST_NODE(&b->node);
	b->entry = NULL;
	b->addr = addr;
	b->reuseaddr = false;
	b->afonly = false;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_binding_init);

/**
 * xcma_port_default_afonly() - afonly of an id that did not set it
 * @net: the id's namespace
 * @family: the family of the address it binds
 *
 * An IPv4 id is IPv4-only. An IPv6 id follows the namespace's
 * net.ipv6.bindv6only, as an IPv6 socket does.
 *
 * Return: the afonly value to bind with.
 */
bool xcma_port_default_afonly(struct net *net, sa_family_t family)
{
	if (family == AF_INET)
		return true;
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6)
		return READ_ONCE(net->ipv6.sysctl.bindv6only);
#endif
	return false;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_default_afonly);

/*
 * The port space of an AF_IB address: the one its service ID names, as
 * far as the mask covers the port space bits, among those the id's own
 * port space admits (RDMA_PS_IB admits the three, RDMA_PS_TCP and
 * RDMA_PS_UDP only their own). On success the service ID is rewritten to
 * name that space and its mask to cover it (in-tree cma_select_ib_ps()).
 * Return: the port space, or 0 if there is none (bind's -EPROTONOSUPPORT).
 */
static enum rdma_ucm_port_space ib_port_space(struct sockaddr_ib *sib,
					      enum rdma_ucm_port_space id_ps)
{
	static const struct {
		enum rdma_ucm_port_space ps;
		u64 sid;
	} spaces[] = {
		{ RDMA_PS_IB, RDMA_IB_IP_PS_IB },
		{ RDMA_PS_TCP, RDMA_IB_IP_PS_TCP },
		{ RDMA_PS_UDP, RDMA_IB_IP_PS_UDP },
	};
	u64 mask = be64_to_cpu(sib->sib_sid_mask) & RDMA_IB_IP_PS_MASK;
	u64 sid = be64_to_cpu(sib->sib_sid) & mask;
	u16 port = ntohs(xcma_addr_get_port((struct sockaddr *)sib));
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(spaces); i++) {
		if (id_ps != RDMA_PS_IB && id_ps != spaces[i].ps)
			continue;
		if (sid != (spaces[i].sid & mask))
			continue;
		sib->sib_sid = cpu_to_be64(spaces[i].sid | port);
		sib->sib_sid_mask = cpu_to_be64(RDMA_IB_IP_PS_MASK |
						be64_to_cpu(sib->sib_sid_mask));
		return spaces[i].ps;
	}
	return 0;
}

/**
 * xcma_port_bind() - take the port of the id's source address
 * @b: an unbound binding
 * @ps: the id's port space
 *
 * Port 0 in the source address asks for an ephemeral port. On success the
 * port is written into the source address. The source and destination
 * families must have been set (the destination may be the wildcard). An
 * AF_IB address binds in the port space its service ID names (see
 * ib_port_space()), its port the low 16 bits of the service ID.
 *
 * Context: takes port_lock; may sleep.
 * Return: 0; -EAFNOSUPPORT for a family other than AF_INET, AF_INET6 and
 * AF_IB; -EPROTONOSUPPORT for an unknown port space, or an AF_IB service
 * ID outside the spaces the id's admits; -EACCES for a port below
 * PROT_SOCK without CAP_NET_BIND_SERVICE; -EADDRINUSE or -EADDRNOTAVAIL
 * on a conflict or when no ephemeral port is left; -ENOMEM.
 */
int xcma_port_bind(struct xcma_port_binding *b, enum rdma_ucm_port_space ps)
{
	sa_family_t family = src_of(b)->sa_family;
	int ret;

	if (WARN_ON_ONCE(b->entry))
		return -EINVAL;
	if (family != AF_INET && family != AF_INET6 && family != AF_IB)
		return -EAFNOSUPPORT;
	switch (ps) {
	case RDMA_PS_TCP:
	case RDMA_PS_UDP:
	case RDMA_PS_IPOIB:
	case RDMA_PS_IB:
		break;
	default:
		return -EPROTONOSUPPORT;
	}

	mutex_lock(&port_lock);
	if (family == AF_IB) {
		ps = ib_port_space((struct sockaddr_ib *)src_of(b), ps);
		if (!ps) {
			mutex_unlock(&port_lock);
			return -EPROTONOSUPPORT;
		}
	}
	if (xcma_addr_is_any_port(src_of(b)))
		ret = bind_any_port(b, ps);
	else
		ret = bind_port(b, ps);
	mutex_unlock(&port_lock);
	return ret;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_bind);

/**
 * xcma_port_listen() - the bound id is about to listen
 * @b: a bound binding
 *
 * A listener must own its address: if the id was bound with reuseaddr,
 * check again as if it had not been, and on success drop reuseaddr so
 * that later binds cannot share the address either.
 *
 * Context: takes port_lock; may sleep.
 * Return: 0, or -EADDRINUSE/-EADDRNOTAVAIL (reuseaddr is then kept).
 */
int xcma_port_listen(struct xcma_port_binding *b)
{
	int ret = 0;

	if (WARN_ON_ONCE(!b->entry))
		return -EINVAL;

	mutex_lock(&port_lock);
	if (b->reuseaddr) {
		ret = check_port(b->entry, b, false);
		if (!ret)
			b->reuseaddr = false;
	}
	mutex_unlock(&port_lock);
	return ret;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_listen);

/**
 * xcma_port_unbind() - give the port up
 * @b: the binding; nothing happens if it is not bound
 *
 * The last owner to leave frees the port. The source address keeps the
 * port number.
 *
 * Context: takes port_lock; may sleep.
 */
void xcma_port_unbind(struct xcma_port_binding *b)
{
	struct xcma_port_entry *e = b->entry;

	if (!e)
		return;

	mutex_lock(&port_lock);
	hlist_del_init(&b->node);
	b->entry = NULL;
	b->shared = false;
	if (hlist_empty(&e->owners)) {
		hash_del(&e->hash);
		kfree(e);
	}
	mutex_unlock(&port_lock);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_unbind);

/**
 * xcma_port_share() - join the port of another binding, outside the rules
 * @b: an unbound binding, with the same source address as @owner
 * @owner: a bound binding (a wildcard listener, for its per-device child)
 *
 * @b is found by xcma_port_find() on that port from now on, but is no
 * owner for the bind rules; xcma_port_unbind() lets go of it as usual.
 */
void xcma_port_share(struct xcma_port_binding *b,
		     struct xcma_port_binding *owner)
{
	mutex_lock(&port_lock);
	b->shared = true;
	attach(owner->entry, b);
	mutex_unlock(&port_lock);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_share);

/**
 * xcma_port_find() - a binding on a port that the caller accepts
 * @net: the namespace
 * @ps: the port space
 * @port: the port, host byte order
 * @match: says whether a binding is the one; called with port_lock held,
 *	so it may read the binding's fields but take no lock
 * @arg: for @match
 *
 * A hash lookup and a walk over the ids of that one port: a connect
 * request does not look at the ids of other ports or namespaces.
 *
 * Context: takes port_lock; may sleep.
 * Return: the first binding @match accepted, or NULL. It stays valid only
 * as long as the caller keeps its id from being unbound.
 */
struct xcma_port_binding *
xcma_port_find(struct net *net, enum rdma_ucm_port_space ps, u16 port,
	       bool (*match)(struct xcma_port_binding *b, void *arg),
	       void *arg)
{
	struct xcma_port_binding *b, *found = NULL;
	struct xcma_port_entry *e;

	mutex_lock(&port_lock);
	e = find_entry(net, ps, port);
	if (e) {
		hlist_for_each_entry(b, &e->owners, node) {
			if (match(b, arg)) {
				found = b;
				break;
			}
		}
	}
	mutex_unlock(&port_lock);
	return found;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_find);

/**
 * xcma_port_is_bound() - does the id hold a port
 * @b: the binding, read by its owner
 *
 * Return: true between a successful xcma_port_bind() and xcma_port_unbind().
 */
bool xcma_port_is_bound(const struct xcma_port_binding *b)
{
	return b->entry;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_is_bound);

/**
 * xcma_port_set_reuseaddr() - change reuseaddr, bound or not
 * @b: the binding
 * @reuseaddr: the new value
 *
 * Context: takes port_lock; may sleep.
 */
void xcma_port_set_reuseaddr(struct xcma_port_binding *b, bool reuseaddr)
{
	mutex_lock(&port_lock);
	b->reuseaddr = reuseaddr;
	mutex_unlock(&port_lock);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_set_reuseaddr);

/**
 * xcma_port_set_afonly() - change afonly, bound or not
 * @b: the binding
 * @afonly: the new value
 *
 * Context: takes port_lock; may sleep.
 */
void xcma_port_set_afonly(struct xcma_port_binding *b, bool afonly)
{
	mutex_lock(&port_lock);
	b->afonly = afonly;
	mutex_unlock(&port_lock);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_set_afonly);

static int set_addr(struct xcma_port_binding *b, struct sockaddr_storage *to,
		    const struct sockaddr *addr, bool keep_port)
{
	int ret;

	if (!xcma_addr_size(addr))
		return -EAFNOSUPPORT;

	mutex_lock(&port_lock);
	ret = xcma_addr_copy(to, addr);
	if (!ret && keep_port && b->entry)
		ret = xcma_addr_set_port((struct sockaddr *)to,
					 htons(b->entry->port));
	mutex_unlock(&port_lock);
	return ret;
}

/**
 * xcma_port_set_src() - update the source address of a bound id
 * @b: the binding
 * @addr: the new address, e.g. the one address resolution chose for a
 *	wildcard source; if @b is bound, its port stays the bound one
 *
 * Context: takes port_lock; may sleep.
 * Return: 0, or -EAFNOSUPPORT (nothing changed) for an unknown family.
 */
int xcma_port_set_src(struct xcma_port_binding *b, const struct sockaddr *addr)
{
	return set_addr(b, &b->addr->src_addr, addr, true);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_set_src);

/**
 * xcma_port_set_dst() - update the destination address of a bound id
 * @b: the binding
 * @addr: the new destination
 *
 * Context: takes port_lock; may sleep.
 * Return: 0, or -EAFNOSUPPORT (nothing changed) for an unknown family.
 */
int xcma_port_set_dst(struct xcma_port_binding *b, const struct sockaddr *addr)
{
	return set_addr(b, &b->addr->dst_addr, addr, false);
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_set_dst);

/**
 * xcma_port_owners() - how many ids hold a port
 * @net: the namespace
 * @ps: the port space
 * @port: the port, host byte order
 *
 * For tests and diagnostics; the answer may be stale on return.
 *
 * Context: takes port_lock; may sleep.
 * Return: the number of owners, 0 if the port is free.
 */
unsigned int xcma_port_owners(struct net *net, enum rdma_ucm_port_space ps,
			      u16 port)
{
	struct xcma_port_binding *b;
	struct xcma_port_entry *e;
	unsigned int n = 0;

	mutex_lock(&port_lock);
	e = find_entry(net, ps, port);
	if (e)
		hlist_for_each_entry(b, &e->owners, node)
			n += !b->shared;
	mutex_unlock(&port_lock);
	return n;
}
EXPORT_SYMBOL_IF_XCMA_TEST(xcma_port_owners);

/**
 * xcma_port_exit() - module unload
 *
 * Every id has been destroyed, hence unbound, by now: a port still in the
 * table is a leak in xcma itself.
 */
void xcma_port_exit(void)
{
	mutex_lock(&port_lock);
	WARN_ON(!hash_empty(port_table));
	mutex_unlock(&port_lock);
}
