#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Boot a kernel under QEMU (TCG) with a busybox initramfs, a virtio NIC with
# IPv4/IPv6 addresses, Soft-RoCE (rxe0 on eth0) and xcma loaded, run one
# shell command inside, and return its exit status. The run fails, whatever
# the command returned, if the console shows a kernel warning, BUG, oops,
# lockdep/KASAN/kmemleak/UBSAN report, hung task or stall.
#
#   scripts/vm.sh [options] [--] 'command'
#     -k, --kernel 6.1|6.12|kunit|kcsan
#                                   which kernel (default 6.1, Debian stock;
#                                   kunit and kcsan: the debug kernels)
#     -f, --file PATH               copy PATH into the VM's /xcma (repeatable)
#     -p, --params 'k=v ...'        xcma.ko module parameters
#     -o, --log FILE                console log (default build/vm/<kernel>.log)
#     -t, --timeout SEC             give up after SEC seconds (default 900)
#     -q, --quiet                   no console on stdout, only the verdict
#     --no-xcma                     do not load xcma.ko
#     --preload 'mod ...'           modprobe these before rxe (e.g. rdma_cm)
#     -a, --append 'k=v ...'        more kernel command line, e.g.
#                                   'kunit.filter_glob=xcma_removal*'
#     --sbs                         build and load the side-by-side xcma.ko
#                                   (xcma_* exports, build/mod/<kernel>-sbs),
#                                   which loads next to the in-tree rdma_cm
#     --user                        also stage rdma-core's userspace: the
#                                   tools of rdmacm-utils, libibverbs with
#                                   the rxe provider, and the kernel's
#                                   rdma_ucm.ko (loaded by the command)
#     --modroot DIR                 take the modules from DIR/lib/modules/
#                                   <release> instead of the stock tree
#                                   (a root xcma was installed into)
#     --mods 'mod ...'              also stage these modules (and what they
#                                   depend on) for the command to load
#                                   (names split by spaces or commas)
#     --siw                         also stage Soft-iWARP for the command
#                                   to load (modprobe siw): on a stock
#                                   kernel the test-only siw.ko of
#                                   scripts/siw-module.sh; with --user
#                                   also libibverbs' siw provider
#     --nfs                         also stage NFS over RDMA: the
#                                   kernel's NFS server and client and
#                                   rpcrdma (loaded by the command), and
#                                   Debian's nfs-utils and rpcbind as
#                                   scripts/deps.sh unpacked them
#                                   (tests/vm/nfs.sh)
#     --iser                        also stage iSCSI over RDMA: the LIO
#                                   target with ib_isert, and ib_iser
#                                   with open-iscsi's iscsid and
#                                   iscsiadm (tests/vm/iser.sh)
#     --srp                         also stage SRP: the LIO target with
#                                   ib_srpt, and ib_srp (tests/vm/srp.sh)
#     --icount                      count instructions (QEMU -icount
#                                   shift=0: guest time is the number of
#                                   instructions run, one TCG thread): a
#                                   bench's ratios then say which CM does
#                                   more work, not what TCG charges for
#                                   its code (docs/bench.md)
#     --wire DIR:SELF:PEER          put eth0 on a wire to another guest
#                                   instead of the drop-everything
#                                   backend: QEMU datagrams over the unix
#                                   sockets DIR/SELF.sock (this guest's)
#                                   and DIR/PEER.sock (the peer's), no
#                                   host network involved; SELF (1-9) is
#                                   this guest's host number: MAC
#                                   52:54:00:99:00:0SELF, 10.99.0.SELF,
#                                   fd00:99::SELF, and the peer's
#                                   addresses are in XCMA_PEER4/6
#                                   (scripts/pair.sh starts the two)
#     --monitor PATH                QEMU's monitor on the unix socket PATH
#                                   (stop/cont: freeze the guest with its
#                                   clocks, scripts/pair.sh)
#
# Files copied with -f land in /xcma, the command's working directory.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kernel=6.1 files=() params= extra= log= timeout=900 quiet=0 load=1 preload= mode= user=0
modroot= xmods= siw=0 icount=0 wire= monitor=none nfs=0 iser=0 srp=0
while [ $# -gt 0 ]; do
	case "$1" in
	-k | --kernel) kernel=$2; shift 2 ;;
	-f | --file) files+=("$2"); shift 2 ;;
	-p | --params) params=$2; shift 2 ;;
	-a | --append) extra=$2; shift 2 ;;
	-o | --log) log=$2; shift 2 ;;
	-t | --timeout) timeout=$2; shift 2 ;;
	-q | --quiet) quiet=1; shift ;;
	--no-xcma) load=0; shift ;;
	--preload) preload=$2; shift 2 ;;
	--sbs) mode=sbs; shift ;;
	--user) user=1; shift ;;
	--modroot) modroot=$2; shift 2 ;;
	--mods) xmods=${2//,/ }; shift 2 ;;
	--siw) siw=1; shift ;;
	--icount) icount=1; shift ;;
	--nfs) nfs=1; shift ;;
	--iser) iser=1; shift ;;
	--srp) srp=1; shift ;;
	--wire) wire=$2; shift 2 ;;
	--monitor) monitor=unix:$2,server=on,wait=off; shift 2 ;;
	--) shift; break ;;
	-*) echo "vm.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
