#!/usr/bin/env bash
# The ELF inputs as a set: the same objects in any command-line order give byte-identical
# outputs with every algorithm, with and without the linked program (a build that globs its
# objects in directory order is reproducible); and files of two machines are refused, naming
# both.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work"
cd "$work"

step "build and profile the demo"
make -s -C "$src/examples/demo" OUT="$work" RUN_ARGS="-r 5 -n 200 -s 7" all run >/dev/null
mapfile -t sorted < <(printf '%s\n' normal/*.o | LC_ALL=C sort)
mapfile -t reversed < <(printf '%s\n' normal/*.o | LC_ALL=C sort -r)
# Every other object first, then the rest: neither sorted nor reversed.
mapfile -t mixed < <(printf '%s\n' "${sorted[@]}" | awk 'NR % 2 == 0' &&
  printf '%s\n' "${sorted[@]}" | awk 'NR % 2 == 1')

# run_all NAME ARGS...: every output of the main command into NAME.*.
run_all() {
  local name=$1
  shift
  "$lorgen" -q "$@" -o "$name.lor" --ld-script "$name.ld" --ld-include "$name.inc" \
    --gold "$name.gold" --lld "$name.lld" --report "$name.txt" --report-json "$name.json"
}

same_outputs() {
  local a=$1 b=$2 ext
  for ext in lor ld inc gold lld txt json; do
    cmp -s "$a.$ext" "$b.$ext" || {
      diff "$a.$ext" "$b.$ext" | head -20 >&2 || true # shows the difference; the test fails below
      fail "$a.$ext and $b.$ext differ: the objects' command-line order changed the output"
    }
  done
}

for algorithm in chains cliques c3 pettis-hansen hot-first; do
  step "$algorithm: objects alone in three orders"
  run_all "$algorithm-sorted" trace.prf "${sorted[@]}" --algorithm "$algorithm"
  run_all "$algorithm-reversed" trace.prf "${reversed[@]}" --algorithm "$algorithm"
  run_all "$algorithm-mixed" --algorithm "$algorithm" "${mixed[@]}" trace.prf
  same_outputs "$algorithm-sorted" "$algorithm-reversed"
  same_outputs "$algorithm-sorted" "$algorithm-mixed"
  step "$algorithm: with the linked program, objects in two orders"
  run_all "$algorithm-linked" trace.prf demo "${sorted[@]}" --algorithm "$algorithm"
  run_all "$algorithm-linked-reversed" trace.prf "${reversed[@]}" demo --algorithm "$algorithm"
  same_outputs "$algorithm-linked" "$algorithm-linked-reversed"
done

if have riscv64-linux-gnu-gcc && [ "$(uname -m)" = x86_64 ]; then
  step "a RISC-V program with x86-64 objects: refused, naming both"
  make -s -C "$src/examples/demo" OUT="$work/rv" CC=riscv64-linux-gnu-gcc LDFLAGS=-static \
    "$work/rv/demo" >/dev/null
  want="rv/demo: error: built for RISC-V (ELF64, little-endian), but normal/buf.o is built for"
  want="$want x86-64 (ELF64, little-endian)"
  expect 1 "$want" -- trace.prf rv/demo "${reversed[@]}" -o rv.lor
  [ ! -e rv.lor ] || fail "rv.lor written"
  expect 1 "$want" -- check chains-linked.lor rv/demo "${sorted[@]}"
  expect 1 "built for RISC-V" -- trace.prf demo rv/normal/lex.o -o rv.lor
else
  echo "   skipping the mixed machines: needs riscv64-linux-gnu-gcc on an x86-64 host" >&2
fi
echo "elf_inputs: ok" >&2
