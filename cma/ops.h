/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Every call xcma makes into ib_core, ib_cm, iw_cm and address resolution goes
 * through xcma_ops, so that KUnit can put fakes in their place. In a
 * production build xcma_ops is a constant table whose initializer every
 * file sees, so the compiler makes each call a direct one: no writable
 * function pointer, no indirect call. Only a KUnit build (XCMA_OPS_SEAM)
 * has a pointer a test may swap (ops.c).
 */
#ifndef XCMA_OPS_H
#define XCMA_OPS_H

#include <linux/workqueue.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

typedef void (*xcma_resolve_cb)(int status, struct sockaddr *src_addr,
				struct rdma_dev_addr *addr, void *context);

/* what ib_sa hands a path record query's answer to (compat.h: the count) */
typedef void (*xcma_sa_path_cb)(int status, struct sa_path_rec *recs,
				XCMA_SA_COUNT num, void *context);

/* what ib_sa hands a multicast join's answers to */
typedef int (*xcma_sa_mc_cb)(int status, struct ib_sa_multicast *multicast);

/* the connection manager a port needs: the one decision (xcma_transport()) */
enum xcma_transport {
	XCMA_TRANSPORT_NONE,
	XCMA_TRANSPORT_IB,	/* ib_cm, SA path records */
	XCMA_TRANSPORT_ROCE,	/* ib_cm, routes from the netdev */
	XCMA_TRANSPORT_IWARP,	/* iw_cm */
};

/**
 * struct xcma_ops - the kernel functions xcma calls, one pointer each
 * @resolve_ip: rdma_resolve_ip()
 * @addr_cancel: rdma_addr_cancel()
 * @translate_ip: rdma_translate_ip()
 * @find_gid_by_port: rdma_find_gid_by_port()
 * @put_gid_attr: rdma_put_gid_attr()
 * @hold_gid_attr: rdma_hold_gid_attr()
 * @gid_attr_ndev_rcu: rdma_read_gid_attr_ndev_rcu()
 * @create_cm_id: ib_create_cm_id()
 * @destroy_cm_id: ib_destroy_cm_id()
 * @insert_listen: ib_cm_insert_listen()
 * @send_req: ib_send_cm_req()
 * @send_rep: ib_send_cm_rep()
 * @send_rtu: ib_send_cm_rtu()
 * @send_rej: ib_send_cm_rej()
 * @send_mra: ib_send_cm_mra()
 * @send_dreq: ib_send_cm_dreq()
 * @send_drep: ib_send_cm_drep()
 * @send_sidr_req: ib_send_cm_sidr_req()
 * @send_sidr_rep: ib_send_cm_sidr_rep()
 * @cm_notify: ib_cm_notify()
 * @cm_init_qp_attr: ib_cm_init_qp_attr()
 * @reject_msg: ibcm_reject_msg()
 * @create_qp: ib_create_qp()
 * @modify_qp: ib_modify_qp()
 * @destroy_qp: ib_destroy_qp()
 * @find_cached_pkey: ib_find_cached_pkey()
 * @get_cached_pkey: ib_get_cached_pkey()
 * @get_port_state: ib_get_cached_port_state()
 * @query_gid: rdma_query_gid()
 * @get_gid_attr: rdma_get_gid_attr()
 * @init_ah_attr_from_path: ib_init_ah_attr_from_path()
 * @destroy_ah_attr: rdma_destroy_ah_attr()
 * @iw_create_id: iw_create_cm_id()
 * @iw_destroy_id: iw_destroy_cm_id()
 * @iw_listen: iw_cm_listen()
 * @iw_connect: iw_cm_connect()
 * @iw_accept: iw_cm_accept()
 * @iw_reject: iw_cm_reject()
 * @iw_disconnect: iw_cm_disconnect()
 * @iw_init_qp_attr: iw_cm_init_qp_attr()
 * @iw_reject_msg: iwcm_reject_msg()
 * @queue_route: queue_work() of a route resolution's completion: over RoCE
 *	the route needs no query and is reported from a work item, which is
 *	what stands for the query in flight (cancelled with cancel_work_sync)
 * @port_transport: the transport of a port (xcma_ops_port_transport())
 * @sa_path_rec_get: ib_sa_path_rec_get(), the route query over IB
 * @sa_cancel_query: ib_sa_cancel_query()
 * @sa_join_multicast: ib_sa_join_multicast(), an MCMember join over IB
 * @sa_free_multicast: ib_sa_free_multicast(); waits for its callbacks
 * @sa_get_mcmember_rec: ib_sa_get_mcmember_rec(), a group ib_sa knows
 * @get_net_dev_by_params: ib_get_net_dev_by_params(), the IPoIB netdev
 *	of an IB port, pkey, GID and IP address (a request's, on IB)
 * @route_leaves_by: xcma_ib_route_leaves_by(), whether the answer to a
 *	request leaves by the netdev it came in on
 * @dev_access_netns: rdma_dev_access_netns(), whether a device is one of
 *	a namespace's (always, unless ib_core's netns mode is exclusive)
 *
 * Constant in production; in a KUnit build the table in use is written
 * only by xcma_ops_set() (with no id alive) and read without a lock.
 */
