#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# xcma installed the way a host gets it, into a module tree a stock-kernel
# VM then boots with, and removed again:
#
#   scripts/install-test.sh 6.1|6.12 make|dkms|deb
#     make   `make install INSTALL_MOD_PATH=root` in the sources of `make
#            dkms-source`, then `make uninstall`
#     dkms   those sources, dkms add + install, then dkms remove --all
#     deb    `apt-get install ./xcma-dkms_*.deb` (make deb), then
#            `apt-get purge xcma-dkms`
#   XCMA_INST_PLANT='wrong-name|no-crcs|no-parm-desc|no-uverbs-dep ...'|keep
#     plant faults (dkms only but keep; several at once, space-separated):
#     dkms.conf installing xcma.ko, the CRC match made a no-op, the
#     parameter's description gone, neither the ib_uverbs reference nor
#     the softdep; keep skips the removal. A planted run ends once a check
#     failed after the install, or after the first boot (make check's
#     harness layer requires each fault to fail its check there)
#
# All of it happens in a private mount namespace, in a root that is an
# overlay of / on a tmpfs: apt, dpkg, DKMS and depmod run in it (chroot)
# as on a real Debian 12 host, and their writes vanish with the
# namespace. Its /lib/modules holds only the stock kernel's tree (itself
# an overlay), so the build machine's own kernels and running kernel play
# no part: DKMS builds for that kernel alone. The VM boots from that tree
# (vm.sh --modroot) with no xcma loaded, and runs scripts/install-vm.sh
# with the kernel's own modprobe. Prints one line per check,
# "PASS install/<kernel>-<how>/<check>" or "FAIL ...".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
k=$1 how=$2 plant=${XCMA_INST_PLANT:-}
case $how in make | dkms | deb) ;; *) echo "install-test: make, dkms or deb, not $how" >&2; exit 2 ;; esac
if [ "${XCMA_INST_NS:-}" != 1 ]; then
	exec unshare -m --propagation private env XCMA_INST_NS=1 "$0" "$@"
fi
eval "$("$top/scripts/kernels.sh" "$k")"	# KDIR KMODS KVER KTAG
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
tag=$KTAG-$how
logs=$top/build/install/$tag
mkdir -p "$logs"
fails=0
verdict() {
	if [ "$2" = 0 ]; then echo "PASS install/$tag/$1"; else echo "FAIL install/$tag/$1"; fails=1; fi
}
# step NAME CMD...: a step whose failure fails the case and stops the run
step() {
	local name=$1 rc=0
	shift
	"$@" >"$logs/$name.log" 2>&1 || rc=$?
	verdict "$name" $rc
	if [ $rc != 0 ]; then
		tail -20 "$logs/$name.log" | sed 's/^/    | /'
		# a DKMS build's own log is in the root, which goes away
		if cp "${m:-/nonexistent}"/var/lib/dkms/xcma/*/build/make.log \
			"$logs/dkms-make.log" 2>/dev/null; then
			echo "    | DKMS build log ($logs/dkms-make.log):"
			grep -v 'Skipping BTF' "$logs/dkms-make.log" | tail -8 | sed 's/^/    | /'
		fi
		exit 1
	fi
}

# the root: nothing here may be removed with rm -r, which would reach
# through the overlay's binds; the mounts go with the namespace
scr=$(mktemp -d /tmp/xcma-inst.XXXXXX)
trap 'umount -R -l "$scr"; rmdir "$scr"' EXIT
mount -t tmpfs inst "$scr"
# device nodes of our own, for the root and, over /dev/null, for this
# namespace: a /dev/null that is not the null device (seen on the build
# machine: a regular file, rewritten by every redirection) feeds
# genksyms' reference file (-r /dev/null) and fails builds at random
mkdir "$scr"/{u,w,m,mu,mw,dev}
for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
	IFS=: read -r d maj min <<<"$n"
	mknod -m 666 "$scr/dev/$d" c "$maj" "$min"
done
mount --bind "$scr/dev/null" /dev/null
m=$scr/m
mount -t overlay inst -o lowerdir=/,upperdir="$scr/u",workdir="$scr/w" "$m"
mount -t tmpfs mods "$m/lib/modules"
mkdir "$m/lib/modules/$KVER"
mount -t overlay mods -o lowerdir="$KMODS/lib/modules/$KVER",upperdir="$scr/mu",workdir="$scr/mw" \
	"$m/lib/modules/$KVER"
ln -s "/usr/src/linux-headers-$KVER" "$m/lib/modules/$KVER/build"
mount -t proc proc "$m/proc"
mount -t tmpfs dev "$m/dev"
cp -a "$scr"/dev/* "$m/dev/"
ln -s /proc/self/fd "$m/dev/fd"
for i in 0:stdin 1:stdout 2:stderr; do ln -s "/proc/self/fd/${i%:*}" "$m/dev/${i#*:}"; done
mkdir "$m/dev/pts"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$m/dev/pts" &&
	ln -s pts/ptmx "$m/dev/ptmx"

# what is built outside the root: the package, the example consumer
# (built against the stock kernel alone, a consumer that never heard of
# xcma)
deb=
[ "$how" = deb ] && step make-deb make -s -C "$top" deb && deb=$(tail -1 "$logs/make-deb.log")
step build-example "$top/scripts/build-module.sh" "$k" dropin stock-examples
pp=$top/build/mod/$KTAG-stock-examples/xcma_pingpong.ko

# A planted run (make check's harness layer) compiles through ccache, its
# cache bound into the root: the plants build the same sources again and
# again. A run without a plant builds as a host would.
cc_env=()
case $plant in
'' | keep) ;;
*)
	mkdir -p "$m/var/cache/xcma/ccache"
	mount --bind "${XCMA_CACHE:-/var/cache/xcma}/ccache" "$m/var/cache/xcma/ccache"
	cc_env=(PATH=/usr/lib/ccache:/usr/sbin:/usr/bin:/sbin:/bin CCACHE_DIR=/var/cache/xcma/ccache)
	;;
esac
in_root() { chroot "$m" env DEBIAN_FRONTEND=noninteractive "${cc_env[@]}" "$@"; }
src=$m/usr/src/xcma-$ver

case $how in
make)
	make -s -C "$top" dkms-source DESTDIR="$m"
	step make-install make -C "$src" install KVER="$KVER" INSTALL_MOD_PATH="$m"
	;;
dkms)
	make -s -C "$top" dkms-source DESTDIR="$m"
	for p in $plant; do
		case $p in
		wrong-name) sed -i 's/ XCMA_NAME=rdma_cm//; s/^BUILT_MODULE_NAME\[0\]=.*/BUILT_MODULE_NAME[0]="xcma"/' \
			"$src/dkms.conf" ;;
		no-crcs) printf '#!/bin/bash\necho 0\n' >"$src/scripts/match-crcs.sh" ;;
		no-parm-desc) sed -i '/^MODULE_PARM_DESC(removal_report_secs/,/;$/d' "$src/cma/lifecycle.c" ;;
		no-uverbs-dep) sed -i '/xcma_uverbs_dep __used/d' "$src/cma/device.c"
			sed -i '/^MODULE_SOFTDEP/d' "$src/cma/main.c" ;;
		keep) ;;
		*) echo "install-test: no plant called $p" >&2; exit 2 ;;
		esac
	done
	step dkms-install in_root sh -c "dkms add -m xcma -v $ver &&
		dkms install -m xcma -v $ver -k $KVER"
	;;
