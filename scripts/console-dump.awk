# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The stacks a timed-out VM run dumped (vm-init.sh: sysrq w, then sysrq l),
# one line a record: the blocked tasks' headers, the NMI backtraces' heads
# and every reliable frame ("? " frames are guesses and are left out).
# The dump starts at the guest's timeout marker or at sysrq's own first
# line, whichever comes first, and a record is found anywhere in its
# line: the console is shared by the kernel and the guest's shell, and a
# shell line still draining through the UART can land in front of a
# kernel record (once in CI: "...CPUs follow[   40.55] task:plant_dstate
# ...", and the dump lost the one task it was for).
# Used by scripts/vm.sh, and by tests/harness/console/run.sh on its
# fixtures.

{ sub(/\r$/, "") }
!on && /XCMA-VM: timeout: |sysrq: Show Blocked State/ { on = 1 }
!on { next }
match($0, /\[ *[0-9.]+\] *(task:|XCMA-VM|NMI backtrace| ? *[a-z_0-9.]+\+0x)/) {
	rec = substr($0, RSTART)
	if (rec !~ / \? /)
		print rec
}