struct xcma_ops {
	int (*resolve_ip)(struct sockaddr *src, const struct sockaddr *dst,
			  struct rdma_dev_addr *addr, unsigned long timeout_ms,
			  xcma_resolve_cb cb, bool by_gid_attr, void *context);
	void (*addr_cancel)(struct rdma_dev_addr *addr);
	int (*translate_ip)(const struct sockaddr *addr,
			    struct rdma_dev_addr *dev_addr);
	const struct ib_gid_attr *(*find_gid_by_port)(struct ib_device *dev,
						      const union ib_gid *gid,
						      enum ib_gid_type type,
						      u32 port,
						      struct net_device *ndev);
	void (*put_gid_attr)(const struct ib_gid_attr *attr);
	void (*hold_gid_attr)(const struct ib_gid_attr *attr);
	struct net_device *(*gid_attr_ndev_rcu)(const struct ib_gid_attr *attr);
	struct ib_cm_id *(*create_cm_id)(struct ib_device *dev,
					 ib_cm_handler handler, void *context);
	void (*destroy_cm_id)(struct ib_cm_id *cm_id);
	struct ib_cm_id *(*insert_listen)(struct ib_device *dev,
					  ib_cm_handler handler,
					  __be64 service_id);
	int (*send_req)(struct ib_cm_id *cm_id, struct ib_cm_req_param *param);
	int (*send_rep)(struct ib_cm_id *cm_id, struct ib_cm_rep_param *param);
	int (*send_rtu)(struct ib_cm_id *cm_id, const void *data, u8 len);
	int (*send_rej)(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason,
			void *ari, u8 ari_len, const void *data, u8 len);
	int (*send_mra)(struct ib_cm_id *cm_id, u8 timeout, const void *data,
			u8 len);
	int (*send_dreq)(struct ib_cm_id *cm_id, const void *data, u8 len);
	int (*send_drep)(struct ib_cm_id *cm_id, const void *data, u8 len);
	int (*send_sidr_req)(struct ib_cm_id *cm_id,
			     struct ib_cm_sidr_req_param *param);
	int (*send_sidr_rep)(struct ib_cm_id *cm_id,
			     struct ib_cm_sidr_rep_param *param);
	int (*cm_notify)(struct ib_cm_id *cm_id, enum ib_event_type event);
	int (*cm_init_qp_attr)(struct ib_cm_id *cm_id, struct ib_qp_attr *attr,
			       int *mask);
	const char *(*reject_msg)(int reason);
	struct ib_qp *(*create_qp)(struct ib_pd *pd,
				   struct ib_qp_init_attr *attr);
	int (*modify_qp)(struct ib_qp *qp, struct ib_qp_attr *attr, int mask);
	int (*destroy_qp)(struct ib_qp *qp);
	int (*find_cached_pkey)(struct ib_device *dev, u32 port, u16 pkey,
				u16 *index);
	int (*get_cached_pkey)(struct ib_device *dev, u32 port, int index,
			       u16 *pkey);
	int (*get_port_state)(struct ib_device *dev, u32 port,
			      enum ib_port_state *state);
	int (*query_gid)(struct ib_device *dev, u32 port, int index,
			 union ib_gid *gid);
	const struct ib_gid_attr *(*get_gid_attr)(struct ib_device *dev,
						  u32 port, int index);
	int (*init_ah_attr_from_path)(struct ib_device *dev, u32 port,
				      struct sa_path_rec *rec,
				      struct rdma_ah_attr *ah_attr,
				      const struct ib_gid_attr *sgid_attr);
	void (*destroy_ah_attr)(struct rdma_ah_attr *ah_attr);
	struct iw_cm_id *(*iw_create_id)(struct ib_device *dev,
					 iw_cm_handler handler, void *context);
	void (*iw_destroy_id)(struct iw_cm_id *cm_id);
	int (*iw_listen)(struct iw_cm_id *cm_id, int backlog);
	int (*iw_connect)(struct iw_cm_id *cm_id,
			  struct iw_cm_conn_param *param);
	int (*iw_accept)(struct iw_cm_id *cm_id, struct iw_cm_conn_param *param);
	int (*iw_reject)(struct iw_cm_id *cm_id, const void *data, u8 len);
	int (*iw_disconnect)(struct iw_cm_id *cm_id, int abrupt);
	int (*iw_init_qp_attr)(struct iw_cm_id *cm_id, struct ib_qp_attr *attr,
			       int *mask);
	const char *(*iw_reject_msg)(int reason);
	bool (*queue_route)(struct work_struct *work);
	int (*init_mc_ah)(struct ib_device *dev, u32 port,
			  struct ib_sa_mcmember_rec *rec,
			  struct net_device *ndev, enum ib_gid_type type,
			  struct rdma_ah_attr *ah);
	bool (*queue_mc)(struct work_struct *work);
	enum xcma_transport (*port_transport)(struct ib_device *dev, u32 port);
	int (*sa_path_rec_get)(struct ib_sa_client *client,
			       struct ib_device *dev, u32 port,
			       struct sa_path_rec *rec,
			       ib_sa_comp_mask comp_mask,
			       unsigned long timeout_ms, gfp_t gfp,
			       xcma_sa_path_cb cb, void *context,
			       struct ib_sa_query **query);
	void (*sa_cancel_query)(int id, struct ib_sa_query *query);
	struct ib_sa_multicast *(*sa_join_multicast)(struct ib_sa_client *client,
						     struct ib_device *dev,
						     u32 port,
						     struct ib_sa_mcmember_rec *rec,
						     ib_sa_comp_mask comp_mask,
						     gfp_t gfp, xcma_sa_mc_cb cb,
						     void *context);
	void (*sa_free_multicast)(struct ib_sa_multicast *multicast);
	int (*sa_get_mcmember_rec)(struct ib_device *dev, u32 port,
				   union ib_gid *mgid,
				   struct ib_sa_mcmember_rec *rec);
	struct net_device *(*get_net_dev_by_params)(struct ib_device *dev,
						    u32 port, u16 pkey,
						    const union ib_gid *gid,
						    const struct sockaddr *addr);
	bool (*route_leaves_by)(struct net_device *ndev,
				const struct sockaddr *remote,
				const struct sockaddr *local);
	bool (*dev_access_netns)(const struct ib_device *dev,
				 const struct net *net);
};

