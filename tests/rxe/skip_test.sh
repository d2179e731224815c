#!/usr/bin/env bash
# The rxe stage on a machine where its guest cannot be had: SKIPPED with the
# reason, not failed. Such a machine is made here by a PATH without apt,
# dpkg and QEMU (links to every other program of this one), and a build
# folder with no kernel cached:
#   1. tools/rxe-vm.sh -p says "rxe-vm: cannot install ..." and exits 126
#   2. with dpkg and QEMU where this machine has them and only apt missing,
#      an empty cache: it cannot find or download a kernel, 126 again
#   3. the stage (XOVER_RXE=1) exits 77, CTest's SKIPPED, saying why
#
#   skip_test.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
source=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# farm DIR PATTERN: DIR holds a link to every program on PATH whose name
# does not match PATTERN (an extended regular expression).
farm() {
  local dir=$1 pattern=$2 d f
  mkdir -p "$dir"
  IFS=: read -ra dirs <<<"$PATH"
  for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    for f in "$d"/*; do
      [ -x "$f" ] && [ ! -d "$f" ] || continue
      [[ ${f##*/} =~ $pattern ]] && continue
      [ -e "$dir/${f##*/}" ] || ln -s "$f" "$dir/${f##*/}"
    done
  done
}
farm "$scratch/bare" '^(apt|dpkg|qemu|sudo)'
farm "$scratch/noapt" '^(apt|sudo)'

# expect NAME STATUS PATTERN OUTPUT-FILE ACTUAL-STATUS
expect() {
  if [ "$5" -ne "$2" ] || ! grep -qE "$3" "$4"; then
    fail "$1: exit $5 (expected $2), output:"
    cat "$4"
  else
    echo "ok: $1: exit $5, $(grep -E "$3" "$4" | head -1)"
  fi
}

PATH=$scratch/bare "$source/tools/rxe-vm.sh" -b "$scratch/build1" -p >"$scratch/1.out" 2>&1
expect "no apt, dpkg or QEMU" 126 '^rxe-vm: cannot install .*qemu-system-x86.*: no apt-get' "$scratch/1.out" $?

PATH=$scratch/noapt "$source/tools/rxe-vm.sh" -b "$scratch/build2" -p >"$scratch/2.out" 2>&1
status=$?
if PATH=$scratch/noapt command -v qemu-system-x86_64 >/dev/null &&
   dpkg-query -W -f='${Status}' busybox-static ibverbs-providers 2>/dev/null | grep -q "install ok installed"; then
  expect "no apt, an empty kernel cache" 126 '^rxe-vm: cannot find a kernel' "$scratch/2.out" $status
else
  expect "no apt" 126 '^rxe-vm: cannot ' "$scratch/2.out" $status
fi
[ -e "$scratch/build2/rxe-vm" ] && [ -n "$(ls "$scratch/build2/rxe-vm")" ] && fail "a kernel cache was left: $(ls "$scratch/build2/rxe-vm")"

if "$build/tools/xover" --version | grep -q "backends compiled in:.*verbs"; then
  XOVER_RXE=1 PATH=$scratch/bare "$source/tests/rxe/stage.sh" "$build" "$source" >"$scratch/3.out" 2>&1
  status=$?
  expect "the stage" 77 '^SKIPPED: the soft-RoCE guest cannot be had' "$scratch/3.out" $status
  grep -q '^rxe-vm: cannot install' "$scratch/3.out" || fail "the stage's output does not say why"
else
  echo "the stage's own check not run: this build has no verbs backend, which the stage refuses before the guest"
fi
exit $failed
