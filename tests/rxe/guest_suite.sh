#!/usr/bin/env bash
# The rxe stage's suite, run inside the soft-RoCE guest (tools/rxe-vm.sh)
# by tests/rxe/stage.sh: the verbs backend on a real verbs stack (rdma_rxe
# and rdma-core's rxe provider), start to end.
#
#   guest_suite.sh BUILD_DIR SOURCE_DIR [--all]
#
#   1. the guest itself: rxe0 listed, ibv_rc_pingpong over its RoCE v2 GID
#   2. xover info --backend verbs: available, port rxe0:1 ACTIVE
#   3. the verbs device tests: the backend-parameterised bodies that shm and
#      tcp run (matching, put_signal, the alltoall's P = 2, 3 and 8 exchanges
#      and its faults, a rank killed in a ping-pong and in an alltoall
#      through the CLI) with the verbs parameter, the verbs backend's own
#      CLI tests and its device tests; every one must PASS (a SKIPPED one
#      fails the stage: a device is here) and those that wire ranks up say
#      the lanes they ran on
#   4. xover run --backend verbs --ib-dev rxe0:1 of shipped point-to-point
#      scenarios (ping-pong with every protocol, registration per use, the
#      unexpected receive, two pairs at once: 8 B and 256 KiB, rendezvous
#      by RDMA READ) and of the two-PE alltoall (8 B and 64 KiB), shrunk
#      (2 iterations, one round): every row
#      without errors, the alltoall's every byte and signal verified
#   5. xover calibrate --backend verbs --ib-dev rxe0:1 --quick: it writes a
#      platform that proto-info reads; its figures are the emulated
#      guest's (minutes under TCG), not a network's
#
# --all also runs what the stage leaves out for time (each tens of seconds
# to minutes under an emulated CPU): HwRun's ping-pong, stream, plot and
# alltoall (3 PEs through the CLI; the stage has the two-PE scenario of
# step 4 and the alltoall suite) tests, and verbs_run_test's run and
# calibrate (the CLI on verbs, as steps 4 and 5).
# Prints a line per step and the count of verbs tests that passed; exits 1
# when anything failed. Times printed are the emulated guest's, not RDMA's.
set -uo pipefail
build=$1
source=$2
all=${3:-}
export TMPDIR=${TMPDIR:-/tmp}
work=$(mktemp -d)
failed=0
passed_tests=0

now() { date +%s.%N; }
took() { printf '%.1f' "$(echo "$(now) - $1" | bc)"; }
fail() { echo "FAIL: $*"; failed=1; }

# --- 1. the guest ---------------------------------------------------------
t0=$(now)
if ! ibv_devices | grep -q rxe0; then
  fail "ibv_devices does not list rxe0"
fi
# The RoCE v2 GID with an IPv4 address (192.0.2.1 on dummy0).
gid=""
for f in /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/*; do
  i=${f##*/}
  if grep -q "RoCE v2" "$f" 2>/dev/null && grep -q "0000:0000:0000:0000:0000:ffff" /sys/class/infiniband/rxe0/ports/1/gids/"$i"; then
    gid=$i
    break
  fi
done
if [ -z "$gid" ]; then
  fail "rxe0 has no RoCE v2 GID with an IPv4 address"
else
  ibv_rc_pingpong -d rxe0 -g "$gid" -n 50 >"$work/pp-server.log" 2>&1 &
  server=$!
  sleep 1
  if ibv_rc_pingpong -d rxe0 -g "$gid" -n 50 localhost >"$work/pp-client.log" 2>&1 && wait "$server"; then
    echo "ok: ibv_rc_pingpong, 50 round trips over GID index $gid: $(grep -h 'usec/iter' "$work/pp-client.log")"
  else
    kill "$server" 2>/dev/null
    fail "ibv_rc_pingpong"
    cat "$work/pp-server.log" "$work/pp-client.log"
  fi
fi
echo "   ($(took "$t0") s)"

# --- 2. xover info ------------------------------------------------------------
t0=$(now)
"$build/tools/xover" info --backend verbs >"$work/info.txt" 2>&1
if grep -q "available: *yes" "$work/info.txt" && grep -q "port rxe0:1" "$work/info.txt"; then
  echo "ok: xover info --backend verbs: available, port rxe0:1 ($(took "$t0") s)"
else
  fail "xover info --backend verbs"
fi
cat "$work/info.txt"