deb)
	cp "$deb" "$m/root/"
	step apt-install in_root sh -c "cd /root && apt-get install -y ./${deb##*/} &&
		dpkg-query -W -f='\${Status}' xcma-dkms | grep -q 'ok installed'"
	;;
esac
ko=$(in_root modinfo -k "$KVER" -n rdma_cm 2>&1) || true
echo "$ko" >"$logs/modinfo-n.log"
case $ko in
*/updates/dkms/rdma_cm.ko*) verdict installed-as-rdma_cm 0 ;;
*/updates/rdma_cm.ko*) verdict installed-as-rdma_cm "$([ "$how" = make ] && echo 0 || echo 1)" ;;
*) verdict installed-as-rdma_cm 1; echo "    | modinfo -n rdma_cm: $ko" ;;
esac
case $plant in '' | keep) ;; *) [ $fails = 0 ] || exit $fails ;; esac

# boot ARG...: the VM from the root's module tree, install-vm.sh ARG...
boot() {
	local log=$top/build/vm/install-$tag-$1.log rc=0
	XCMA_VM_BINS=kmod "$top/scripts/vm.sh" -q -k "$k" --no-xcma --modroot "$m" \
		--mods 'rdma_ucm nvme-rdma' -o "$log" -f "$pp" -f "$top/scripts/hotplug.sh" \
		-f "$top/scripts/install-vm.sh" -- "sh /xcma/install-vm.sh $*" \
		>"$logs/vm-$1.log" 2>&1 || rc=$?
	grep -aoE '(PASS|FAIL) install/[^ ]+' "$log" 2>/dev/null | tr -d '\r' |
		while read -r v c; do echo "$v install/$tag/$1/${c#install/}"; done
	grep -aE 'FAIL|hotplug: |Unknown symbol|disagrees' "$log" 2>/dev/null | sed 's/^/    | /' | head -20 || true
	verdict "$1/vm" $rc
	[ $rc = 0 ] || sed 's/^/    | /' "$logs/vm-$1.log"
}
boot installed "$ver"
# a planted fault has shown by now: the removal tests nothing of it
case $plant in '' | keep) ;; *) exit $fails ;; esac

if [ "$plant" != keep ]; then
	case $how in
	make) step make-uninstall make -C "$src" uninstall KVER="$KVER" INSTALL_MOD_PATH="$m" ;;
	dkms) step dkms-remove in_root dkms remove -m xcma -v "$ver" --all ;;
	deb) step apt-purge in_root apt-get purge -y xcma-dkms ;;
	esac
fi
# what is left of xcma (the sources in /usr/src are the package's: dkms
# remove leaves them)
left=$(cd "$m" && ls -d "lib/modules/$KVER/updates/dkms/rdma_cm.ko"* var/lib/dkms/xcma \
	"lib/modules/$KVER/updates/rdma_cm.ko"* 2>/dev/null || true)
[ "$how" != deb ] || left="$left $(cd "$m" && ls -d usr/src/xcma-* 2>/dev/null || true)"
# purged: dpkg knows the package no more (not even its conffiles)
if [ "$how" = deb ] && in_root dpkg-query -W -f='${Status}\n' xcma-dkms 2>/dev/null |
	grep -qv 'not-installed'; then
	left="$left dpkg:xcma-dkms"
fi
left=$(echo $left)	# one line
if [ -z "$left" ]; then
	verdict removed-cleanly 0
else
	verdict removed-cleanly 1
	echo "    | left behind: $left"
fi
boot removed
exit $fails
