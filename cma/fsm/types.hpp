/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Basic types of the freestanding lifecycle library: fixed-width integers
 * from the compiler, errno-carrying results, and an intrusive list. No
 * standard header is available here (the kernel build passes -nostdinc).
 */
#ifndef XCMA_FSM_TYPES_HPP
#define XCMA_FSM_TYPES_HPP

#include "xcma/fsm.h"

namespace xcma::fsm
{

using u8 = __UINT8_TYPE__;
using u16 = __UINT16_TYPE__;
using u32 = __UINT32_TYPE__;

/* 0 or a negative errno equal to the in-tree CM's for the same refusal. */
struct [[nodiscard]] Status {
	int err;

	constexpr bool ok() const
	{
		return err == 0;
	}
};

/* Result of applying an event: the state before and after, or a refusal. */
struct [[nodiscard]] Step {
	int err;
	u32 prev;
	u32 next;

	constexpr bool ok() const
	{
		return err == 0;
	}
};

inline void list_init(xcma_fsm_link *head)
{
	head->next = head;
	head->prev = head;
}

inline bool list_empty(const xcma_fsm_link *head)
{
	return head->next == head;
}

inline void list_add(xcma_fsm_link *node, xcma_fsm_link *head)
{
	node->prev = head;
	node->next = head->next;
	head->next->prev = node;
	head->next = node;
}

inline void list_add_tail(xcma_fsm_link *node, xcma_fsm_link *head)
{
	node->prev = head->prev;
	node->next = head;
	head->prev->next = node;
	head->prev = node;
}

inline void list_del_init(xcma_fsm_link *node)
{
	node->prev->next = node->next;
	node->next->prev = node->prev;
	list_init(node);
}

/*
 * container_of for the list members of the library's structs: NAME(link)
 * is the TYPE whose MEMBER @link is
 */
#define XCMA_FSM_ITEM_OF(name, type, member)               \
	inline type *name(xcma_fsm_link *l)                \
	{                                                  \
		return reinterpret_cast<type *>(           \
			reinterpret_cast<char *>(l) -      \
			__builtin_offsetof(type, member)); \
	}

XCMA_FSM_ITEM_OF(id_of_dev_item, xcma_fsm_id, dev_item)
XCMA_FSM_ITEM_OF(id_of_child_item, xcma_fsm_id, child_item)
XCMA_FSM_ITEM_OF(id_of_listen_item, xcma_fsm_id, listen_item)
XCMA_FSM_ITEM_OF(dev_of_ctx_item, xcma_fsm_dev, ctx_item)

} /* namespace xcma::fsm */

#endif /* XCMA_FSM_TYPES_HPP */