# --- 3. the verbs device tests -------------------------------------------------
# gtest BINARY FILTER: runs the tests, prints each result and the lanes the
# ranks ran on; any failed or skipped test fails the stage.
gtest() {
  local binary=$1 filter=$2 log="$work/$1.log" t0
  t0=$(now)
  "$(find "$build/tests" -name "$binary" -type f -perm -u+x | head -1)" --gtest_filter="$filter" >"$log" 2>&1
  local rc=$?
  grep -E '^\[ +(OK|FAILED|SKIPPED) +\] |^\[ lanes +\]' "$log" | grep -v 'listed below' | sed 's/^/   /'
  local ok skipped bad
  ok=$(grep -cE '^\[ +OK +\] ' "$log")
  skipped=$(grep -cE '^\[ +SKIPPED +\] ' "$log")
  bad=$(grep -E '^\[ +FAILED +\] ' "$log" | grep -vc 'listed below')
  passed_tests=$((passed_tests + ok))
  if [ "$rc" -ne 0 ] || [ "$skipped" -ne 0 ] || [ "$bad" -ne 0 ] || [ "$ok" -eq 0 ]; then
    fail "$binary --gtest_filter=$filter: $ok passed, $skipped skipped, $bad failed (exit $rc)"
    grep -vE '^\[ +(OK|RUN) +\] ' "$log" | tail -n 40
  else
    echo "ok: $binary: $ok passed ($(took "$t0") s)"
  fi
}
hw_filter='Backends/HwKill.*/verbs_*'
alltoall_filter='*/verbs'
run_filter='*:-*Calibrate*:*RunExitsTwo*'
if [ "$all" = --all ]; then
  hw_filter='Backends/HwRun.*/verbs:Backends/HwKill.*/verbs_*'
  run_filter='*'
fi
gtest matching_test '*/verbs'
gtest put_signal_test '*/verbs'
gtest alltoall_test "$alltoall_filter"
gtest hw_run_test "$hw_filter"
gtest verbs_run_test "$run_filter"
gtest verbs_device_test '*'

# --- 4. xover run of the shipped scenarios on rxe0:1 ---------------------------
# A scenario, shrunk: the sizes given, 2 iterations after 1 warm-up, its
# platform found from its new place.
shrink() {
  local from=$1 to=$2 sizes=$3
  sed -e "s|file=\"\\.\\./platforms/|file=\"$source/platforms/|" \
      -e "s|<sizes [^>]*/>|<sizes list=\"$sizes\"/>|" \
      -e 's|iterations="[0-9]*"|iterations="2"|' -e 's|warmup="[0-9]*"|warmup="1"|' "$from" >"$to"
}
# run_scenario FILE: xover run on verbs, then the CSV: rows, no errors, the
# alltoall verified.
run_scenario() {
  local name=$1 sizes=$2 t0 csv="$work/$1.csv"
  t0=$(now)
  shrink "$source/scenarios/$name.xml" "$work/$name.xml" "$sizes"
  if ! "$build/tools/xover" run "$work/$name.xml" --backend verbs --ib-dev rxe0:1 --rounds 1 --out "$csv" \
      >"$work/$name.out" 2>&1; then
    fail "xover run $name.xml --backend verbs --ib-dev rxe0:1"
    tail -n 20 "$work/$name.out"
    return
  fi
  local rows bad unverified lanes
  rows=$(($(wc -l <"$csv") - 1))
  bad=$(awk -F, 'NR > 1 && $15 != "0"' "$csv" | wc -l)
  unverified=$(awk -F, 'NR > 1 && $4 == "alltoall" && $0 !~ /verified=yes/' "$csv" | wc -l)
  lanes=$(awk -F, 'NR > 1 { print $7 }' "$csv" | sort -u | tr '\n' ' ')
  if [ "$rows" -lt 1 ] || [ "$bad" -ne 0 ] || [ "$unverified" -ne 0 ]; then
    fail "$name: $rows rows, $bad with errors, $unverified alltoall rows unverified"
    cat "$csv"
  else
    echo "ok: xover run $name.xml --backend verbs --ib-dev rxe0:1: $rows rows, 0 errors, lanes $lanes($(took "$t0") s)"
  fi
}
for name in eager-vs-rndv rndv-regcache-off unexpected-multi two-pairs-one-rail; do
  run_scenario "$name" "8 256KiB"
done
run_scenario alltoall-p2 "8 64KiB"

# --- 5. xover calibrate -------------------------------------------------------
t0=$(now)
platform="$work/verbs-rxe-calibrated.xml"
if "$build/tools/xover" calibrate --backend verbs --ib-dev rxe0:1 --quick --out "$platform" \
    >"$work/calibrate.out" 2>&1 && grep -q "^platform: $platform" "$work/calibrate.out" &&
   "$build/tools/xover" proto-info --platform "$platform" >"$work/proto-info.out" 2>&1; then
  echo "ok: xover calibrate --backend verbs --ib-dev rxe0:1 --quick: a platform proto-info reads ($(took "$t0") s)"
  echo "   (its figures are this emulated guest's, not RDMA's:)"
  grep -E '^(lane|protocol|eager|rndv|alltoall)' "$work/calibrate.out" | sed 's/^/   /'
else
  fail "xover calibrate --backend verbs --ib-dev rxe0:1 --quick"
  tail -n 20 "$work/calibrate.out" "$work/proto-info.out" 2>/dev/null
fi

echo "verbs tests passed on rxe0: $passed_tests"
rm -rf "$work"
if [ "$failed" -ne 0 ]; then
  echo "the rxe stage FAILED"
  exit 1
fi
echo "the rxe stage passed"