cmd=${*:-true}
self=1 peer=
if [ -n "$wire" ]; then
	IFS=: read -r wdir self peer <<<"$wire"
	case $self$peer in
	[1-9][1-9]) ;;
	*) echo "vm.sh: --wire DIR:SELF:PEER, with host numbers 1-9" >&2; exit 2 ;;
	esac
fi

eval "$("$top/scripts/kernels.sh" "$kernel")"	# KDIR KIMAGE KMODS KVER KTAG
debug=0
case $kernel in kunit | kcsan) debug=1 ;; esac
[ -z "$modroot" ] || KMODS=$modroot
log=${log:-$top/build/vm/$KTAG.log}
mkdir -p "$(dirname "$log")"
# a run that fails before QEMU starts must leave no console of an earlier
# run behind for the caller to parse
rm -f "$log"

if [ $load = 1 ]; then
	xcma_ko=$("$top/scripts/build-module.sh" "$kernel" $mode)
	files=("$xcma_ko" "${files[@]}")
fi

stage=$(mktemp -d /tmp/xcma-vm.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/sbin,xcma,lib/modules}

# stage_libs FILE: the shared libraries FILE links against, at their paths;
# one that cannot be found ends the run with its name
stage_libs() {
	local libs
	libs=$(ldd "$1")
	if grep -q 'not found' <<<"$libs"; then
		echo "vm.sh: $1: $(grep 'not found' <<<"$libs" | tr -d '\t' | tr '\n' ' ')(scripts/deps.sh)" >&2
		exit 1
	fi
	grep -o '/[^ ]*' <<<"$libs" | while read -r lib; do
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

# busybox, iproute2 and what they link against; iproute2 goes to
# /usr/sbin in the VM (busybox has applets of the same names in /bin)
cp /bin/busybox "$stage/bin/busybox"
for b in ip rdma ${XCMA_VM_BINS:-}; do
	src=$(command -v "$b") || { echo "vm.sh: $b not found" >&2; exit 1; }
	cp -L "$src" "$stage/usr/sbin/$(basename "$b")"
	stage_libs "$src"
done

# rdma-core's userspace: librdmacm's tools, the rxe provider libibverbs
# dlopens by the path its .driver file names, and libgcc_s, which glibc
# dlopens when a thread exits
if [ $user = 1 ]; then
	vbins="rping ucmatose rdma_server rdma_client udaddy mckey"
	libdir=/usr/lib/x86_64-linux-gnu
	for b in $vbins "$libdir/libibverbs/librxe-rdmav34.so"; do
		src=$(command -v "$b" || echo "$b")
		[ -e "$src" ] || { echo "vm.sh: $b not found (scripts/deps.sh)" >&2; exit 1; }
		case $src in
		*.so) mkdir -p "$stage$(dirname "$src")"; cp -L "$src" "$stage$src" ;;
		*) cp -L "$src" "$stage/usr/sbin/" ;;
		esac
		stage_libs "$src"
	done
	cp -L "$libdir/libgcc_s.so.1" "$stage/lib/x86_64-linux-gnu/"
	mkdir -p "$stage/etc/libibverbs.d"
	cp /etc/libibverbs.d/rxe.driver "$stage/etc/libibverbs.d/"
	if [ $siw = 1 ]; then
		cp -L "$libdir/libibverbs/libsiw-rdmav34.so" "$stage$libdir/libibverbs/"
		cp /etc/libibverbs.d/siw.driver "$stage/etc/libibverbs.d/"
	fi
fi

