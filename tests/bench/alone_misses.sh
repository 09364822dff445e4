#!/usr/bin/env bash
# Benchmark tool (prints figures; not a test): each function's instruction-cache misses on its
# own, at both phases of the 32-byte line its start can have, for one workload of a program that
# tests/bench/real_programs.sh has built; and their sum, a lower bound on the misses of any link
# order of that program (tests/bench/alone_misses.c says why).
#
#   tests/bench/alone_misses.sh [BUILD_DIR] PROGRAM [train|eval] [BINARY]
#
# BUILD_DIR (default ./build) must hold bench-PROGRAM from a run of real_programs.sh. BINARY
# defaults to its gnu-default link; the figures "alone" do not depend on the binary's layout, only
# the "whole" line does (it is the binary's own cachegrind count, the check that the trace is
# right). Every process of the workload runs under valgrind's lackey, whose instruction trace
# goes through a pipe to alone_misses (built here with gcc): about 50 times slower than
# cachegrind, 5 to 15 minutes per workload on this machine.
#
# Prints, per cache (4 KiB and 8 KiB direct-mapped, 16 KiB 2-way, 32-byte lines): the whole
# stream's misses, the bound (fixed code alone + each function alone at its better phase), and
# the functions whose two phases differ most, with both figures.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=./build
if [ $# -ge 2 ] && [ -d "$1" ]; then
  build=$1
  shift
fi
[ $# -ge 1 ] || { echo "usage: $0 [BUILD_DIR] PROGRAM [train|eval] [BINARY]" >&2; exit 2; }
name=$1 workload=${2:-eval}
build=$(cd "$build" && pwd)
work=$build/bench-$name
binary=${3:-$work/layouts/gnu-default}
case $workload in train | eval) ;; *) echo "workload must be train or eval" >&2; exit 2 ;; esac
[ -x "$binary" ] || { echo "no binary $binary: run tests/bench/real_programs.sh first" >&2; exit 1; }
binary=$(realpath "$binary") # the workloads run in directories of their own
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }
# shellcheck disable=SC2034 # cache is read by the program definitions
cache=$build/bench-cache
for f in "$root"/tests/bench/programs/*.sh; do
  # shellcheck disable=SC1090
  source "$f"
done
declare -F "${name}_$workload" >/dev/null || { echo "no program '$name'" >&2; exit 2; }

tool=$build/bench-cache/alone_misses
mkdir -p "$build/bench-cache"
if [ ! -x "$tool" ] || [ "$root/tests/bench/alone_misses.c" -nt "$tool" ]; then
  gcc -O2 -Wall -Wextra -Werror -o "$tool" "$root/tests/bench/alone_misses.c"
fi

out=$(mktemp -d "$build/bench-cache/alone.XXXXXX")
trap 'rm -rf "$out"' EXIT
# Valgrind loads a position-independent executable at 0x108000 (hotspots.h); others stay put.
base=0
if readelf -h "$binary" | grep -q 'Type: *DYN'; then base=0x108000; fi
nm -S --defined-only "$binary" | python3 -c '
import sys
base = int(sys.argv[1], 16)
for line in sys.stdin:
    f = line.split()
    if len(f) == 4 and f[2] in "tT":
        print("%x %d %s" % (int(f[0], 16) + base, int(f[1], 16), f[3]))' "$base" >"$out/symbols"

cat >"$out/run" <<EOR
#!/bin/sh
pipe="$out/pipe.\$\$"
mkfifo "\$pipe"
"$tool" "$out/symbols" "$out/alone.\$\$" <"\$pipe" &
valgrind --tool=lackey --trace-mem=yes --log-file="\$pipe" "$binary" "\$@"
rc=\$?
wait \$! || rc=1
rm -f "\$pipe"
exit \$rc
EOR
chmod +x "$out/run"
"${name}_$workload" "$out/run" >/dev/null

python3 - "$out" "$name" "$workload" <<'EOF'
import glob, sys
out, name, workload = sys.argv[1:4]
geos = ["4096,1,32", "8192,1,32", "16384,2,32"]
whole, fixed, fn, size = [0] * 3, [0] * 3, {}, {}
for path in sorted(glob.glob(out + "/alone.*")):
    for line in open(path):
        f = line.split()
        if f[0] == "whole":
            whole = [a + int(b) for a, b in zip(whole, f[1:4])]
        elif f[0] == "fixed":
            fixed = [a + int(b) for a, b in zip(fixed, f[1:4])]
        else:
            v = [int(x) for x in f[3:]]
            size[f[1]] = int(f[2])
            acc = fn.setdefault(f[1], [0] * 6)
            for i in range(6):
                acc[i] += v[i]
print(f"{name} {workload}: instruction-cache misses alone (lackey trace)")
for g, geo in enumerate(geos):
    alone = {k: (v[2 * g], v[2 * g + 1]) for k, v in fn.items()}
    bound = fixed[g] + sum(min(a) for a in alone.values())
    print(f"  {geo}: whole stream {whole[g]:,}  bound {bound:,} ({bound / max(whole[g], 1):.3f})"
          f"  fixed code alone {fixed[g]:,}")
    top = sorted(alone.items(), key=lambda kv: -abs(kv[1][0] - kv[1][1]))[:5]
    for k, (a, b) in top:
        if a != b:
            print(f"    {k} ({size[k]:,} B): phase 0 {a:,}, phase 16 {b:,}")
EOF
