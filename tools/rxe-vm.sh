#!/usr/bin/env bash
# Runs a command inside a small QEMU guest that has a real soft-RoCE device
# (the kernel's rdma_rxe) and the real verbs stack (rdma-core), for the
# verbs backend's tests on a machine without an RDMA NIC or whose kernel
# loads no modules.
#
#   tools/rxe-vm.sh [-b BUILD_DIR] [-t SECONDS] COMMAND [ARG...]
#   tools/rxe-vm.sh [-b BUILD_DIR] -p      (prepare only: packages, kernel)
#
# The guest boots Debian's own kernel (the linux-image package that
# linux-image-amd64 names, fetched with apt-get download and unpacked, never
# installed) with a busybox initramfs that loads the modules below, mounts
# this machine's / read-only over virtio-9p and chroots into it, so the
# checkout, the build and every installed program are where they are here.
# It has no network card at all (-nic none): rdma_rxe runs on a dummy
# interface (dummy0, 192.0.2.1/24, a TEST-NET address) and its traffic loops
# back inside the guest. /tmp, /run and /dev/shm are the guest's own tmpfs
# (TMPDIR=/tmp); the host's files cannot be changed from the guest.
#
# COMMAND runs in the guest as root, from the directory this script was
# called from, with the device rxe0 (port 1) ACTIVE. Its standard output
# and error come back on this script's once the guest has stopped, and its
# exit status is this script's. Other statuses: 124 the guest ran past
# SECONDS (default 900) and was killed by its PID; 125 the guest did not
# boot or set rxe0 up (the console's tail is printed). Bad arguments: 2.
#
# -p prepares the guest and boots nothing: status 0 when it is ready, 126
# when what it needs cannot be had on this machine (no apt-get or no right
# to install a missing package, the install failing, no QEMU, no kernel
# package to download), said on one line beginning "rxe-vm: cannot". A
# run without -p prepares first and fails with 126 the same way.
#
# Idempotent: the Debian packages it needs (and bc, which the rxe stage's
# suite times itself with) are installed when missing, and
# the kernel and initramfs are built once into BUILD_DIR/rxe-vm/ (default
# ./build) and reused. Under TCG (no KVM here) the guest's CPU is emulated,
# several times slower than this machine's: times measured in it are the
# emulation's, not RDMA's.
set -euo pipefail

build=build
limit=900
prepare_only=no
usage="usage: $0 [-b BUILD_DIR] [-t SECONDS] COMMAND [ARG...] | [-b BUILD_DIR] -p  (SECONDS a whole number above 0)"
while getopts "b:t:p" opt; do
  case $opt in
    b) build=$OPTARG ;;
    t) limit=$OPTARG ;;
    p) prepare_only=yes ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
