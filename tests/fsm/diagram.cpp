// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Print the id state diagram as Graphviz dot, from the library's table
 * (xcma_fsm_rule), so the picture cannot drift from the code. Edges that
 * join the same two states are merged; operations are solid, notifications
 * dashed, lifecycle events bold.
 */
#include <cstdio>
#include <string>

#include "xcma/fsm.h"

int main()
{
	const char *style[] = { "solid", "dashed", "bold" };

	printf("digraph xcma_id_states {\n"
	       "\trankdir=LR;\n"
	       "\tnode [shape=box, style=rounded, fontname=Helvetica];\n"
	       "\tedge [fontname=Helvetica, fontsize=9];\n");
	for (unsigned s = 0; s < XCMA_FSM_NR_STATES; s++)
		printf("\ts%u [label=\"%s (%u)\"];\n", s,
		       xcma_fsm_state_name(s), s);
	for (unsigned from = 0; from < XCMA_FSM_NR_STATES; from++) {
		for (unsigned to = 0; to < XCMA_FSM_NR_STATES; to++) {
			for (unsigned kind = 0; kind < 3; kind++) {
				std::string label;
				for (unsigned ev = 0; ev < XCMA_EV_NR_EVENTS;
				     ev++) {
					unsigned next;
					if (xcma_fsm_event_kind(ev) != kind ||
					    xcma_fsm_rule(from, ev, &next) ||
					    next != to)
						continue;
					label += label.empty() ? "" : "\\n";
					label += xcma_fsm_event_name(ev);
				}
				if (!label.empty())
					printf("\ts%u -> s%u [label=\"%s\", "
					       "style=%s];\n",
					       from, to, label.c_str(),
					       style[kind]);
			}
		}
	}
	printf("}\n");
	return 0;
}