# The consumers' userspace (nfs-utils, rpcbind, open-iscsi), unpacked from
# Debian's packages by scripts/deps.sh (not installed: the host runs none
# of their daemons), and the libraries they link against from the host
croot=${XCMA_CACHE:-/var/cache/xcma}/consumers/root
stage_consumer_bins() {
	local b
	[ -f "$croot/.done" ] || { echo "vm.sh: no consumer userspace in $croot (scripts/deps.sh)" >&2; exit 1; }
	for b in "$@"; do
		cp "$croot/$b" "$stage/usr/sbin/"
		stage_libs "$croot/$b"
	done
}
# (iscsid serves only a peer whose uid has the name root)
if [ $nfs = 1 ] || [ $iser = 1 ]; then
	mkdir -p "$stage/etc"
	printf 'root:x:0:0::/:/bin/sh\n_rpc:x:100:65534::/run/rpcbind:/bin/false\n' >"$stage/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
fi
if [ $nfs = 1 ]; then
	stage_consumer_bins sbin/mount.nfs sbin/rpcbind usr/sbin/rpcinfo usr/sbin/rpc.nfsd \
		usr/sbin/rpc.mountd usr/sbin/exportfs
	# what libtirpc, rpcbind and nfs-utils look up
	mkdir -p "$stage/etc"
	cp /etc/netconfig "$stage/etc/"
	ln -s /proc/mounts "$stage/etc/mtab"
	printf '%s\n' 'ip 0 IP' 'tcp 6 TCP' 'udp 17 UDP' >"$stage/etc/protocols"
	printf '%s\n' 'sunrpc 111/tcp' 'sunrpc 111/udp' 'nfs 2049/tcp' 'nfs 2049/udp' >"$stage/etc/services"
	xmods="$xmods sunrpc nfsd nfs nfsv3 nfsv4 rpcrdma"
fi
# iSCSI over RDMA: the LIO target with its iSER transport (ib_isert), a
# ramdisk backstore (in target_core_mod), open-iscsi's initiator over
# ib_iser
if [ $iser = 1 ]; then
	stage_consumer_bins sbin/iscsid sbin/iscsiadm
	mkdir -p "$stage/etc/iscsi"
	cp "$croot/etc/iscsi/iscsid.conf" "$stage/etc/iscsi/"
	echo 'InitiatorName=iqn.2026-12.org.xcma:initiator' >"$stage/etc/iscsi/initiatorname.iscsi"
	xmods="$xmods crc32c_generic target_core_mod iscsi_target_mod ib_isert ib_iser sd_mod"
fi
# SRP over the RDMA CM: the LIO target with ib_srpt, and ib_srp
[ $srp = 0 ] || xmods="$xmods target_core_mod ib_srpt ib_srp sd_mod"

# the module closure of what the VM loads, with a fresh modules.dep
mods="rdma_rxe ib_uverbs rdma_cm crc32_generic virtio_pci virtio_net veth $preload $xmods"
# Soft-iWARP for the KUnit suites that add siw0 (stock kernels lack siw.ko)
[ $debug = 1 ] && mods="$mods siw"
# An entropy source, as every real host has: without one the guest's crng
# is never ready during a run, and each get_random_u32() then takes the
# slow path (about 6 us under TCG, against nanoseconds on a host), which
# skews every figure of a CM that asks for random numbers. Stock kernels
# have virtio-rng as a module, the debug kernels built in.
rng=1
[ $debug = 1 ] || mods="$mods virtio_rng"
[ $user = 1 ] && mods="$mods rdma_ucm"
# a stock kernel's siw.ko is not in its tree: staged below, with what it
# depends on and the crc32c its CRC needs (the crypto API asks for it)
siw_ko=
if [ $siw = 1 ] && [ $debug = 0 ]; then
	siw_ko=$("$top/scripts/siw-module.sh" "$kernel")
	mods="$mods $(modinfo -F depends "$siw_ko" | tr , ' ') crc32c_generic dummy"
fi
mkdir -p "$stage/lib/modules/$KVER"
# one the kernel lacks fails the run here, by name (the pipeline below
# would end it under pipefail with no word)
for m in $mods; do
	modprobe -d "$KMODS" -S "$KVER" --show-depends "$m" >/dev/null 2>&1 ||
		{ echo "vm.sh: no module $m for $KVER" >&2; exit 1; }
done
modprobe -d "$KMODS" -S "$KVER" -a --show-depends $mods 2>/dev/null |
	awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
	rel=${ko#"$KMODS"/lib/modules/"$KVER"/}
	mkdir -p "$stage/lib/modules/$KVER/$(dirname "$rel")"
	cp "$ko" "$stage/lib/modules/$KVER/$rel"
	# busybox insmod cannot read compressed modules (DKMS and
	# modules_install compress as the kernel's config says)
	case $rel in *.xz) xz -d "$stage/lib/modules/$KVER/$rel" ;; esac
