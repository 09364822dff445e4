#!/usr/bin/env bash
# The main job on the shipped example: set up, build lorgen, profile the demo program with the
# example tracer, run lorgen, relink the demo with the generated linker script, check that it
# still prints the same, and show the new order and the clique report.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

scripts/setup.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target lorgen >/dev/null
lorgen=$root/build/lorgen
out=$root/build/demo
args=(-r 20 -n 400 -s 2024)

echo "== profile the demo (instrumented build, example tracer)"
make -s -C examples/demo OUT="$out" all run
echo
echo "== lorgen trace.prf demo normal/*.o -o demo.lor --ld-script demo.ld --report demo-report.txt"
cd "$out"
"$lorgen" trace.prf demo normal/*.o -o demo.lor --ld-script demo.ld --ld-include demo-order.ld \
  --report demo-report.txt
echo
echo "== relink with the generated script and compare the program output"
make -s -C "$root/examples/demo" OUT="$out" relink LDSCRIPT="$out/demo.ld"
./demo "${args[@]}" >before.out
./demo-ordered "${args[@]}" >after.out
cmp before.out after.out && echo "demo and demo-ordered print the same ($(wc -l <after.out) lines)"
echo
echo "== the first clique of demo.lor"
awk '/^clique 1 /{on=1} /^clique 2 /{exit} on' demo.lor
echo
echo "== where those functions landed in demo-ordered (nm -n)"
first=$(awk '/^clique 1 /{on=1; next} /^clique 2 /{exit} on && $1 == "fn" {print $2}' demo.lor)
nm -n --defined-only demo-ordered | awk 'NR == FNR {want[$1]=1; next} want[$3]' \
  <(printf '%s\n' "$first") - | head -20
echo
echo "== clique report (build/demo/demo-report.txt), summary"
sed -n '/^Summary/,/^$/p' demo-report.txt
echo "Outputs are in $out: demo.lor, demo.ld, demo-order.ld, demo-report.txt"
