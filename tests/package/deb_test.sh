#!/usr/bin/env bash
# Builds the .deb with CPack, unpacks it into a scratch root (dpkg -x: no
# root, no package database) and runs the xover inside it as a user would,
# on the scenarios and platforms it ships: it must find them under the
# scratch root, where it was moved to, and not in the tree it was built in.
#
#   deb_test.sh CPACK BUILD_DIR BACKEND
set -euo pipefail
cpack=$1 build=$2 backend=$3
if ! command -v dpkg-deb >/dev/null; then
  echo "deb_test: no dpkg-deb (Debian's dpkg): skipped" >&2
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

(cd "$scratch" && "$cpack" --config "$build/CPackConfig.cmake" -G DEB -B "$scratch/pkg" >"$scratch/log" 2>&1) ||
  { cat "$scratch/log" >&2; exit 1; }
deb=$(ls "$scratch"/pkg/xover_*.deb)
dpkg-deb --field "$deb" Package Version Depends
dpkg -x "$deb" "$scratch/root"
xover=$scratch/root/usr/bin/xover
data=$scratch/root/usr/share/xover

"$xover" --version
"$xover" info >/dev/null
csv=$scratch/out.csv
"$xover" run "$data/scenarios/eager-vs-rndv.xml" --backend "$backend" --out "$csv" >"$scratch/log" ||
  { cat "$scratch/log" >&2; exit 1; }
# Every curve at every size it carries (eager/bcopy stops at its limit),
# no message corrupt or missing.
rows=$(($(wc -l <"$csv") - 1))
echo "xover run --backend $backend: $rows rows"
[ "$rows" -gt 40 ]
[ "$(cut -d, -f15 "$csv" | sort -u)" = "$(printf '0\nerrors')" ]
if [ "$backend" = sim ]; then
  grep -q ",$data/platforms/roce-1rail.xml," "$csv"
  info=$("$xover" proto-info)
  grep -q "^# platform *$data/platforms/hdr-2rail.xml\$" <<<"$info"
fi
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  "$xover" plot "$csv" -o "$scratch/plot.png" >/dev/null
fi
