#!/usr/bin/env bash
# End to end: a fast region that the board's own script already fills in part. The program's
# linker script (the toolchain's default with an output section .fast_text added before .text)
# keeps a 400-byte function of its own there by a section line, `*(.ramfunc)`, as __ramfunc or a
# section attribute does, and INCLUDEs lorgen's fragment after it. lorgen must read those bytes
# from the linked program, take them off the region's budget, keep that function out of its
# cache order, record it in the .LOR (held=, pinned), and say so before the link; relinked, the
# region must hold the pinned function and lorgen's choice within its size, lorgen check must
# pass (the pinned function is no intruder), and the program must print what the plain one does.
# A region the pinned code alone overflows is told with the bytes over, and a hand-edited .LOR
# whose members no longer fit is refused by lorgen script before anything is written.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
app=$src/tests/e2e/fast_region_held
rm -rf "$work" && mkdir -p "$work" && cd "$work"
CFLAGS="-O2 -ffunction-sections -fno-inline"

step "profile"
tracer=$(build_tracer gcc tracer "$src")
mkdir -p obj prof
# shellcheck disable=SC2086 # CFLAGS is words on purpose
gcc $CFLAGS -c "$app/app.c" -o obj/app.o
gcc -c "$app/pinned.S" -o obj/pinned.o
# shellcheck disable=SC2086
gcc $CFLAGS -finstrument-functions -c "$app/app.c" -o prof/app.o
# shellcheck disable=SC2086 # $tracer is two objects
gcc prof/app.o obj/pinned.o $tracer -o app-prof
LGTRACE_OUT=app.prf ./app-prof >prof.out

step "plain link: .fast_text holds the pinned function and an empty fragment"
toolchain_script gcc default.ld obj/*.o
before_text default.ld board.ld "  .fast_text : { *(.ramfunc) INCLUDE fast.ld }"
mkdir -p plain && : >plain/fast.ld
(cd plain && gcc -T ../board.ld ../obj/*.o -o ../plain.elf)
./plain.elf >plain.out
cmp -s prof.out plain.out || fail "the plain build printed '$(cat plain.out)', the traced '$(cat prof.out)'"
held=$(size -A plain.elf | awk '$1 == ".fast_text" { print $2 }')
[ "$held" -eq 400 ] || fail "the plain .fast_text holds ${held:-no} bytes, expected the pinned 400"

step "lorgen takes the pinned bytes off a 560-byte region's budget"
"$lorgen" app.prf plain.elf obj/*.o --fast-region .fast_text=560 --fast-include fast.ld \
  --ld-include order.ld -o app.lor --report app.txt --report-html app.html --report-json app.json 2>err.txt || { cat err.txt >&2; fail "lorgen failed"; }
grep -q "^lorgen: note: --fast-region \.fast_text: the linked program's \.fast_text already holds 400 bytes lorgen does not place there (1 function(s) its script or a section attribute put there; the largest pinned_step, 400 bytes, and padding or data): 160 of its 560 bytes are left for lorgen's choice$" err.txt ||
  { cat err.txt >&2; fail "lorgen did not tell the bytes the link keeps in the region"; }
grep -q '^region \.fast_text size=560 budget=160 bytes=[0-9]* functions=[1-9][0-9]* held=400$' app.lor ||
  { grep -n -A3 '^region' app.lor >&2; fail "app.lor does not record the held bytes"; }
grep -q '^  pinned pinned_step$' app.lor || fail "app.lor does not name the pinned function"
grep -q '^  held         400 bytes the link keeps there besides' app.txt &&
  grep -q '^  pinned       pinned_step: kept there by the link' app.txt ||
  { cat app.txt >&2; fail "the report does not show what the link keeps in the region"; }
grep -q '<td>pinned_step</td>\|pinned_step (pinned)' app.html ||
  fail "the HTML report does not name the pinned function"
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["fast_regions"]["regions"][0]
sys.exit(0 if r["held"] == 400 and r["pinned"] == ["pinned_step"] else 1)' app.json ||
  fail "the JSON report does not give held and pinned"
bytes=$(awk '$1 == "region" { print substr($5, 7) }' app.lor)
n=$(awk '$1 == "region" { print substr($6, 11) }' app.lor)
[ "$bytes" -le 160 ] || fail "the region's members take $bytes bytes, more than the 160 left"
# The fragment says what it holds, as a region and not as a clique.
grep -q "^ \* $n functions, $bytes bytes with alignment padding\. \*/$" fast.ld ||
  { cat fast.ld >&2; fail "the fragment does not say what the region's members take"; }
if grep -q 'clique' fast.ld; then fail "the region's fragment speaks of a clique"; fi
# The pinned function is in no clique and in no fragment line of lorgen's.
if grep -q 'pinned_step\|ramfunc' order.ld fast.ld; then fail "a fragment names the pinned function"; fi
if awk '$1 == "clique" { c = 1 } c && $1 == "fn" { print $2 }' app.lor | grep -qx pinned_step; then
  fail "the pinned function is in the cache order"
fi

