#!/usr/bin/env bash
# cmake --install into a scratch prefix, then a small project configured
# with find_package(xover) against it, built and run (consumer/): the
# package as a user's project sees it. The installed CMake files must name
# neither the source nor the build tree.
#
#   install_test.sh CMAKE BUILD_DIR SOURCE_DIR [CONSUMER_CMAKE_ARGS...]
set -euo pipefail
cmake=$1 build=$2 source=$3
shift 3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

"$cmake" --install "$build" --prefix "$prefix" >/dev/null
for file in "$prefix"/lib*/cmake/xover/*.cmake; do
  if grep -q -e "$source" -e "$build" "$file"; then
    echo "install_test: $file names the source or build tree:" >&2
    grep -n -e "$source" -e "$build" "$file" >&2
    exit 1
  fi
done

"$cmake" -S "$source/tests/package/consumer" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$prefix" "$@" >"$scratch/log" 2>&1 ||
  { cat "$scratch/log" >&2; exit 1; }
"$cmake" --build "$scratch/build" >"$scratch/log" 2>&1 || { cat "$scratch/log" >&2; exit 1; }
out=$("$scratch/build/consumer" "$prefix/share/xover/scenarios/eager-vs-rndv.xml")
echo "$out"
grep -q "^scenario eager-vs-rndv on $prefix/share/xover/platforms/roce-1rail.xml\$" <<<"$out"
grep -q "^backends .*shm, tcp" <<<"$out"
if [ -d "$prefix/include/xover/sim" ]; then
  grep -q "^0 eager/short\$" <<<"$out"
fi
