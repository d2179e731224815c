#!/usr/bin/env bash
# CTest's rxe stage (label rxe): boots the soft-RoCE guest once
# (tools/rxe-vm.sh) and runs tests/rxe/guest_suite.sh in it.
#
#   XOVER_RXE=1 ctest -L rxe        (tools/test.sh does)
#
# The guest takes minutes under an emulated CPU, so the stage runs only
# when XOVER_RXE=1 asks for it; otherwise it is SKIPPED (exit 77), saying
# so. It is SKIPPED too, with the reason, where the guest cannot be had
# (tools/rxe-vm.sh -p, which prepares it, says 126: QEMU or the kernel
# package not to be installed or downloaded here). Its limit: RXE_SECONDS (default 840) for
# the whole guest, after which the guest is killed and the stage fails.
#
#   stage.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
if [ "${XOVER_RXE:-0}" != 1 ]; then
  echo "the rxe stage boots a QEMU guest with a soft-RoCE device and takes minutes: run it with XOVER_RXE=1 ctest -L rxe"
  exit 77
fi
if ! "$build/tools/xover" --version | grep -q "backends compiled in:.*verbs"; then
  echo "this build has no verbs backend (libibverbs-dev missing when it was configured): the rxe stage cannot run"
  exit 1
fi
status=0
"$source/tools/rxe-vm.sh" -b "$build" -p || status=$?
if [ "$status" -eq 126 ]; then
  echo "SKIPPED: the soft-RoCE guest cannot be had on this machine (the line above says why)"
  exit 77
elif [ "$status" -ne 0 ]; then
  exit "$status"
fi
exec "$source/tools/rxe-vm.sh" -b "$build" -t "${RXE_SECONDS:-840}" "$source/tests/rxe/guest_suite.sh" "$build" "$source"