done
cp "$KMODS/lib/modules/$KVER"/modules.{order,builtin,builtin.modinfo} \
	"$stage/lib/modules/$KVER/" 2>/dev/null || true
if [ -n "$siw_ko" ]; then
	mkdir -p "$stage/lib/modules/$KVER/extra"
	cp "$siw_ko" "$stage/lib/modules/$KVER/extra/"
fi
depmod -b "$stage" "$KVER"

for f in "${files[@]}"; do cp "$f" "$stage/xcma/"; done
cp "$top/scripts/vm-init.sh" "$stage/init"
chmod +x "$stage/init"
# virtio_pci and virtio_net are modules in Debian's 6.1, built in elsewhere;
# ib_cm and iw_cm are what xcma.ko links against (busybox insmod loads no
# dependency)
pre="virtio_pci virtio_net ib_cm iw_cm $preload"
[ $rng = 1 ] && pre="virtio_rng $pre"
# xcma.ko links against configfs where the kernel has it as a module
if modprobe -d "$KMODS" -S "$KVER" --show-depends configfs 2>/dev/null | grep -q '^insmod'; then
	pre="configfs $pre"
fi
{
	printf 'XCMA_CMD=%q\n' "$cmd"
	printf 'XCMA_PARAMS=%q\n' "$params"
	printf 'XCMA_LOAD=%q\n' "$load"
	printf 'XCMA_PRELOAD=%q\n' "$pre"
	printf 'XCMA_IP4=%q\nXCMA_IP6=%q\n' "10.99.0.$self" "fd00:99::$self"
	[ -z "$peer" ] || printf 'XCMA_PEER4=%q\nXCMA_PEER6=%q\n' "10.99.0.$peer" "fd00:99::$peer"
	# a run still going at its timeout dumps its blocked tasks and its
	# CPUs' stacks (vm-init.sh), and is killed dump_secs later: a hang
	# in CI leaves its stacks in the console, not only a timeout
	printf 'XCMA_DUMP_AT=%q\n' "$timeout"
} >"$stage/xcma/vm.conf"
(cd "$stage" && find . | cpio -o -H newc --quiet) >"$stage.cpio"
trap 'rm -rf "$stage" "$stage.cpio"' EXIT

append="console=ttyS0 panic=-1 loglevel=7 printk.devkmsg=on"
[ "$kernel" = kunit ] && append="$append kmemleak=on"
# The debug kernels have ACPI for their CPUs (the MADT). Its PCI interrupt
# links took 30 s each to enable under TCG (70 s to /init, against 7 s):
# PCI interrupts come from the BIOS's routing table instead.
[ $debug = 1 ] && append="$append pci=noacpi"
[ -n "$extra" ] && append="$append $extra"
# The NIC's backend is QEMU's user-mode network in restrict mode: it drains
# and drops every frame, nothing reaches the host or beyond, and the guest
# talks only to itself, which is all Soft-RoCE loopback needs. (A NIC alone
# on a QEMU hub stalls its TX queue, and the netdev watchdog fires: a WARN
# on 6.1.)
# Stock kernels: two vCPUs on one TCG thread. Under multi-threaded TCG a
# vCPU can run a stale translation of code another vCPU has just
# re-patched: once, stock 6.12 died at boot with "Oops: int3" in
# sched_clock_cpu() as the static key of a stable sched_clock was flipped
# (text_poke_bp), before /init. One TCG thread keeps their code patching
# coherent. The debug kernels patch no live text (no jump labels, no
# dynamic ftrace: scripts/kunit.config), so their vCPUs, XCMA_VM_CPUS of
# them (default 2), each get a QEMU thread and run truly in parallel.
cpus=2
[ $debug = 1 ] && cpus=${XCMA_VM_CPUS:-2}
qemu=(qemu-system-x86_64 -m 2G -smp "$cpus" -no-reboot -display none -monitor "$monitor"
	-serial stdio -kernel "$KIMAGE" -initrd "$stage.cpio" -append "$append"
	-device "virtio-net-pci,netdev=n0${wire:+,mac=52:54:00:99:00:0$self}")
if [ -n "$wire" ]; then
	# the peer's socket may not exist yet: what is sent to it until
	# then is lost, as on a cable whose other end is not plugged in
	rm -f "$wdir/$self.sock"
	qemu+=(-netdev "dgram,id=n0,local.type=unix,local.path=$wdir/$self.sock,remote.type=unix,remote.path=$wdir/$peer.sock")
else
	qemu+=(-netdev user,id=n0,restrict=on)
fi
if [ $icount = 1 ]; then
	qemu+=(-accel tcg,thread=single -icount shift=0)