if { [ "$prepare_only" = yes ] && [ $# -ne 0 ]; } || { [ "$prepare_only" = no ] && [ $# -eq 0 ]; } ||
   ! [[ $limit =~ ^[0-9]+$ ]] || [ "$limit" -eq 0 ]; then
  echo "$usage" >&2
  exit 2
fi
mkdir -p "$build"
build=$(cd "$build" && pwd)
workdir=$(pwd)

# --- packages -------------------------------------------------------------
packages=(qemu-system-x86 busybox-static kmod cpio ibverbs-providers ibverbs-utils iproute2 bc)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# cannot WHY: what the guest needs is not to be had here (status 126).
cannot() {
  echo "rxe-vm: cannot $*" >&2
  exit 126
}
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || cannot "install ${missing[*]}: not root and no sudo"
    sudo="sudo"
  fi
  command -v apt-get >/dev/null || cannot "install ${missing[*]}: no apt-get on this machine"
  echo "rxe-vm: installing ${missing[*]}" >&2
  $sudo apt-get update -qq || cannot "install ${missing[*]}: apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
    cannot "install ${missing[*]}: apt-get install failed"
fi
command -v qemu-system-x86_64 >/dev/null || cannot "run a guest: no qemu-system-x86_64"

# --- kernel and initramfs, cached ------------------------------------------
# The modules, by name; their dependencies are added from modules.dep.
# crc32_generic: without it `rdma link add` fails with ENOENT.
modules=(virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci 9pnet 9pnet_virtio netfs fscache
         9p crc32_generic ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_rxe dummy)
image=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1 || true)
if [ -z "$image" ]; then
  image=$(cd "$build/rxe-vm" 2>/dev/null && ls -d linux-image-* 2>/dev/null | sort -V | tail -1 || true)
  [ -n "$image" ] || cannot "find a kernel: apt-cache names no linux-image-*-amd64 for linux-image-amd64 and none is cached"
fi
cache="$build/rxe-vm/$image"
if [ ! -s "$cache/vmlinuz" ] || [ ! -s "$cache/initramfs.cpio.gz" ]; then
  echo "rxe-vm: building the guest's kernel and initramfs from $image into $cache" >&2
  stage=$(mktemp -d "$build/rxe-vm.stage.XXXXXX")
  trap 'rm -rf "$stage"' EXIT
  (cd "$stage" && apt-get download "$image" >/dev/null 2>&1) || cannot "download the kernel: apt-get download $image failed"
  dpkg-deb -x "$stage"/"$image"_*.deb "$stage/root"
  kver=$(ls "$stage/root/lib/modules")
  depmod -b "$stage/root" "$kver"
  mods="$stage/root/lib/modules/$kver"
  # Depth first over modules.dep: every module after those it needs.
  declare -A deps=() seen=()
  order=()
  while IFS= read -r line; do
    path=${line%%:*}
    name=$(basename "$path" .ko)
    deps[${name//-/_}]="$path ${line#*:}"
  done <"$mods/modules.dep"
  visit() {
    local name=${1//-/_}
    [ -n "${seen[$name]:-}" ] && return
    seen[$name]=1
    if [ -z "${deps[$name]:-}" ]; then
      grep -q "/$1.ko\$" "$mods/modules.builtin" && return  # built into the kernel
      echo "rxe-vm: $image has no module $1" >&2
      exit 125
    fi
    local entry=(${deps[$name]})
    local d
    for d in "${entry[@]:1}"; do
      visit "$(basename "$d" .ko)"
    done
    order+=("${entry[0]}")
  }
  for m in "${modules[@]}"; do visit "$m"; done
  initrd="$stage/initrd"
  mkdir -p "$initrd"/{bin,dev,proc,sys,host,modules}
  cp /bin/busybox "$initrd/bin/busybox"
  : >"$initrd/modules.load"
  for path in "${order[@]}"; do
    cp "$mods/$path" "$initrd/modules/"
    basename "$path" >>"$initrd/modules.load"
  done
  cat >"$initrd/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
say() { echo "rxe-vm guest: $*" >/dev/ttyS0; }
stop() { sync; poweroff -f; }
while read -r m; do
  insmod "/modules/$m" || { say "insmod $m failed"; stop; }
done </modules.load
opts=trans=virtio,version=9p2000.L,msize=262144
mount -t 9p -o "$opts,ro,cache=loose" host /host || { say "mounting the host's / failed"; stop; }
mount -t proc proc /host/proc
mount -t sysfs sysfs /host/sys
mount -t devtmpfs devtmpfs /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
mount -t tmpfs -o mode=1777 tmpfs /host/dev/shm
mount -t tmpfs -o mode=1777 tmpfs /host/tmp
mount -t tmpfs tmpfs /host/run
mkdir -p /host/run/rxe-vm
mount -t 9p -o "$opts" ctl /host/run/rxe-vm || { say "mounting the control share failed"; stop; }
hostname rxe-guest
chroot /host /bin/bash /run/rxe-vm/guest.sh
stop
EOF
  chmod +x "$initrd/init"
  mkdir -p "$cache"
  (cd "$initrd" && find . | cpio -o -H newc --quiet | gzip -1) >"$cache/initramfs.cpio.gz.part"
  cp "$stage"/root/boot/vmlinuz-* "$cache/vmlinuz.part"
  mv "$cache/initramfs.cpio.gz.part" "$cache/initramfs.cpio.gz"
  mv "$cache/vmlinuz.part" "$cache/vmlinuz"
  rm -rf "$stage"
  trap - EXIT
fi

[ "$prepare_only" = yes ] && exit 0

# --- one run ----------------------------------------------------------------
run=$(mktemp -d "$build/rxe-vm/run.XXXXXX")
qemu_pid=""
cleanup() {
  if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
    kill "$qemu_pid" 2>/dev/null || true
    sleep 1
    kill -9 "$qemu_pid" 2>/dev/null || true
  fi
  rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

{
  printf 'cd %q\n' "$workdir"
  printf 'exec'
  printf ' %q' "$@"
  printf '\n'
} >"$run/command.sh"
# In the guest, chrooted into the host's /: rxe0 on dummy0, then the command.
cat >"$run/guest.sh" <<'EOF'
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp TMPDIR=/tmp
ctl=/run/rxe-vm
{
  ip link set lo up &&
  { ip link show dummy0 >/dev/null 2>&1 || ip link add dummy0 type dummy; } &&
  ip addr add 192.0.2.1/24 dev dummy0 &&
  ip link set dummy0 up &&
  rdma link add rxe0 type rxe netdev dummy0 &&
  for i in $(seq 50); do
    grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state 2>/dev/null && break
    sleep 0.1
  done &&
  grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state
} >"$ctl/setup.log" 2>&1 || { echo "rxe0 did not come up" >>"$ctl/setup.log"; exit 0; }
bash "$ctl/command.sh" >"$ctl/out" 2>"$ctl/err" </dev/null
echo $? >"$ctl/status"
EOF

accel=(-accel tcg,thread=multi -cpu max)
if [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qE '\b(vmx|svm)\b' /proc/cpuinfo; then
  accel=(-accel kvm -cpu host)
fi
qemu-system-x86_64 "${accel[@]}" -smp 2 -m 3072 -nic none -display none -monitor none -no-reboot \
  -serial "file:$run/console.log" \
  -kernel "$cache/vmlinuz" -initrd "$cache/initramfs.cpio.gz" \
  -append "console=ttyS0 panic=-1 quiet rdinit=/init" \
  -virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap" \
  -virtfs "local,path=$run,mount_tag=ctl,security_model=none,multidevs=remap" \
  </dev/null >"$run/qemu.log" 2>&1 &
qemu_pid=$!

started=$SECONDS
timed_out=0
while kill -0 "$qemu_pid" 2>/dev/null; do
  if [ $((SECONDS - started)) -ge "$limit" ]; then
    timed_out=1
    kill "$qemu_pid" 2>/dev/null || true
    sleep 1
    kill -9 "$qemu_pid" 2>/dev/null || true
    break
  fi
  sleep 1
done
wait "$qemu_pid" 2>/dev/null || true
qemu_pid=""

[ -f "$run/out" ] && cat "$run/out"
[ -f "$run/err" ] && cat "$run/err" >&2
if [ "$timed_out" -eq 1 ]; then
  echo "rxe-vm: the guest ran past $limit s and was stopped (its PID killed); the console's tail:" >&2
  tail -n 20 "$run/console.log" >&2 || true
  exit 124
fi
if [ ! -f "$run/status" ]; then
  echo "rxe-vm: the guest stopped before the command ended (or rxe0 never came up)" >&2
  cat "$run/setup.log" "$run/qemu.log" >&2 2>/dev/null || true
  tail -n 30 "$run/console.log" >&2 || true
  exit 125
fi
exit "$(cat "$run/status")"
