#!/usr/bin/env bash
# Builds the libFuzzer harnesses of fuzz/ with clang (ASan, UBSan) in
# build-fuzz and runs them (fuzz/README.md):
#
#   tools/fuzz.sh                 every harness, XOVER_FUZZ_SECONDS each (20), as many at once as cores
#   tools/fuzz.sh NAME SECONDS    one harness, for longer
#
# Each run starts from its seeds (shipped files, fuzz_make_seeds' output,
# fuzz/regressions/NAME) and from build-fuzz/corpus/NAME, which it grows.
# One allocation over 32 MiB is a finding (-malloc_limit_mb), and so is an
# input that runs over 10 s. A finding fails the script: its input is in
# build-fuzz/crashes/NAME/, and the line printed replays it.
set -euo pipefail
cd "$(dirname "$0")/.."

harnesses=(select platform platform_load results_csv protocol tcp_frame tcp_hello cuda_card verbs_card verbs_wire cmd_ring shm_cell bootstrap scenario)
build=build-fuzz

if ! command -v clang++ >/dev/null; then
  echo "tools/fuzz.sh: clang++ not found; the harnesses need clang and its libFuzzer:" \
       "install clang and libclang-rt-14-dev (tools/setup.sh does)" >&2
  exit 1
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' >"$probe/p.cpp"
if ! clang++ -fsanitize=fuzzer "$probe/p.cpp" -o "$probe/p" 2>"$probe/err"; then
  echo "tools/fuzz.sh: clang++ cannot link with -fsanitize=fuzzer (libFuzzer is missing):" \
       "install libclang-rt-14-dev (tools/setup.sh does)" >&2
  cat "$probe/err" >&2
  exit 1
fi

if [ $# -eq 2 ]; then
  names=("$1")
  seconds=$2
  if [[ ! " ${harnesses[*]} " == *" $1 "* ]]; then
    echo "tools/fuzz.sh: no harness '$1' (harnesses: ${harnesses[*]})" >&2
    exit 2
  fi
elif [ $# -eq 0 ]; then
  names=("${harnesses[@]}")
  seconds=${XOVER_FUZZ_SECONDS:-20}
else
  echo "usage: tools/fuzz.sh [NAME SECONDS]   (harnesses: ${harnesses[*]})" >&2
  exit 2
fi

jobs=$(nproc)
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DXOVER_FUZZ=ON -DXOVER_TESTS=OFF -DXOVER_WERROR=ON \
  >/dev/null
cmake --build "$build" -j"$jobs" --target fuzzers
"$build/fuzz/fuzz_make_seeds" "$build/fuzz/seeds"
mkdir -p "$build/tmp" "$build/logs"

# The seed folders of a harness.
seeds() {
  case $1 in
    platform | platform_load) echo platforms tests/data/platforms ;;
    results_csv) echo tests/data/results ;;
    scenario) echo scenarios tests/data/scenarios ;;
    *) echo "$build/fuzz/seeds/$1" ;;
  esac
  [ -d "fuzz/regressions/$1" ] && echo "fuzz/regressions/$1"
  return 0
}

dictionary() {
  case $1 in
    platform | platform_load | scenario) echo -dict=fuzz/xml.dict ;;
  esac
}

# Runs harness $1 for $2 seconds; its log goes to build-fuzz/logs/$1.log,
# its exit status to build-fuzz/logs/$1.status.
run() {
  local name=$1 corpus="$build/corpus/$1" crashes="$build/crashes/$1/" status=0
  mkdir -p "$corpus" "$crashes"
  # shellcheck disable=SC2046
  TMPDIR="$build/tmp" "$build/fuzz/fuzz_$name" -max_total_time="$2" -timeout=10 -malloc_limit_mb=32 \
    -print_final_stats=1 -artifact_prefix="$crashes" $(dictionary "$name") "$corpus" $(seeds "$name") \
    >"$build/logs/$name.log" 2>&1 || status=$?
  echo "$status" >"$build/logs/$name.status"
}

# One line per harness: executions, corpus, coverage, or the finding.
report() {
  local name=$1 status=$2 log="$build/logs/$1.log"
  if [ "$status" -ne 0 ]; then
    echo "FAIL $name: $(grep -m1 -E 'ERROR|invariant failed|runtime error' "$log" || tail -n1 "$log")"
    grep -E '^(SUMMARY|artifact_prefix|xover fuzz)' "$log" | sed 's/^/     /'
    local input
    input=$(grep -o "Test unit written to .*" "$log" | sed 's/Test unit written to //' | tail -n1)
    [ -n "$input" ] && echo "     replay: $build/fuzz/fuzz_$name $input"
    return
  fi
  local done_line execs
  done_line=$(grep -E '#[0-9]+[[:space:]]+DONE' "$log" | tail -n1)
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$')
  printf 'ok   %-13s %9s execs  corpus %-14s cov %-6s ft %s\n' "$name" "$execs" \
    "$(sed -E 's/.*corp: ([^ ]*).*/\1/' <<<"$done_line")" "$(sed -E 's/.*cov: ([0-9]*).*/\1/' <<<"$done_line")" \
    "$(sed -E 's/.*ft: ([0-9]*).*/\1/' <<<"$done_line")"
}

for name in "${names[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  run "$name" "$seconds" &
done
wait

failed=0
for name in "${names[@]}"; do
  status=$(cat "$build/logs/$name.status")
  report "$name" "$status"
  [ "$status" -eq 0 ] || failed=1
done
exit $failed