step "relinked: the pinned function and lorgen's choice share .fast_text within its size"
mkdir -p fast && cp fast.ld order.ld fast/
(cd fast && gcc -T ../board.ld ../obj/*.o -o ../fast.elf)
./fast.elf >fast.out
cmp -s plain.out fast.out || fail "the relinked program printed '$(cat fast.out)', the plain '$(cat plain.out)'"
size=$(size -A fast.elf | awk '$1 == ".fast_text" { print $2 }')
[ "$size" -le 560 ] || fail ".fast_text holds $size bytes, more than the region's 560"
[ "$size" -gt 400 ] || fail ".fast_text holds $size bytes: lorgen's choice did not land there"
"$lorgen" check app.lor fast.elf obj/*.o >check.txt 2>&1 ||
  { cat check.txt >&2; fail "lorgen check failed on the relinked program"; }
grep -q "^lorgen check: $n of $n region members lie in their region, 0 other functions lie in one$" check.txt ||
  { cat check.txt >&2; fail "lorgen check did not pass the region with its pinned function"; }
grep -q '^pinned  .* \.fast_text  *pinned_step' check.txt ||
  { cat check.txt >&2; fail "lorgen check does not show the pinned function"; }

grep -q "^fits       \.fast_text: $size of its 560 bytes in the link$" check.txt ||
  { cat check.txt >&2; fail "lorgen check does not say the region fits"; }
# The same link against a .LOR that gave the region less room (a memory region in the script
# larger than the size lorgen was given): check says by how much it overflows, and exits 3.
sed 's/^region \.fast_text size=560 /region .fast_text size=500 /' app.lor >small-size.lor
status=0
"$lorgen" check small-size.lor fast.elf obj/*.o >check-over.txt 2>&1 || status=$?
[ "$status" -eq 3 ] || { cat check-over.txt >&2; fail "check exited $status on an overflowing region, expected 3"; }
grep -q "^overflow   \.fast_text: $size bytes in the link, size=500: $((size - 500)) bytes over$" check-over.txt ||
  { cat check-over.txt >&2; fail "lorgen check did not say the region overflows"; }

step "the relinked program read again gives the same choice (lorgen's own code is not held)"
"$lorgen" app.prf fast.elf obj/*.o --fast-region .fast_text=560 --fast-include again.ld \
  -o again.lor 2>again.txt || { cat again.txt >&2; fail "lorgen failed on the relinked program"; }
cmp fast.ld again.ld || fail "read from the relinked program, lorgen chose another fragment"
grep -q 'held=400$' again.lor || { grep '^region' again.lor >&2; fail "held is not 400 on the relinked program"; }

step "a .text function the board's own lines keep in the region, --exclude'd, is held too"
# The board also puts fold, from .text.fold, in .fast_text. Excluded, it is the board's: its
# bytes come off the budget with the pinned function's, and it is pinned in the .LOR.
before_text default.ld board2.ld "  .fast_text : { *(.ramfunc) *(.text.fold) INCLUDE fast.ld }"
mkdir -p plain2 && : >plain2/fast.ld
(cd plain2 && gcc -T ../board2.ld ../obj/*.o -o ../plain2.elf)
fold=$(nm -S plain2.elf | awk '$4 == "fold" { print $2 }')
[ -n "$fold" ] || fail "plain2.elf has no fold"
"$lorgen" app.prf plain2.elf obj/*.o --fast-region .fast_text=560 --exclude fold \
  --fast-include fast2.ld -o app2.lor 2>err2.txt || { cat err2.txt >&2; fail "lorgen failed"; }
grep -q "already holds $((400 + 16#$fold)) bytes lorgen does not place there (2 function(s)" err2.txt ||
  { cat err2.txt >&2; fail "lorgen did not hold the excluded fold with the pinned function"; }
grep -q '^  pinned fold$' app2.lor || fail "app2.lor does not pin fold"
if grep -q 'fold' fast2.ld; then fail "the fragment names fold, which the board places"; fi

step "a region the pinned code alone overflows is told with the bytes over"
"$lorgen" app.prf plain.elf obj/*.o --fast-region .fast_text=384 --fast-include small.ld \
  -o small.lor 2>small.txt || { cat small.txt >&2; fail "lorgen failed"; }
grep -q "^lorgen: warning: --fast-region \.fast_text overflows before lorgen adds anything: .* 400 bytes .*, more than its 384 bytes: 16 bytes over$" small.txt ||
  { cat small.txt >&2; fail "the overflow was not told"; }

step "a hand-edited .LOR whose members no longer fit is refused before anything is written"
# A member of a clique moved into the region: its bytes and the held 400 pass size=560.
mover=$(awk '$1 == "clique" { c = 1 } c && $1 == "fn" { print; exit }' app.lor)
[ -n "$mover" ] || fail "app.lor has no clique member to move"
awk -v line="$mover" '$0 == line { next } { print } /^  pinned / { print line }' app.lor >over.lor
status=0
"$lorgen" script over.lor plain.elf obj/*.o --fast-include over.ld --ld-include over-order.ld \
  2>over.txt || status=$?
[ "$status" -eq 1 ] || { cat over.txt >&2; fail "lorgen script exited $status on an overflowing region, expected 1"; }
grep -q "^lorgen: over\.lor:[0-9]*: error: region '\.fast_text' overflows: its [0-9]* members take [0-9]* bytes, and the link keeps 400 bytes more there (held=400 stubs=0), [0-9]* bytes over its size=560$" over.txt ||
  { cat over.txt >&2; fail "lorgen script did not say the region overflows"; }
[ ! -e over.ld ] && [ ! -e over-order.ld ] || fail "lorgen script left an output behind"
echo "fast_region_held: ok" >&2