/* xcma's own (ib.c): the network stack's answer, behind the seam */
bool xcma_ib_route_leaves_by(struct net_device *ndev,
			     const struct sockaddr *remote,
			     const struct sockaddr *local);

/* wrappers of static inlines, so that each entry has an address */
static inline struct ib_qp *xcma_ops_create_qp(struct ib_pd *pd,
					       struct ib_qp_init_attr *attr)
{
	return ib_create_qp(pd, attr);
}

static inline int xcma_ops_destroy_qp(struct ib_qp *qp)
{
	return ib_destroy_qp(qp);
}

/* the work item that stands for a RoCE route query, or delivers a join */
static inline bool xcma_ops_queue_route(struct work_struct *work)
{
	return queue_work(system_unbound_wq, work);
}

/*
 * What drives a port: iw_cm for iWARP, ib_cm for RoCE and for IB (which
 * adds SA path records), nothing for the rest (OPA's own CM included).
 */
static inline enum xcma_transport xcma_ops_port_transport(struct ib_device *dev,
							  u32 port)
{
	if (rdma_protocol_iwarp(dev, port))
		return XCMA_TRANSPORT_IWARP;
	if (rdma_protocol_roce(dev, port))
		return XCMA_TRANSPORT_ROCE;
	if (rdma_cap_ib_sa(dev, port))
		return XCMA_TRANSPORT_IB;
	return XCMA_TRANSPORT_NONE;
}

