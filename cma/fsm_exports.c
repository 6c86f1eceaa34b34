// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Exports of the lifecycle library's entry points, for the KUnit module.
 * They are defined in C++ (cma/fsm/), where EXPORT_SYMBOL cannot be used,
 * so the exports stand here, apart from their definitions; checkpatch's
 * EXPORT_SYMBOL placement rule is waived for this file alone.
 */
#include <linux/export.h>

#include "xcma/fsm.h"

EXPORT_SYMBOL_NS_GPL(xcma_fsm_rule, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_state_name, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_event_name, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_ctx_idle, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_state, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_transition, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_attach, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_listen, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_get, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_put, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_deliver, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_deliver_req, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_id_destroy, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_dev_add, XCMA_INTERNAL);
EXPORT_SYMBOL_NS_GPL(xcma_fsm_dev_remove, XCMA_INTERNAL);

