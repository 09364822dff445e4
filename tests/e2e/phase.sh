#!/usr/bin/env bash
# End to end: a function whose phase in the cache line a .LOR sets (phase=) starts that many
# bytes into a line in the linked program. lorgen script pads to the first address at that phase
# before its input section; GNU ld aligns the address there, not the offset in the output
# section, which the freestanding link proves by starting .text 16 bytes past a line boundary.
# The hosted link (-T INSERT script) must run and print what the plain build printed, with every
# function still linked; gold's and lld's lists cannot hold a phase and lorgen says how many
# functions lost theirs; a phase the line or the section's alignment cannot give is an error.
# lorgen check reads the phases back: at them it passes, and with the padding left out of the
# script it names the function off its phase, both phases, and exits 3.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
ph=$src/tests/e2e/phase
rm -rf "$work" && mkdir -p "$work" && cd "$work"
CFLAGS="-O2 -ffunction-sections -I$ph"

# address_of ELF NM SYMBOL: the symbol's address in decimal.
address_of() {
  local at
  at=$("$2" "$1" | awk -v s="$3" '$3 == s { print $1 }')
  [ -n "$at" ] || fail "$1: no symbol $3"
  echo $((16#$at))
}

# expect_phase ELF NM SYMBOL LINE PHASE
expect_phase() {
  local a
  a=$(address_of "$1" "$2" "$3")
  [ $((a % $4)) -eq "$5" ] ||
    fail "$1: $3 at $(printf '0x%x' "$a"), phase $((a % $4)) in the $4-byte line, expected $5"
  echo "   $1: $3 at $(printf '0x%x' "$a"): phase $5 in the $4-byte line" >&2
}

# section_field ELF SECTION FIELD: a field of the section's readelf -SW row, counted from its
# name (1 name, 2 type, 3 address, ..., last the alignment: use $NF as "NF").
section_field() {
  readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' |
    awk -v s="$2" -v f="$3" '$1 == s { print (f == "NF" ? $NF : $f) }'
}

# Function symbols (text) an ELF defines, sorted by name.
functions_of() {
  nm --defined-only "$1" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | sort
}

step "a hosted program, built plain"
mkdir -p obj
for f in work main; do gcc $CFLAGS -c "$ph/$f.c" -o "obj/$f.o"; done
gcc obj/*.o -o ph
./ph >base.out
line_align=$(section_field obj/work.o .text.ph_big NF)
[ "$line_align" = 16 ] || fail "ph_big's section is aligned to $line_align, the test expects 16"

step "a hand-written .LOR: ph_big at +16, ph_tail at 0 in the 32-byte line"
cat >ph.lor <<'EOF'
lorgen-lor 1
cache size=8192 line=32 ways=1
clique 1
  fn ph_small
  fn ph_big phase=16
  fn ph_tail phase=0
  fn ph_run
  fn main
cold 0
EOF
"$lorgen" script ph.lor ph obj/*.o --ld-script ph.ld --ld-include ph-order.ld --gold ph.gold \
  --lld ph.lld -o again.lor 2>script.err
grep -q "gold's ordering file cannot hold the phase in the cache line chosen for 2 functions" \
  script.err || { cat script.err >&2; fail "no note that gold loses the phases"; }
grep -q "lld's ordering file cannot hold the phase in the cache line chosen for 2 functions" \
  script.err || { cat script.err >&2; fail "no note that lld loses the phases"; }
grep -q '^  fn ph_big size=[0-9]* hits=0 phase=16 ' again.lor || fail "again.lor lost phase=16"
grep -q '^  fn ph_tail size=[0-9]* hits=0 phase=0 ' again.lor || fail "again.lor lost phase=0"
awk '/\. = \. \+ \(\(ALIGN\(32\) - \. \+ 16\) & 31\);/ { p = NR }
     /\*\(\.text\.ph_big\)/ && NR == p + 1 { ok = 1 } END { exit !ok }' ph.ld ||
  { cat ph.ld >&2; fail "ph.ld does not align and pad before ph_big"; }

step "GNU ld $(ld --version | head -1 | awk '{print $NF}'): -T INSERT script"
gcc obj/*.o -Wl,-T,ph.ld -o ph-ordered 2>link.err
[ ! -s link.err ] || { cat link.err >&2; fail "the linker warned"; }
./ph-ordered >ordered.out
cmp -s base.out ordered.out || fail "the relinked program prints a different result"
[ "$(functions_of ph)" = "$(functions_of ph-ordered)" ] ||
  { diff <(functions_of ph) <(functions_of ph-ordered) >&2 || true; fail "functions differ"; }
expect_phase ph-ordered nm ph_big 32 16
expect_phase ph-ordered nm ph_tail 32 0
start=$(section_field ph-ordered .text.lorgen 3)
echo "   .text.lorgen starts at 0x$start (phase $((16#$start % 32)) in a 32-byte line)" >&2
"$lorgen" check ph.lor ph-ordered obj/*.o >check.txt ||
  { cat check.txt >&2; fail "lorgen check says the order did not take effect"; }
for f in ph_big ph_tail; do
  grep -q "^in order   0x[0-9a-f]* *\.text\.lorgen   $f\$" check.txt ||
    { cat check.txt >&2; fail "lorgen check gave no 'in order' row for $f at its phase"; }
done
summary='lorgen check: 5 of 5 functions landed in the asked order, 0 did not, 0 left in place'
grep -qx "$summary or moved with another" check.txt ||
  { cat check.txt >&2; fail "lorgen check's summary is not 5 of 5 in order"; }
check_order ph-ordered nm ph.lor

step "the padding to ph_big's phase left out of the script: lorgen check says it is off (exit 3)"
pad='. = . + ((ALIGN(32) - . + 16) & 31);'
grep -vF "$pad" ph.ld >nophase.ld
[ $(($(wc -l <ph.ld) - $(wc -l <nophase.ld))) -eq 1 ] ||
  fail "nophase.ld: expected the one padding line of ph.ld removed"
gcc obj/*.o -Wl,-T,nophase.ld -o ph-nophase
off=$(($(address_of ph-nophase nm ph_big) % 32))
if [ "$off" -eq 16 ]; then
  # ph_small happened to end where ph_big's 16-byte alignment gives phase 16 anyway: 16 bytes
  # more before ph_big's section move it to the start of the next line.
  awk '/\*\(\.text\.ph_big\)/ { print "    . = . + 16;" } { print }' nophase.ld >nophase16.ld
  mv nophase16.ld nophase.ld
  gcc obj/*.o -Wl,-T,nophase.ld -o ph-nophase
  off=$(($(address_of ph-nophase nm ph_big) % 32))
fi
[ "$off" -ne 16 ] || fail "ph-nophase: ph_big is still at phase 16, the negative case needs another"
at=$(printf '0x%x' "$(address_of ph-nophase nm ph_big)")
echo "   ph-nophase: ph_big at $at: phase $off in the 32-byte line, the .LOR asks 16" >&2
./ph-nophase >nophase.out
cmp -s base.out nophase.out || fail "the program linked without the phase prints a different result"
check_order ph-nophase nm ph.lor
set +e
"$lorgen" check ph.lor ph-nophase obj/*.o >check-nophase.txt
rc=$?
set -e
[ "$rc" -eq 3 ] || { cat check-nophase.txt >&2; fail "lorgen check exited $rc, expected 3"; }
row="off phase  $at *\.text\.lorgen   ph_big: off its phase: it starts at phase $off in the"
grep -qx "$row 32-byte line, the order asks phase=16 (.*)" check-nophase.txt ||
  { cat check-nophase.txt >&2; fail "lorgen check did not name ph_big at $at, phases $off and 16"; }
[ "$(grep -c '^in order ' check-nophase.txt)" -eq 4 ] ||
  { cat check-nophase.txt >&2; fail "lorgen check: expected the 4 other functions in order"; }
summary='lorgen check: 4 of 5 functions landed in the asked order, 1 did not (1 off its phase)'
grep -qx "$summary, 0 left in place or moved with another" check-nophase.txt ||
  { cat check-nophase.txt >&2; fail "lorgen check's summary does not count ph_big off its phase"; }

if have valgrind; then
  step "lorgen eval --lor replays the phased order"
  valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=ph.cg ./ph >/dev/null 2>&1
  "$lorgen" eval ph.cg ph obj/*.o --lor ph.lor >eval.txt 2>eval.err ||
    { cat eval.err >&2; fail "lorgen eval --lor failed on the phased .LOR"; }
  grep -q '^ph.lor ' eval.txt || { cat eval.txt >&2; fail "lorgen eval gave no row for ph.lor"; }
  # The replay fetches ph_big's lines: at +16 it takes one more than at 0 when its size says
  # so, and the estimate must see where the phase put it.
  sed 's/ph_big phase=16/ph_big phase=0/' ph.lor >zero.lor
  "$lorgen" eval ph.cg ph obj/*.o --lor zero.lor >zero.txt 2>/dev/null
  size=$((16#$(nm -S obj/work.o | awk '$4 == "ph_big" { print $2 }')))
  at16=$(awk '$1 == "ph.lor" { print $2 }' eval.txt)
  at0=$(awk '$1 == "zero.lor" { print $2 }' zero.txt)
  if [ $(((size + 16 + 31) / 32)) -ne $(((size + 31) / 32)) ]; then
    [ "$at16" -gt "$at0" ] ||
      fail "lorgen eval replays $at16 line fetches with ph_big at +16, $at0 at 0: expected more"
  fi
  echo "   lorgen eval: $at0 line fetches with ph_big at 0, $at16 at +16 ($size bytes)" >&2
fi

step "freestanding, .text 16 bytes past a line boundary: ALIGN aligns the address"
mkdir -p fs
for f in work start; do gcc $CFLAGS -ffreestanding -fno-builtin -c "$ph/$f.c" -o "fs/$f.o"; done
grep -v '^  fn main$' ph.lor >fs.lor
sed 's/line=32/line=64/; s/phase=16/phase=48/' fs.lor >fs64.lor
for lor in fs fs64; do
  mkdir -p "$lor"
  # board.ld INCLUDEs order.ld, which ld looks for in the current directory before -L: the
  # hosted fragment above is called ph-order.ld so that this one is found.
  "$lorgen" -q script "$lor.lor" fs/*.o --ld-include "$lor/order.ld"
  gcc -nostdlib -nostartfiles -static -L"$lor" -T "$ph/board.ld" -Wl,--build-id=none \
    -Wl,--no-warn-rwx-segments fs/*.o -o "$lor/ph.elf"
  text=$(section_field "$lor/ph.elf" .text 3)
  [ $((16#$text % 64)) -eq 16 ] || fail "$lor: .text starts at 0x$text, not 16 past a line"
  check_order "$lor/ph.elf" nm "$lor.lor"
done
expect_phase fs/ph.elf nm ph_big 32 16
expect_phase fs/ph.elf nm ph_tail 32 0
expect_phase fs64/ph.elf nm ph_big 64 48
expect_phase fs64/ph.elf nm ph_tail 64 0

step "a phase the line or the section's alignment cannot give is an error"
sed 's/phase=16/phase=32/' ph.lor >wide.lor
n=$(grep -n 'phase=32' wide.lor | cut -d: -f1)
expect 1 "wide.lor:$n: error: expected phase= below the 32-byte line of the cache statement, found 32" \
  -- script wide.lor ph obj/*.o --ld-script wide.ld
[ ! -e wide.ld ] || fail "a script was written for phase=32"
sed 's/phase=16/phase=8/' ph.lor >odd.lor
n=$(grep -n 'phase=8' odd.lor | cut -d: -f1)
expect 1 "odd.lor:$n: error: expected phase= a multiple of the 16-byte alignment of section .text.ph_big, found 8: the linker would start 'ph_big' at phase 16 instead" \
  -- script odd.lor ph obj/*.o --ld-script odd.ld
[ ! -e odd.ld ] || fail "a script was written for phase=8"
echo "phase: ok" >&2