elif [ $debug = 1 ]; then
	qemu+=(-accel tcg,thread=multi)
else
	qemu+=(-accel tcg,thread=single)
fi
[ $rng = 1 ] && qemu+=(-device virtio-rng-pci)
dump_secs=30
start=$(date +%s.%N)
set +e
if [ $quiet = 1 ]; then
	timeout $((timeout + dump_secs)) "${qemu[@]}" </dev/null >"$log" 2>&1
else
	timeout $((timeout + dump_secs)) "${qemu[@]}" </dev/null 2>&1 | tee "$log"
fi
qrc=${PIPESTATUS[0]}
set -e
secs=$(echo "$(date +%s.%N) - $start" | bc)

verdict() {
	printf 'vm: %s on %s in %.1f s (log %s)\n' "$1" "$KTAG" "$secs" "$log" >&2
	exit "$2"
}
# (tests/harness/console/run.sh reads the bad= lines as they are here)
# "printk messages dropped": the console fell behind the ring buffer, and
# what was lost may have been a report; "kmemleak: not scanned": a kernel
# booted with kmemleak=on whose leak scan could not run
bad='WARNING:|BUG:|kernel BUG at|Oops|general protection fault|Kernel panic|'
bad+='Call Trace:|INFO: task .* blocked for more than|inconsistent lock state|'
bad+='possible (circular|recursive) locking|unreferenced object|'
bad+='kmemleak: leaks found|kmemleak: [0-9]+ new suspected memory leaks|'
bad+='UBSAN:|ODEBUG:|rcu.*detected (expedited )?stall|soft lockup|corruption|'
bad+='printk messages dropped|'
bad+='XCMA-VM: task in D state at power-off|XCMA-VM: teardown hung|'
bad+='XCMA-VM: kmemleak: not scanned'
# timed out (the guest dumped its tasks at $timeout s, or could not): what
# the console said last before the dump, then the first reports, so that
# a CI log that keeps only the verdicts tells where the run stood
if [ "$qrc" = 124 ] || grep -aq 'XCMA-VM: timeout: ' "$log"; then
	awk '/XCMA-VM: timeout: /{exit} {print}' "$log" | tr -d '\r' | grep -av '^$' |
		tail -12 | sed 's/^/vm: console: /' >&2 || true
	awk '/XCMA-VM: timeout: /{exit} {print}' "$log" | awk -f "$top/scripts/console-filter.awk" |
		grep -aE "$bad" | head -5 | sed 's/^/vm: kernel: /' >&2 || true
	awk -f "$top/scripts/console-dump.awk" "$log" | head -40 |
		sed 's/^/vm: dump: /' >&2 || true
	verdict "FAIL: timeout after $timeout s" 1
fi
# all of grep's output is read before anything is cut: a pipe into head
# would make grep die of SIGPIPE on a storm of reports and pass the run
# (less the KUnit runner's wait for a slow case: console-filter.awk)
hits=$(awk -f "$top/scripts/console-filter.awk" "$log" | grep -aE "$bad" |
	grep -av 'XCMA-VM: command:') || true
if [ -n "$hits" ]; then
	printf '%s\n' "$hits" | sed -n '1,5s/^/vm: kernel: /p' >&2
	n=$(printf '%s\n' "$hits" | wc -l)
	[ "$n" -le 5 ] || echo "vm: kernel: ... $n report lines in all" >&2
	verdict "FAIL: kernel reported a problem" 1
fi
grep -aq 'XCMA-VM: done' "$log" || verdict "FAIL: VM did not finish (qemu rc $qrc)" 1
# every vCPU asked for came up: a kernel that finds fewer (no ACPI, say)
# runs every concurrency test on one CPU and would pass
up=$(sed -n 's/.*smp: Brought up [0-9]* nodes\{0,1\}, \([0-9]*\) CPUs\{0,1\}.*/\1/p' "$log" | head -1)
[ "${up:-1}" = "$cpus" ] || verdict "FAIL: ${up:-1} of $cpus CPUs online" 1
if grep -aqE 'XCMA-VM: (step failed|rmmod .* failed)' "$log"; then
	grep -aE 'XCMA-VM: (step failed|rmmod .* failed)' "$log" | sed 's/^/vm: /' >&2
	verdict "FAIL: harness step failed" 1
fi
rc=$(grep -a 'XCMA-VM: command exit status' "$log" | tail -1 | tr -dc '0-9')
[ "$rc" = 0 ] || verdict "FAIL: command exit status $rc" "$rc"
verdict "ok" 0
