/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Side-by-side mode: the rdma_cm API under the xcma_ prefix.
 *
 * Force-included before <rdma/rdma_cm.h> both by xcma itself and by a
 * consumer that wants xcma next to the in-tree rdma_cm, so that the
 * prototypes stay exactly those of the target's own header and only the
 * link names change. One list, used by both sides.
 */
#ifndef XCMA_SBS_H
#define XCMA_SBS_H

#define __rdma_create_kernel_id __xcma_create_kernel_id
#define rdma_create_user_id xcma_create_user_id
#define rdma_destroy_id xcma_destroy_id
#define rdma_bind_addr xcma_bind_addr
#define rdma_resolve_addr xcma_resolve_addr
#define rdma_resolve_route xcma_resolve_route
#define rdma_set_ib_path xcma_set_ib_path
#define rdma_create_qp xcma_create_qp
#define rdma_destroy_qp xcma_destroy_qp
#define rdma_init_qp_attr xcma_init_qp_attr
#define rdma_listen xcma_listen
#define rdma_connect xcma_connect
#define rdma_connect_locked xcma_connect_locked
#define rdma_connect_ece xcma_connect_ece
#define rdma_accept xcma_accept
#define rdma_accept_ece xcma_accept_ece
#define rdma_reject xcma_reject
#define rdma_consumer_reject_data xcma_consumer_reject_data
#define rdma_reject_msg xcma_reject_msg
#define rdma_disconnect xcma_disconnect
#define rdma_notify xcma_notify
#define rdma_join_multicast xcma_join_multicast
#define rdma_leave_multicast xcma_leave_multicast
#define rdma_set_service_type xcma_set_service_type
#define rdma_set_reuseaddr xcma_set_reuseaddr
#define rdma_set_afonly xcma_set_afonly
#define rdma_set_ack_timeout xcma_set_ack_timeout
#define rdma_set_min_rnr_timer xcma_set_min_rnr_timer
#define rdma_event_msg xcma_event_msg
#define rdma_lock_handler xcma_lock_handler
#define rdma_unlock_handler xcma_unlock_handler
#define rdma_get_service_id xcma_get_service_id
#define rdma_read_gids xcma_read_gids
#define rdma_iw_cm_id xcma_iw_cm_id
#define rdma_res_to_id xcma_res_to_id

#endif /* XCMA_SBS_H */
