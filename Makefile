# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
#   make                 build xcma.ko against KDIR
#   make check           every test layer, ends with "N passed, N failed"
#                        (XCMA_STRESS_ROUNDS=N: removal stress rounds;
#                        XCMA_TORTURE_OPS=N, XCMA_TORTURE_SEED=N: torture
#                        operations, and a seed to replay)
#   make demo            what xcma does today, on Debian's 6.1 kernel in QEMU
#   make model|mutants   the lifecycle model checker and its mutants
#   make unit            userspace tests of the C++ library (ASan+UBSan)
#   make vm KERNEL=6.1|6.12|kunit CMD='...'   your own command in the VM
#   make bench [BENCH_KERNEL=6.12|6.1|kunit]  xcma against the in-tree CM
#                        (speed and memory; figures, not a test)
#   make kernel          build (once) and print the cached KUnit kernel
#
# KDIR defaults to the running kernel's build tree; XCMA_SIDE_BY_SIDE=1
# exports the API as xcma_* for use next to the in-tree rdma_cm.

KDIR ?= /lib/modules/$(shell uname -r)/build
KERNEL ?= 6.1
BENCH_KERNEL ?= 6.12
CMD ?= rdma link show; cat /proc/modules
PAHOLE := MODULE_PAHOLE_FLAGS="--lang_exclude=rust,c++,c++03,c++11,c++14"

all: modules

modules:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): set KDIR="; exit 1; }
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" $(PAHOLE) modules
	@# drop-in: the stock rdma_cm's symbol versions (scripts/match-crcs.sh)
	@if [ "$(XCMA_SIDE_BY_SIDE)" != 1 ] && \
	    [ "$$(scripts/match-crcs.sh "$(CURDIR)" "$(KDIR)")" != 0 ]; then \
		$(MAKE) -C "$(KDIR)" M="$(CURDIR)" $(PAHOLE) modules; fi

deps:
	scripts/deps.sh

check:
	XCMA_STRESS_ROUNDS='$(XCMA_STRESS_ROUNDS)' \
		XCMA_TORTURE_OPS='$(XCMA_TORTURE_OPS)' \
		XCMA_TORTURE_SEED='$(XCMA_TORTURE_SEED)' scripts/check.sh

demo:
	scripts/demo.sh

unit tsan asan model mutants diagram:
	$(MAKE) -C tests $@

kernel:
	scripts/kunit-kernel.sh

vm:
	scripts/vm.sh -k "$(KERNEL)" -- '$(CMD)'

# BENCH_PARAMS and BENCH_PROFILE: see scripts/bench.sh
bench:
	BENCH_KERNEL='$(BENCH_KERNEL)' BENCH_PARAMS='$(BENCH_PARAMS)' \
		BENCH_PROFILE='$(BENCH_PROFILE)' scripts/bench.sh

clean:
	rm -rf build
	-$(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean 2>/dev/null

.PHONY: all modules deps check demo unit tsan asan model mutants diagram kernel vm bench clean
