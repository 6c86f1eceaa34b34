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
#   make install         build the drop-in under the name rdma_cm, install
#                        it in lib/modules/KVER/updates/ (where it takes
#                        the in-tree rdma_cm's place), run depmod
#                        (INSTALL_MOD_PATH=DIR: a root other than /)
#   make uninstall       remove it again (the in-tree rdma_cm is back)
#   make dkms-source DESTDIR=DIR   the DKMS source tree, DIR/usr/src/xcma-V
#   make deb             the Debian package xcma-dkms, in build/deb/
#
# KDIR defaults to the running kernel's build tree, or with KVER=release
# to that kernel's; XCMA_SIDE_BY_SIDE=1 exports the API as xcma_* for use
# next to the in-tree rdma_cm; XCMA_NAME=rdma_cm names the module rdma_cm.

ifdef KVER
KDIR ?= /lib/modules/$(KVER)/build
else
KDIR ?= /lib/modules/$(shell uname -r)/build
endif
# the release of the kernel KDIR builds for (Debian's headers can have a
# kernel.release that is not it)
kver = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' "$(KDIR)/include/generated/utsrelease.h")
# modules_install signs with the kernel's key when the build tree has it
sig-key = $(shell sed -n 's/^CONFIG_MODULE_SIG_KEY="\(.*\)"/\1/p' "$(KDIR)/.config")
no-sign = $(if $(wildcard $(KDIR)/$(sig-key) $(sig-key)),,CONFIG_MODULE_SIG_ALL=)
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
KERNEL ?= 6.1
BENCH_KERNEL ?= 6.12
CMD ?= rdma link show; cat /proc/modules
PAHOLE := MODULE_PAHOLE_FLAGS="--lang_exclude=rust,c++,c++03,c++11,c++14"

all: modules

modules:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): set KDIR="; exit 1; }
	@# drop-in: with the stock rdma_cm's symbol versions (make-dropin.sh)
	if [ "$(XCMA_SIDE_BY_SIDE)" = 1 ]; then \
		$(MAKE) -C "$(KDIR)" M="$(CURDIR)" $(PAHOLE) modules; \
	else \
		bash scripts/make-dropin.sh "$(KDIR)" "$(CURDIR)" $(PAHOLE) \
			XCMA_NAME="$(XCMA_NAME)"; \
	fi

# the drop-in as rdma_cm; modules_install compresses it as the kernel's are
install:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): set KDIR= or KVER="; exit 1; }
	$(MAKE) modules XCMA_NAME=rdma_cm
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" XCMA_NAME=rdma_cm $(PAHOLE) \
		INSTALL_MOD_DIR=updates INSTALL_MOD_PATH="$(INSTALL_MOD_PATH)" \
		$(no-sign) modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b "$(INSTALL_MOD_PATH)") "$(kver)"

uninstall:
	@test -d "$(KDIR)" || { echo "no kernel build tree at $(KDIR): set KDIR= or KVER="; exit 1; }
	rm -f "$(INSTALL_MOD_PATH)/lib/modules/$(kver)"/updates/rdma_cm.ko*
	depmod $(if $(INSTALL_MOD_PATH),-b "$(INSTALL_MOD_PATH)") "$(kver)"

# what DKMS builds from: the module's sources and the scripts of its build
dkms-source:
	@test -n "$(DESTDIR)" || { echo "make dkms-source DESTDIR=DIR"; exit 1; }
	d="$(DESTDIR)/usr/src/xcma-$(VERSION)" && mkdir -p "$$d/scripts" && \
	cp Kbuild Makefile dkms.conf LICENSE "$$d/" && \
	cp scripts/make-dropin.sh scripts/match-crcs.sh "$$d/scripts/" && \
	find cma include -name '*.[ch]' -o -name '*.[ch]pp' | \
		cpio -pdm --quiet "$$d"

deb:
	scripts/deb.sh

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
	rm -f .intree-crcs

.PHONY: all modules install uninstall dkms-source deb deps check demo unit tsan asan model mutants diagram kernel vm bench clean