#define XCMA_KERNEL_OPS_INIT {					\
	.resolve_ip = rdma_resolve_ip,				\
	.addr_cancel = rdma_addr_cancel,			\
	.translate_ip = rdma_translate_ip,			\
	.find_gid_by_port = rdma_find_gid_by_port,		\
	.put_gid_attr = rdma_put_gid_attr,			\
	.hold_gid_attr = rdma_hold_gid_attr,			\
	.gid_attr_ndev_rcu = rdma_read_gid_attr_ndev_rcu,	\
	.create_cm_id = ib_create_cm_id,			\
	.destroy_cm_id = ib_destroy_cm_id,			\
	.insert_listen = ib_cm_insert_listen,			\
	.send_req = ib_send_cm_req,				\
	.send_rep = ib_send_cm_rep,				\
	.send_rtu = ib_send_cm_rtu,				\
	.send_rej = ib_send_cm_rej,				\
	.send_mra = ib_send_cm_mra,				\
	.send_dreq = ib_send_cm_dreq,				\
	.send_drep = ib_send_cm_drep,				\
	.send_sidr_req = ib_send_cm_sidr_req,			\
	.send_sidr_rep = ib_send_cm_sidr_rep,			\
	.cm_notify = ib_cm_notify,				\
	.cm_init_qp_attr = ib_cm_init_qp_attr,			\
	.reject_msg = ibcm_reject_msg,				\
	.create_qp = xcma_ops_create_qp,			\
	.modify_qp = ib_modify_qp,				\
	.destroy_qp = xcma_ops_destroy_qp,			\
	.find_cached_pkey = ib_find_cached_pkey,		\
	.get_cached_pkey = ib_get_cached_pkey,			\
	.get_port_state = ib_get_cached_port_state,		\
	.query_gid = rdma_query_gid,				\
	.get_gid_attr = rdma_get_gid_attr,			\
	.init_ah_attr_from_path = ib_init_ah_attr_from_path,	\
	.destroy_ah_attr = rdma_destroy_ah_attr,		\
	.iw_create_id = iw_create_cm_id,			\
	.iw_destroy_id = iw_destroy_cm_id,			\
	.iw_listen = iw_cm_listen,				\
	.iw_connect = iw_cm_connect,				\
	.iw_accept = iw_cm_accept,				\
	.iw_reject = iw_cm_reject,				\
	.iw_disconnect = iw_cm_disconnect,			\
	.iw_init_qp_attr = iw_cm_init_qp_attr,			\
	.iw_reject_msg = iwcm_reject_msg,			\
	.queue_route = xcma_ops_queue_route,			\
	.init_mc_ah = ib_init_ah_from_mcmember,			\
	.queue_mc = xcma_ops_queue_route,			\
	.port_transport = xcma_ops_port_transport,		\
	.sa_path_rec_get = ib_sa_path_rec_get,			\
	.sa_cancel_query = ib_sa_cancel_query,			\
	.sa_join_multicast = ib_sa_join_multicast,		\
	.sa_free_multicast = ib_sa_free_multicast,		\
	.sa_get_mcmember_rec = ib_sa_get_mcmember_rec,		\
	.get_net_dev_by_params = ib_get_net_dev_by_params,	\
	.route_leaves_by = xcma_ib_route_leaves_by,		\
	.dev_access_netns = rdma_dev_access_netns,		\
}

#ifdef XCMA_OPS_SEAM
extern const struct xcma_ops *xcma_ops;
extern const struct xcma_ops xcma_kernel_ops;

const struct xcma_ops *xcma_ops_set(const struct xcma_ops *ops);
#else
/* one copy per file, folded away: each xcma_ops->f() is a direct call */
static const struct xcma_ops xcma_direct_ops __maybe_unused =
	XCMA_KERNEL_OPS_INIT;
#define xcma_ops (&xcma_direct_ops)
#endif

/**
 * xcma_transport - the transport of an id's port, the one place that
 *	decides it
 * @dev: the device, may be NULL (no transport)
 * @port: the port
 *
 * Return: enum xcma_transport.
 */
static inline enum xcma_transport xcma_transport(struct ib_device *dev,
						 u32 port)
{
	return dev ? xcma_ops->port_transport(dev, port) : XCMA_TRANSPORT_NONE;
}

/* ib_cm drives the port (IB or RoCE) */
static inline bool xcma_transport_ib_cm(struct ib_device *dev, u32 port)
{
	enum xcma_transport t = xcma_transport(dev, port);

	return t == XCMA_TRANSPORT_IB || t == XCMA_TRANSPORT_ROCE;
}

/* iw_cm drives the port (iWARP) */
static inline bool xcma_transport_iw(struct ib_device *dev, u32 port)
{
	return xcma_transport(dev, port) == XCMA_TRANSPORT_IWARP;
}

#endif /* XCMA_OPS_H */
