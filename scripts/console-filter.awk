# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# A VM console, less one kind of report: the hung-task report of the
# KUnit runner (insmod) waiting for the case it runs. kunit_try_catch_run()
# waits for the case's thread uninterruptibly, up to the case's timeout,
# so a case that takes more than hung_task_timeout_secs (20 s in our VMs,
# vm-init.sh) is reported as a hung insmod while it is merely slow: seen
# on a loaded machine, xcma_fault.op_fails's dev_add parameter, whose
# 'rdma link add' took 19 s. A case that does hang is still reported: its
# own thread (kunit_try_catch) in D state by the hung-task detector, any
# other wait by KUnit's timeout, which fails the case. Of such a report,
# only its two lines the scanner matches ("INFO: task ... blocked",
# "Call Trace:") are dropped, and only if the stack between <TASK> and
# </TASK> is the runner's (kunit_try_catch_run); everything else, lines
# interleaved from other CPUs included, is printed as it came.
# Used by scripts/vm.sh before its bad= scan, and by
# tests/harness/console/run.sh on its fixtures.

function flush(drop,	i) {
	for (i = 1; i <= n; i++)
		if (!(drop && (buf[i] ~ /INFO: task .* blocked for more than/ ||
			       buf[i] ~ /Call Trace:/)))
			print buf[i]
	n = 0
	inblk = 0
	runner = 0
}

/INFO: task .* blocked for more than/ {
	if (inblk)
		flush(0)
	inblk = 1
	buf[++n] = $0
	next
}

inblk {
	buf[++n] = $0
	if ($0 ~ /kunit_try_catch_run/)
		runner = 1
	if ($0 ~ /<\/TASK>/)
		flush(runner)
	next
}

{ print }

END {
	if (inblk)
		flush(0)
}
