#!/usr/bin/env bash
# End to end: a fast region on a second architecture, riscv64 under qemu-user. The sources of
# cortex_m.sh's and fast_region.sh's firmware (tests/e2e/cortex_m/), built for the host and
# traced there for the profile, then built for riscv64 (static, glibc) with a script that adds
# an output section .fast_text before .text and INCLUDEs lorgen's fragment in it: the chosen
# code lies in .fast_text and nothing else there (lorgen check), and the relinked program prints
# what the plain one prints. Then two regions, .fast_text and .warm_text, each its own output
# section and fragment: filled in the order given, checked, run, written again by lorgen script,
# and the --fast-include mistakes refused with nothing written. Without the cross compiler or
# qemu-riscv64 the test is skipped (exit 77).
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/cortex_m
have riscv64-linux-gnu-gcc || { echo "SKIP: riscv64-linux-gnu-gcc is not installed" >&2; exit 77; }
have qemu-riscv64 || { echo "SKIP: qemu-riscv64 is not installed" >&2; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
CFLAGS="-O2 -ffunction-sections -fno-builtin -I$fw"
SOURCES="app filter frames host_board"

step "profile on the host"
tracer=$(build_tracer gcc tracer "$src")
mkdir -p prof
for f in $SOURCES; do
  # shellcheck disable=SC2086 # CFLAGS is words on purpose
  gcc $CFLAGS -finstrument-functions -c "$fw/$f.c" -o "prof/$f.o"
done
# shellcheck disable=SC2086 # $tracer is two objects
gcc prof/*.o $tracer -o fw-prof
LGTRACE_OUT=fw.prf ./fw-prof >prof.out

step "riscv64 build, plain, and its run under qemu-riscv64"
mkdir -p rv
for f in $SOURCES; do
  # shellcheck disable=SC2086
  riscv64-linux-gnu-gcc $CFLAGS -c "$fw/$f.c" -o "rv/$f.o"
done
riscv64-linux-gnu-gcc -static rv/*.o -o plain.elf
status=0
timeout 30 qemu-riscv64 ./plain.elf >plain.out || status=$?
[ "$status" -eq 0 ] || fail "the plain riscv64 build exited $status under qemu-riscv64"
cmp -s prof.out plain.out || fail "the riscv64 build printed '$(cat plain.out)', the host '$(cat prof.out)'"

step "lorgen chooses the code for a 512-byte .fast_text"
"$lorgen" fw.prf plain.elf rv/*.o --fast-region .fast_text=512 --fast-include fast.ld \
  -o fw.lor --report fw.txt 2>err.txt || { cat err.txt >&2; fail "lorgen failed"; }
grep -q '^region \.fast_text size=512 budget=512 bytes=[0-9]* functions=[1-9][0-9]*$' fw.lor ||
  { cat err.txt >&2; fail "fw.lor has no member in .fast_text"; }
# The calls between the region and the rest are named; RISC-V has no note on veneers.
grep -q '^  crossing     ' fw.txt || { cat fw.txt >&2; fail "the report names no crossing call"; }
if grep -q '^  Arm: ' fw.txt; then fail "the riscv64 report speaks of Arm veneers"; fi

step "relink with .fast_text before .text, INCLUDEing the fragment"
# The toolchain's own script for -static, with the region's output section added.
toolchain_script riscv64-linux-gnu-gcc default.ld -static rv/*.o
before_text default.ld fast_text.ld "  .fast_text : { INCLUDE fast.ld }"
riscv64-linux-gnu-gcc -static -T fast_text.ld rv/*.o -o fast.elf
size=$(riscv64-linux-gnu-size -A fast.elf | awk '$1 == ".fast_text" { print $2 }')
[ -n "$size" ] && [ "$size" -gt 0 ] && [ "$size" -le 512 ] ||
  fail ".fast_text holds ${size:-no} bytes, expected 1 to 512"

step "lorgen check: every member in .fast_text, nothing else there"
n=$(awk '$1 == "region" { print substr($6, 11) }' fw.lor)
"$lorgen" check fw.lor fast.elf rv/*.o >check.txt 2>&1 ||
  { cat check.txt >&2; fail "lorgen check failed on the riscv64 fast link"; }
grep -q "^lorgen check: $n of $n region members lie in their region, 0 other functions lie in one$" check.txt ||
  { cat check.txt >&2; fail "lorgen check did not find the $n members in .fast_text"; }

step "a region far from the code it calls: the linker cannot relax the calls, and it still fits"
# At 1 GiB, beyond the reach of the jal the linker shortens near calls to, the members keep the
# call sequences of their object files and take more bytes than in the plain link: lorgen must
# have counted those (the region's bytes=), not the relaxed sizes.
before_text default.ld far.ld "  __near = .;" "  .fast_text 0x40000000 : { INCLUDE fast.ld }" \
  "  . = __near;"
riscv64-linux-gnu-gcc -static -T far.ld rv/*.o -o far.elf
far=$(riscv64-linux-gnu-size -A far.elf | awk '$1 == ".fast_text" { print $2 }')
bytes=$(awk '$1 == "region" { print substr($5, 7) }' fw.lor)
[ -n "$far" ] && [ "$far" -gt "$size" ] ||
  fail "the far .fast_text holds ${far:-no} bytes, not more than the near $size: nothing was relaxed"
[ "$far" -le "$bytes" ] || fail "the far .fast_text holds $far bytes, more than the $bytes lorgen counted"
status=0
timeout 30 qemu-riscv64 ./far.elf >far.out || status=$?
[ "$status" -eq 0 ] && cmp -s plain.out far.out || fail "the far build exited $status or printed '$(cat far.out)'"
"$lorgen" check fw.lor far.elf rv/*.o >check-far.txt 2>&1 ||
  { cat check-far.txt >&2; fail "lorgen check failed on the far link"; }

step "the relinked program prints what the plain one prints"
status=0
timeout 30 qemu-riscv64 ./fast.elf >fast.out || status=$?
[ "$status" -eq 0 ] || fail "the fast riscv64 build exited $status under qemu-riscv64"
cmp -s plain.out fast.out || fail "the fast build printed '$(cat fast.out)', the plain '$(cat plain.out)'"

# fragment_sections FILE: the input sections a fragment lists, one a line, sorted.
fragment_sections() {
  sed -n 's/^\*(\(\.text[^)]*\))$/\1/p' "$1" | sort
}

# region_functions LOR NAME: the functions the .LOR lists in region NAME.
region_functions() {
  awk -v name="$2" '$1 == "region" || $1 == "clique" { r = $1 == "region" && $2 == name }
    r && $1 == "fn" { print $2 }' "$1"
}

# json_region_field JSON NAME FIELD: a number of region NAME in the JSON report's fast_regions.
json_region_field() {
  awk -v name="$2" -v field="$3" '
    /"name": / { cur = $0; sub(/.*"name": "/, "", cur); sub(/".*/, "", cur) }
    cur == name && index($0, "\"" field "\": ") {
      v = $0; sub(/.*": /, "", v); sub(/,$/, "", v); print v; exit }' "$1"
}

step "two regions: .fast_text (256 bytes) filled first, then .warm_text (1 KiB)"
TWO="--fast-region .fast_text=256 --fast-region .warm_text=1K"
# shellcheck disable=SC2086 # TWO is words on purpose
"$lorgen" fw.prf plain.elf rv/*.o $TWO --fast-include .fast_text=fast2.ld \
  --fast-include .warm_text=warm2.ld -o two.lor --report two.txt --report-json two.json \
  2>two-err.txt || { cat two-err.txt >&2; fail "lorgen failed with two regions"; }
grep -q '^region \.fast_text size=256 budget=256 bytes=[0-9]* functions=[1-9][0-9]*$' two.lor &&
  grep -q '^region \.warm_text size=1024 budget=1024 bytes=[0-9]* functions=[1-9][0-9]*$' two.lor ||
  { grep -n '^region' two.lor >&2; fail "two.lor does not record both regions with members"; }
for r in fast warm; do
  grep -q "^/\* Fast region members chosen by lorgen.*\.${r}_text$" ${r}2.ld ||
    { cat ${r}2.ld >&2; fail "${r}2.ld is not the fragment of .${r}_text"; }
  fragment_sections ${r}2.ld >${r}2.sections
  [ -s ${r}2.sections ] || fail "${r}2.ld lists no section"
done
both=$(comm -12 fast2.sections warm2.sections)
[ -z "$both" ] || fail "sections in both fragments: $both"
# The first region takes the code that saves most per byte: cmp_sample, the most called, goes
# to .fast_text; app_main (274 bytes) cannot fit in 256 and goes to .warm_text.
grep -qx '\.text\.cmp_sample' fast2.sections || fail "cmp_sample is not in .fast_text"
grep -qx '\.text\.app_main' warm2.sections || fail "app_main is not in .warm_text"
# per_byte NAME: the self cost region NAME of two.json moved, per byte it used.
per_byte() {
  local moved used
  moved=$(json_region_field two.json "$1" moved)
  used=$(json_region_field two.json "$1" bytes_used)
  [ -n "$moved" ] && [ -n "$used" ] && [ "$used" -gt 0 ] || fail "two.json has no $1"
  echo $((moved / used))
}
fast_per_byte=$(per_byte .fast_text) warm_per_byte=$(per_byte .warm_text)
[ "$fast_per_byte" -gt "$warm_per_byte" ] ||
  fail ".fast_text saves $fast_per_byte per byte, .warm_text $warm_per_byte: the first region is not the hotter"
# Given the other way round, the 1 KiB region, filled first, takes all the executed code and
# leaves the 256-byte one nothing, which is told.
"$lorgen" fw.prf plain.elf rv/*.o --fast-region .warm_text=1K --fast-region .fast_text=256 \
  --fast-include .warm_text=swap-warm.ld --fast-include .fast_text=swap-fast.ld -o swap.lor \
  2>swap.txt || { cat swap.txt >&2; fail "lorgen failed with the regions swapped"; }
grep -q '^lorgen: warning: --fast-region .fast_text holds nothing: no executed code that can move is left for it$' swap.txt ||
  { cat swap.txt >&2; fail "the second region, given after the 1 KiB one, was not left empty"; }
[ -z "$(fragment_sections swap-fast.ld)" ] || fail "swap-fast.ld lists sections"

step "the reports show both regions and the calls between them"
grep -q '^  \.fast_text: [0-9]* functions, [0-9]* of 256 bytes used' two.txt &&
  grep -q '^  \.warm_text: [0-9]* functions, [0-9]* of 1024 bytes used' two.txt ||
  { cat two.txt >&2; fail "the text report does not show both regions"; }
grep -q '^  crossing     [^ ]* \[\.warm_text\] -> [^ ]* \[\.fast_text\] [0-9]*$' two.txt ||
  { cat two.txt >&2; fail "the text report names no call from .warm_text to .fast_text"; }
grep -q '^  crossing     [^ ]* \[the rest\] -> app_main \[\.warm_text\] [0-9]*$' two.txt ||
  { cat two.txt >&2; fail "the text report names no call from the rest into .warm_text"; }
grep -q '"caller_side": "\.warm_text", "callee": "[^"]*", "callee_side": "\.fast_text"' two.json ||
  { cat two.json >&2; fail "the JSON report names no call from .warm_text to .fast_text"; }
# The same rows in both reports, in the same order.
sed -n 's/^  crossing     \([^ ]*\) \[\([^]]*\)\] -> \([^ ]*\) \[\([^]]*\)\] \([0-9]*\)$/\1 \2 \3 \4 \5/p' \
  two.txt >crossing-text.txt
sed -n 's/.*{"caller": "\([^"]*\)", "caller_side": "\([^"]*\)", "callee": "\([^"]*\)", "callee_side": "\([^"]*\)", "weight": \([0-9]*\)}.*/\1 \2 \3 \4 \5/p' \
  two.json >crossing-json.txt
[ -s crossing-text.txt ] && cmp -s crossing-text.txt crossing-json.txt ||
  fail "the text and JSON reports name other crossing calls: $(diff crossing-text.txt crossing-json.txt)"

step "relink with .fast_text and .warm_text before .text; lorgen check; the program runs"
before_text default.ld two_text.ld "  .fast_text : { INCLUDE fast2.ld }" \
  "  .warm_text : { INCLUDE warm2.ld }"
riscv64-linux-gnu-gcc -static -T two_text.ld rv/*.o -o two.elf
for r in fast:256 warm:1024; do
  size=$(riscv64-linux-gnu-size -A two.elf | awk -v s=".${r%:*}_text" '$1 == s { print $2 }')
  [ -n "$size" ] && [ "$size" -gt 0 ] && [ "$size" -le "${r#*:}" ] ||
    fail ".${r%:*}_text holds ${size:-no} bytes, expected 1 to ${r#*:}"
done
n=$(awk '$1 == "region" { n += substr($6, 11) } END { print n }' two.lor)
"$lorgen" check two.lor two.elf rv/*.o >check-two.txt 2>&1 ||
  { cat check-two.txt >&2; fail "lorgen check failed on the two-region link"; }
grep -q "^lorgen check: $n of $n region members lie in their region, 0 other functions lie in one$" check-two.txt ||
  { cat check-two.txt >&2; fail "lorgen check did not find the $n members of both regions"; }
status=0
timeout 30 qemu-riscv64 ./two.elf >two.out || status=$?
[ "$status" -eq 0 ] || fail "the two-region riscv64 build exited $status under qemu-riscv64"
cmp -s plain.out two.out || fail "the two-region build printed '$(cat two.out)', the plain '$(cat plain.out)'"

step "lorgen script writes the same two fragments from the .LOR"
"$lorgen" script two.lor plain.elf rv/*.o --fast-include .warm_text=script-warm.ld \
  --fast-include .fast_text=script-fast.ld -o script-two.lor 2>script-two.txt ||
  { cat script-two.txt >&2; fail "lorgen script failed with two regions"; }
cmp fast2.ld script-fast.ld && cmp warm2.ld script-warm.ld && cmp two.lor script-two.lor ||
  fail "lorgen script wrote other files"

step "--fast-include mistakes with two regions: told, and nothing written"
mkdir -p bad && cd bad
# no_outputs: none of the files a refused run was asked for exists.
no_outputs() {
  local f
  for f in bad.lor bad.txt bad-fast.ld bad-warm.ld; do
    [ ! -e "$f" ] || fail "a refused run left $f behind"
  done
}
# shellcheck disable=SC2086 # TWO is words on purpose
expect 2 "--fast-include: '.nope=bad-warm.ld' names no --fast-region" -- \
  ../fw.prf ../plain.elf ../rv/*.o $TWO --fast-include .fast_text=bad-fast.ld \
  --fast-include .nope=bad-warm.ld -o bad.lor --report bad.txt
no_outputs
expect 2 "--fast-region: region '.fast_text' is given twice" -- \
  ../fw.prf ../plain.elf ../rv/*.o --fast-region .fast_text=256 --fast-region .fast_text=1K \
  --fast-include .fast_text=bad-fast.ld -o bad.lor --report bad.txt
no_outputs
# shellcheck disable=SC2086
expect 2 "--fast-include: 'bad-fast.ld' names no --fast-region" -- \
  ../fw.prf ../plain.elf ../rv/*.o $TWO --fast-include bad-fast.ld -o bad.lor --report bad.txt
no_outputs
# lorgen script matches the names against the .LOR's regions, after reading it.
expect 1 "--fast-include .nope=bad-warm.ld names no region of the order (it has 2)" -- \
  script ../two.lor ../plain.elf ../rv/*.o --fast-include .fast_text=bad-fast.ld \
  --fast-include .nope=bad-warm.ld -o bad.lor
no_outputs
expect 1 "--fast-include bad-fast.ld names no region of the order (it has 2)" -- \
  script ../two.lor ../plain.elf ../rv/*.o --fast-include bad-fast.ld -o bad.lor
no_outputs
expect 1 "--fast-include: region '.fast_text' is given two files" -- \
  script ../two.lor ../plain.elf ../rv/*.o --fast-include .fast_text=bad-fast.ld \
  --fast-include .fast_text=bad-warm.ld -o bad.lor
no_outputs
# A fragment that cannot be written: the other outputs are not written either.
# shellcheck disable=SC2086
expect 1 "no-such-dir/bad-fast.ld" -- ../fw.prf ../plain.elf ../rv/*.o $TWO \
  --fast-include .fast_text=no-such-dir/bad-fast.ld --fast-include .warm_text=bad-warm.ld \
  -o bad.lor --report bad.txt
no_outputs
expect 1 "no-such-dir/bad-fast.ld" -- script ../two.lor ../plain.elf ../rv/*.o \
  --fast-include .fast_text=no-such-dir/bad-fast.ld --fast-include .warm_text=bad-warm.ld \
  -o bad.lor
no_outputs
# A fragment is an output like the others: not two on one file, not one on another output or
# on an input.
# shellcheck disable=SC2086
expect 2 "--fast-include bad-fast.ld and --fast-include bad-fast.ld name one file" -- \
  ../fw.prf ../plain.elf ../rv/*.o $TWO --fast-include .fast_text=bad-fast.ld \
  --fast-include .warm_text=bad-fast.ld -o bad.lor
no_outputs
# shellcheck disable=SC2086
expect 2 "-o bad.lor and --fast-include bad.lor name one file" -- \
  ../fw.prf ../plain.elf ../rv/*.o $TWO --fast-include .fast_text=bad.lor \
  --fast-include .warm_text=bad-warm.ld -o bad.lor
no_outputs
cp ../plain.elf input.elf
cp ../two.lor input.lor
# shellcheck disable=SC2086
expect 2 "--fast-include input.elf is the input input.elf" -- \
  ../fw.prf input.elf ../rv/*.o $TWO --fast-include .fast_text=input.elf \
  --fast-include .warm_text=bad-warm.ld -o bad.lor
no_outputs
cmp -s ../plain.elf input.elf || fail "lorgen wrote over its input input.elf"
expect 1 "--fast-include input.lor is the input input.lor" -- script input.lor input.elf \
  ../rv/*.o --fast-include .fast_text=bad-fast.ld --fast-include .warm_text=input.lor -o bad.lor
no_outputs
cmp -s ../two.lor input.lor || fail "lorgen script wrote over its input input.lor"
expect 1 "-o bad.lor and --fast-include bad.lor name one file" -- script input.lor input.elf \
  ../rv/*.o --fast-include .fast_text=bad-fast.ld --fast-include .warm_text=bad.lor -o bad.lor
no_outputs
cd ..
echo "fast_region_riscv: ok" >&2
