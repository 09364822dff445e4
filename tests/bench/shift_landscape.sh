#!/usr/bin/env bash
# Benchmark tool (prints figures; not a test): how a program's instruction-cache misses depend on
# where its whole text lands against the code no link order moves (the PLT, the C library and
# the other shared libraries), for several layouts, and how far a mean over a few such shifts,
# as real_programs.sh's SHIFTS takes, can be from the mean over all of them.
#
#   tests/bench/shift_landscape.sh [BUILD_DIR] PROGRAM GEOMETRY STEP COUNT LAYOUT...
#
# BUILD_DIR (default ./build) must hold bench-PROGRAM from a run of real_programs.sh. GEOMETRY is
# an I1 geometry (size,ways,line). LAYOUT is gnu-default, or a layout whose GNU ld script that run
# left in bench-PROGRAM/scripts: classic-ph, classic-hot, or lorgen-prf.SIZE-WAYS-LINE and the
# like (lld's layouts are linked by lld and are not supported). For every shift n = 0, STEP,
# 2 STEP, ... (COUNT of them) each layout is linked with n bytes of padding before its text, as
# real_programs.sh does for SHIFTS, and the EVAL workload runs under cachegrind (WORKLOAD=train:
# the TRAIN workload). A layout whose script aligns its code to the way size is shifted inside
# that alignment, as real_programs.sh does.
#
# Prints per shift each layout's misses and its ratio to gnu-default's at the same shift; then
# per layout the ratio of its mean misses to gnu-default's mean over all shifts, and the lowest
# and highest that ratio gets over every choice of K evenly spaced shifts from the COUNT, for K
# of 2, 4, 8 and so on: how much one benchmark cell measured with K shifts can be off.
# A STEP times COUNT of a cache way or more covers every place the text can take against the
# libraries. One cachegrind run per layout and shift: 32 shifts of 3 layouts of opus take about
# 4 minutes. It has its own runner and summary file, but the program's workloads write to
# bench-PROGRAM/tmp: it can run beside real_programs.sh only while that measures another program.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=./build
if [ $# -ge 6 ] && [ -d "$1" ]; then
  build=$1
  shift
fi
[ $# -ge 5 ] || {
  echo "usage: $0 [BUILD_DIR] PROGRAM GEOMETRY STEP COUNT LAYOUT..." >&2
  exit 2
}
name=$1 geometry=$2 step=$3 count=$4
shift 4
layouts=("$@")
[[ $geometry =~ ^[0-9]+,[0-9]+,[0-9]+$ ]] || { echo "'$geometry' is not SIZE,WAYS,LINE" >&2; exit 2; }
for v in "$step" "$count"; do
  if ! [[ $v =~ ^[0-9]+$ ]] || [ "$v" -eq 0 ]; then
    echo "'$v' is not a positive number" >&2
    exit 2
  fi
done
workload=${WORKLOAD:-eval}
[ "$workload" = eval ] || [ "$workload" = train ] ||
  { echo "WORKLOAD must be eval or train, not '$workload'" >&2; exit 2; }
build=$(cd "$build" && pwd)
bench_work=$build/bench-$name
[ -x "$bench_work/layouts/probe-link" ] || { echo "no $bench_work from real_programs.sh: run it first" >&2; exit 1; }
scripts=()
for l in "${layouts[@]}"; do
  case $l in
    gnu-default) scripts+=("") ;;
    lld-*) echo "$l is linked by lld: not supported" >&2; exit 2 ;;
    *) [ -f "$bench_work/scripts/$l.ld" ] || { echo "no $bench_work/scripts/$l.ld" >&2; exit 1; }
       scripts+=("$bench_work/scripts/$l.ld") ;;
  esac
done
source "$root/tests/bench/i1_misses.sh"
use_bench_program "$root" "$build" "$name" "$workload" || exit 2

# A private work directory with its own runner and summary file, so that this does not share
# bench-PROGRAM/cg.sum with a run of real_programs.sh.
work=$(mktemp -d "$build/bench-cache/shift.XXXXXX")
trap 'rm -rf "$work"' EXIT
write_cg_runner "$work"

: >"$work/table"
for ((i = 0; i < count; i++)); do
  n=$((i * step))
  write_shift_script "$n" "$work/shift.ld"
  row=$n
  for j in "${!layouts[@]}"; do
    args=()
    if [ -n "${scripts[j]}" ]; then
      # As real_programs.sh's link_binary: code aligned to the way size starts n mod W past it.
      shift_layout_script "$n" "${scripts[j]}" "$work/layout.ld" || cp "${scripts[j]}" "$work/layout.ld"
      args=("-Wl,-T,$work/layout.ld")
    fi
    # shellcheck disable=SC2086 # libs is words on purpose
    gcc -Wl,-T,"$work/shift.ld" "${args[@]}" "$bench_work"/obj/*.o $libs -o "$work/bin" 2>/dev/null
    row+=" $(i1_misses "$work" "${name}_$workload" "$work/bin" "$geometry")"
  done
  echo "$row" >>"$work/table"
done

python3 - "$work/table" "$name" "$geometry" "$workload" "${layouts[@]}" <<'EOF'
import sys
path, name, geometry, workload = sys.argv[1:5]
layouts = sys.argv[5:]
rows = [[int(x) for x in line.split()] for line in open(path)]
base = layouts.index("gnu-default") if "gnu-default" in layouts else None
print(f"{name}: {workload.upper()} I1 misses at {geometry} with the text shifted by n bytes"
      + ("; in brackets, the ratio to gnu-default at the same shift" if base is not None else ""))
print(f"{'n':>6} " + " ".join(f"{l:>28}" for l in layouts))
for r in rows:
    cells = []
    for j in range(len(layouts)):
        ratio = f" ({r[1 + j] / r[1 + base]:.3f})" if base is not None and j != base else ""
        cells.append(f"{r[1 + j]:>20,}{ratio:>8}")
    print(f"{r[0]:>6} " + " ".join(cells))
count = len(rows)
for j, layout in enumerate(layouts):
    col = [r[1 + j] for r in rows]
    print(f"{layout}: {min(col):,} to {max(col):,} over the shifts "
          f"(the highest {max(col) / min(col):.3f} times the lowest)")
if base is None:
    sys.exit(0)
for j, layout in enumerate(layouts):
    if j == base:
        continue
    mean = sum(r[1 + j] for r in rows) / sum(r[1 + base] for r in rows)
    spans = []
    k = 2
    while k < count and count % k == 0:
        stride = count // k
        ratios = []
        for phase in range(stride):
            picked = rows[phase::stride]
            ratios.append(sum(r[1 + j] for r in picked) / sum(r[1 + base] for r in picked))
        spans.append(f"{k} shifts {min(ratios):.3f} to {max(ratios):.3f}")
        k *= 2
    print(f"{layout} / gnu-default over all {count} shifts: {mean:.3f}"
          + (f"; over K evenly spaced shifts: {', '.join(spans)}" if spans else ""))
EOF
