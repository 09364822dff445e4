#!/usr/bin/env bash
# End to end: a Cortex-M7 firmware whose script has a fast code region, .itcm_text, run from ITCM
# but loaded in FLASH and copied by the reset handler: cortex_m.sh's firmware (tests/e2e/cortex_m/,
# its start-up code built with -DFW_ITCM) linked with the script of tests/e2e/fast_region/. The profile comes from a host
# build of the same sources, as in cortex_m.sh. lorgen chooses the code for a 1 KiB
# region (--fast-region), writes its input-section lines (--fast-include) and leaves those
# functions out of the .LOR; the firmware is relinked with the fragment INCLUDEd inside
# .itcm_text: the chosen code must lie in ITCM and nothing else there, the region must not
# overflow, and under qemu-system-arm (mps2-an500, semihosting) the image must print what the
# host build prints. The same with the 16 KiB region issue 30 asks for, the whole ITCM, which
# takes every executed function that can move. Without qemu that step alone is skipped (exit 77
# after every other check).
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/cortex_m       # the firmware, shared with cortex_m.sh (startup.c: -DFW_ITCM)
board=$src/tests/e2e/fast_region # its board script with ITCM
ARCH="-mcpu=cortex-m7 -mthumb -mfloat-abi=soft"
libc='' libgcc='' # set by newlib_nano
# shellcheck disable=SC2086 # ARCH is words on purpose
newlib_nano libc libgcc $ARCH
rm -rf "$work" && mkdir -p "$work" && cd "$work"
CFLAGS="-O2 -ffunction-sections -fno-builtin -fno-tree-loop-distribute-patterns -I$fw"
APP="app filter frames"
ITCM_START=0x20010000 ITCM_END=0x20014000 # fast_region.ld's ITCM

step "profile on the host"
# shellcheck disable=SC2086 # APP is words on purpose
build_and_trace "$fw" fw-host fw.prf "$CFLAGS" $APP host_board host_libc
cmp -s base.out prof.out || fail "the instrumented and plain host builds print different results"

# link_fw DIR ELF: links the arm objects (OBJ_DIR, default arm/, built for LINK_ARCH, default
# ARCH) from DIR, where fast_region.ld finds the itcm.ld and order.ld it INCLUDEs (GNU ld looks
# in the current directory first).
link_fw() {
  # shellcheck disable=SC2086
  (cd "$1" && arm-none-eabi-gcc ${LINK_ARCH:-$ARCH} --specs=nano.specs -nostartfiles \
    -T "$board/fast_region.ld" -L. -Wl,--gc-sections -Wl,--build-id=none ../"${OBJ_DIR:-arm}"/*.o \
    -o "../$2")
}

# itcm_veneers ELF: how many of the linker's veneers lie in ITCM.
itcm_veneers() {
  arm-none-eabi-nm -t d "$1" | awk -v lo=$((ITCM_START)) -v hi=$((ITCM_END)) '
    $3 ~ /_veneer$/ && $1 + 0 >= lo && $1 + 0 < hi { n++ } END { print n + 0 }'
}

# itcm_functions ELF: the function symbols whose address lies in ITCM, one a line.
itcm_functions() {
  arm-none-eabi-nm -t d "$1" | awk -v lo=$((ITCM_START)) -v hi=$((ITCM_END)) '
    $2 ~ /^[tT]$/ && $1 + 0 >= lo && $1 + 0 < hi { print $3 }' | sort
}

# clique_functions LOR: the functions of the cache order, not of a region.
clique_functions() {
  awk '$1 == "region" { r = 1 } $1 == "clique" { r = 0 } $1 == "fn" && !r { print $2 }' "$1"
}

step "arm-none-eabi build with an empty fast region"
mkdir -p arm plain
for f in $APP startup semihost syscalls; do
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $CFLAGS $ARCH -DFW_ITCM -fdata-sections -c "$fw/$f.c" -o "arm/$f.o"
done
: >plain/itcm.ld
: >plain/order.ld
link_fw plain fw.elf
[ -z "$(itcm_functions fw.elf)" ] || fail "the plain build has code in ITCM"

step "lorgen chooses the code for a 1 KiB .itcm_text"
"$lorgen" fw.prf fw.elf arm/*.o "$libc" "$libgcc" --cache-size 4K --ways 2 --line-size 32 \
  --fast-region .itcm_text=1K,headroom=8% --fast-include itcm.ld --ld-include order.ld -o fw.lor \
  --report fw.txt 2>err.txt ||
  { cat err.txt >&2; fail "lorgen failed"; }
# ITCM lies 512 MiB from FLASH, but the plain build's empty .itcm_text does not say so: the
# veneers for the members' calls out of it are counted as if far, 8 bytes each, off the 942.
stubs=$(sed -n 's/^lorgen: note: --fast-region \.itcm_text: \([0-9]*\) bytes kept for the linker.s veneers to the \([0-9]*\) function(s) its members call outside it, which a BL may not reach .*/\1 \2/p' err.txt)
[ -n "$stubs" ] && [ "${stubs% *}" -eq $((8 * ${stubs#* })) ] ||
  { cat err.txt >&2; fail "lorgen did not keep 8 bytes a veneer for the region's far calls"; }
callees=${stubs#* } stubs=${stubs% *}
grep -q "^lorgen: note: --fast-region .itcm_text: [0-9]* functions, [0-9]* of $((942 - stubs)) bytes" err.txt ||
  { cat err.txt >&2; fail "lorgen did not tell what the region took"; }
grep -q '^/\* Fast region members chosen by lorgen.*\.itcm_text$' itcm.ld ||
  { cat itcm.ld >&2; fail "itcm.ld does not say which region it is for"; }
# The report's section: the bytes, the share of the cost, and qsort (1544 bytes, the hottest
# function) left out as too big.
grep -q "^  stubs        $stubs bytes kept for the linker's veneers" fw.txt ||
  { cat fw.txt >&2; fail "the report does not give the bytes kept for veneers"; }
grep -q "^  \.itcm_text: [0-9]* functions, [0-9]* of $((942 - stubs)) bytes used, [0-9]* left (size 1024), [0-9.]*% of the profile" fw.txt ||
  { cat fw.txt >&2; fail "the report has no fast region section"; }
grep -q '^  left out     qsort  .* bytes: too big for the region$' fw.txt ||
  { cat fw.txt >&2; fail "the report does not say qsort was too big for the region"; }
patterns=$(grep -c '(\.text' itcm.ld || true)
[ "$patterns" -ge 2 ] || { cat itcm.ld >&2; fail "the region took fewer than two sections"; }
# The calls between ITCM and FLASH, 512 MiB apart: the report names them, with the veneer or
# long call a direct one needs on Arm.
grep '^  crossing     ' fw.txt >crossing.txt ||
  { cat fw.txt >&2; fail "the report names no call between the region and the rest"; }
grep -q '^  crossing     [^ ]* \[\.itcm_text\] -> [^ ]* \[the rest\] [0-9]*$' crossing.txt ||
  { cat fw.txt >&2; fail "the report names no call out of the region"; }
grep -q '^  Arm: a BL reaches 16 MiB either way; .* needs a veneer' fw.txt ||
  { cat fw.txt >&2; fail "the report does not say what a far call needs on Arm"; }
# The budget is too small for everything that ran: some executed code stays in the .LOR.
[ "$(clique_functions fw.lor | wc -l)" -ge 1 ] || fail "the region took all the executed code"

step "relink with the fragment: the chosen code, and nothing else, lies in ITCM"
mkdir -p fast && cp itcm.ld order.ld fast/
link_fw fast fw-fast.elf
itcm_functions fw-fast.elf >in-itcm.txt
[ -s in-itcm.txt ] || fail "nothing landed in ITCM"
# Every function in ITCM was chosen: the .LOR, which lists the rest of the executed code, names
# none of them.
while read -r f; do
  if clique_functions fw.lor | grep -qx "$f"; then fail "$f lies in ITCM and in the cache order"; fi
done <in-itcm.txt
# Each input-section line of the fragment took its section into ITCM.
size=$(arm-none-eabi-size -A fw-fast.elf | awk '$1 == ".itcm_text" { print $2 }')
[ -n "$size" ] && [ "$size" -gt 0 ] && [ "$size" -le 1024 ] ||
  fail ".itcm_text holds ${size:-no} bytes, expected 1 to 1024"
# The members and the linker's veneers beside them stay within the 942 bytes the headroom
# leaves (the section's end is aligned to 4 by the board script).
[ "$size" -le 944 ] || fail ".itcm_text holds $size bytes with its veneers, more than the 942 budgeted"
[ "$(wc -l <in-itcm.txt)" -ge "$patterns" ] ||
  fail "$(wc -l <in-itcm.txt) functions in ITCM for $patterns input-section lines"

# The direct calls out of the region the report names got the linker's veneers: __CALLEE_veneer.
# (qsort -> cmp_sample is a call through a pointer: no veneer.)
# lorgen counted at least the veneers the linker put in ITCM (one a called function).
[ "$(itcm_veneers fw-fast.elf)" -le "$callees" ] ||
  fail "$(itcm_veneers fw-fast.elf) veneers in ITCM, lorgen counted $callees"
arm-none-eabi-nm fw-fast.elf | awk '$3 ~ /^__.*_veneer$/ { print $3 }' >veneers.txt
for callee in strlen qsort; do
  grep -q "^  crossing     [^ ]* \[\.itcm_text\] -> $callee \[the rest\]" crossing.txt ||
    { cat crossing.txt >&2; fail "the report does not name the call to $callee out of the region"; }
  grep -qx "__${callee}_veneer" veneers.txt ||
    { cat veneers.txt >&2; fail "the fast link has no veneer for the call to $callee"; }
done

step "lorgen check: every member in .itcm_text, nothing else there"
n=$(awk '$1 == "region" { print substr($6, 11) }' fw.lor)
"$lorgen" check fw.lor fw-fast.elf arm/*.o "$libc" "$libgcc" >check.txt 2>&1 ||
  { cat check.txt >&2; fail "lorgen check failed on the fast link"; }
grep -q "^lorgen check: $n of $n region members lie in their region, 0 other functions lie in one$" check.txt ||
  { cat check.txt >&2; fail "lorgen check did not find the $n members in .itcm_text"; }
# A fragment that lost app_main's line and gained semihost_exit's (what a wildcard would take):
# app_main lies outside, semihost_exit is an intruder, and check exits 3.
mkdir -p wild
grep -v '(\.text\.app_main)' itcm.ld >wild/itcm.ld
cp order.ld wild/
echo '*(.text.semihost_exit)' >>wild/itcm.ld
link_fw wild fw-wild.elf
status=0
"$lorgen" check fw.lor fw-wild.elf arm/*.o "$libc" "$libgcc" >check-wild.txt 2>&1 || status=$?
[ "$status" -eq 3 ] || { cat check-wild.txt >&2; fail "check exited $status on the wildcard link, expected 3"; }
grep -q '^outside .* \.text  *app_main: a member of \.itcm_text$' check-wild.txt ||
  { cat check-wild.txt >&2; fail "check did not find app_main outside the region"; }
grep -q '^intruder .* \.itcm_text  *semihost_exit: in \.itcm_text but not its member' check-wild.txt ||
  { cat check-wild.txt >&2; fail "check did not find semihost_exit in the region"; }

step "read from the relinked image, the region is known to lie beyond a BL's reach"
"$lorgen" fw.prf fw-fast.elf arm/*.o "$libc" "$libgcc" --cache-size 4K --ways 2 --line-size 32 \
  --fast-region .itcm_text=1K,headroom=8% --fast-include again-far.ld -o again-far.lor 2>far.txt ||
  { cat far.txt >&2; fail "lorgen failed on the relinked image"; }
grep -q "^lorgen: note: --fast-region \.itcm_text: [0-9]* bytes kept for the linker's veneers to the [0-9]* function(s) its members call outside it, beyond a BL's reach$" far.txt ||
  { cat far.txt >&2; fail "lorgen did not find ITCM beyond a BL's reach of FLASH"; }

step "same inputs, byte-identical outputs"
"$lorgen" -q fw.prf fw.elf arm/*.o "$libc" "$libgcc" --cache-size 4K --ways 2 --line-size 32 \
  --fast-region .itcm_text=1K,headroom=8% --fast-include again.ld -o again.lor
cmp fw.lor again.lor && cmp itcm.ld again.ld

step "the .LOR records the region; lorgen script writes the same fragment"
grep -q "^region \.itcm_text size=1024 budget=$((942 - stubs)) bytes=[0-9]* functions=[0-9]* stubs=$stubs\$" fw.lor ||
  { grep -n region fw.lor >&2; fail "fw.lor does not record the region"; }
"$lorgen" script fw.lor fw.elf arm/*.o "$libc" "$libgcc" --fast-include .itcm_text=script.ld \
  -o script.lor 2>script.txt || { cat script.txt >&2; fail "lorgen script failed"; }
cmp itcm.ld script.ld || fail "lorgen script wrote another fragment"
cmp fw.lor script.lor || fail "lorgen script rewrote the .LOR differently"
# A function listed in the region and in a clique is refused at the second line, naming the first.
member=$(awk '$1 == "region" { r = 1; next } r && $1 == "fn" { print $2; exit }' fw.lor)
awk -v m="$member" '{ print } $1 == "clique" && !done { print "  fn " m; done = 1 }' fw.lor >twice.lor
first=$(awk '$1 == "region" { r = 1; next } r && $1 == "fn" { print NR; exit }' twice.lor)
again=$(awk '$1 == "clique" { print NR + 1; exit }' twice.lor)
expect 1 "lorgen: twice.lor:$again: error: function '$member' is listed twice (first on line $first, in region '.itcm_text'); give object= or source= to tell same-named statics apart" \
  "$lorgen" script twice.lor fw.elf arm/*.o "$libc" "$libgcc" --fast-include twice.ld

step "a region edited by hand: lorgen script counts its veneers again"
# Without app_main, which calls most of the functions outside, the region needs fewer veneers.
grep -v '^  fn app_main ' fw.lor >no-main.lor
"$lorgen" script no-main.lor fw.elf arm/*.o "$libc" "$libgcc" --fast-include no-main.ld \
  -o no-main-out.lor 2>no-main.txt || { cat no-main.txt >&2; fail "lorgen script failed"; }
now=$(sed -n "s/^lorgen: no-main\.lor:[0-9]*: note: region '\.itcm_text': its members call \([0-9]*\) function(s) outside it, whose veneers take \([0-9]*\) bytes, not the $stubs of stubs=$/\2/p" no-main.txt)
[ -n "$now" ] && [ "$now" -lt "$stubs" ] ||
  { cat no-main.txt >&2; fail "lorgen script did not count the edited region's veneers again"; }
grep -q " stubs=$now\$" no-main-out.lor || fail "the rewritten .LOR does not say stubs=$now"

step "a region too small for any executed code is told, with bytes"
"$lorgen" fw.prf fw.elf arm/*.o "$libc" "$libgcc" --fast-region .itcm_text=2 \
  --fast-include tiny.ld -o tiny.lor 2>tiny.txt || { cat tiny.txt >&2; fail "lorgen failed"; }
grep -q "^lorgen: warning: --fast-region .itcm_text holds nothing: its budget is 2 bytes, and the smallest executed unit that can move takes [0-9]* bytes" tiny.txt ||
  { cat tiny.txt >&2; fail "the empty region was not told"; }

step "the issue's 16 KiB .itcm_text: all the executed code that can move goes in"
# fast_region.ld's ITCM is 16 KiB (0x20010000 to 0x20014000), the size issue 30 gives.
[ $((ITCM_END - ITCM_START)) -eq 16384 ] || fail "the board's ITCM is not 16 KiB"
grep -q 'ITCM  *(rwx) : ORIGIN = 0x20010000, LENGTH = 16K$' "$board/fast_region.ld" ||
  fail "fast_region.ld's ITCM is not 0x20010000, 16K"
mkdir -p 16k
"$lorgen" fw.prf fw.elf arm/*.o "$libc" "$libgcc" --cache-size 4K --ways 2 --line-size 32 \
  --fast-region .itcm_text=16K --fast-include 16k/itcm.ld --ld-include 16k/order.ld \
  -o fw-16k.lor --report fw-16k.txt 2>err-16k.txt ||
  { cat err-16k.txt >&2; fail "lorgen failed with a 16 KiB region"; }
grep -q '^region \.itcm_text size=16384 budget=[0-9]* bytes=[0-9]* functions=[1-9][0-9]*\( stubs=[0-9]*\)\?$' fw-16k.lor ||
  { grep -n '^region' fw-16k.lor >&2; fail "fw-16k.lor does not record the 16 KiB region"; }
# Nothing executed is left to the cache order, and the report leaves nothing out for room.
left=$(clique_functions fw-16k.lor)
[ -z "$left" ] || fail "executed code left out of the 16 KiB region: $left"
if grep -q '^  left out  .*\(too big for the region\|no room\)' fw-16k.txt; then
  cat fw-16k.txt >&2
  fail "the report leaves code out of the 16 KiB region for its size"
fi
# The cache order holds no self cost then; the report must not say the profile has none.
grep -q '^  placement weight  *hits (no function of the cliques has a self cost: the fast regions took them)$' fw-16k.txt ||
  { grep 'placement weight' fw-16k.txt >&2; fail "the report misstates why placement weighs hits"; }
# All the executed code runs from ITCM, which the cache does not serve: no estimated miss is left.
grep -q '^  estimated misses, ELF -> new  *[0-9]* -> 0 ' fw-16k.txt &&
  grep -q '^    fast regions  *the fast regions. code, fetched outside the instruction$' fw-16k.txt ||
  { grep -A12 'estimated misses' fw-16k.txt >&2; fail "the estimate counts the region's fetches as the cache's"; }
# lorgen eval of that .LOR: every fetch is the region's, none the cache's.
"$lorgen" eval fw.prf fw.elf arm/*.o "$libc" "$libgcc" --lor fw-16k.lor >eval-16k.txt 2>&1 ||
  { cat eval-16k.txt >&2; fail "lorgen eval failed on the 16 KiB order"; }
grep -q '^fw-16k\.lor  *0  *0  *1\.000$' eval-16k.txt &&
  grep -q '^fast regions: their code, fetched outside the instruction cache' eval-16k.txt ||
  { cat eval-16k.txt >&2; fail "lorgen eval counts the region's fetches as the cache's"; }
# qsort, too big for the 1 KiB region, fits in this one.
grep -q '"\*lib\[cg\]_nano\.a:lib_a-qsort\.o"(\.text)' 16k/itcm.ld ||
  { cat 16k/itcm.ld >&2; fail "qsort is not in the 16 KiB region"; }
link_fw 16k fw-16k.elf
size=$(arm-none-eabi-size -A fw-16k.elf | awk '$1 == ".itcm_text" { print $2 }')
[ -n "$size" ] && [ "$size" -gt 1024 ] && [ "$size" -le 16384 ] ||
  fail ".itcm_text holds ${size:-no} bytes, expected 1025 to 16384"
n=$(awk '$1 == "region" { print substr($6, 11) }' fw-16k.lor)
"$lorgen" check fw-16k.lor fw-16k.elf arm/*.o "$libc" "$libgcc" >check-16k.txt 2>&1 ||
  { cat check-16k.txt >&2; fail "lorgen check failed on the 16 KiB link"; }
grep -q "^lorgen check: $n of $n region members lie in their region, 0 other functions lie in one$" check-16k.txt ||
  { cat check-16k.txt >&2; fail "lorgen check did not find the $n members in the 16 KiB .itcm_text"; }

step "a Cortex-M0+ build: its veneers are 16 bytes, and counted so"
# Armv6-M has no 32-bit branch to a register's reach: GNU ld's veneer goes through a register
# and takes 16 bytes; lorgen reads the core from the build attributes.
M0="-mcpu=cortex-m0plus -mthumb -mfloat-abi=soft"
libc_m0='' libgcc_m0=''
# shellcheck disable=SC2086
newlib_nano libc_m0 libgcc_m0 $M0
mkdir -p m0 m0-plain m0-fast
for f in $APP startup semihost syscalls; do
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $CFLAGS $M0 -DFW_ITCM -fdata-sections -c "$fw/$f.c" -o "m0/$f.o"
done
: >m0-plain/itcm.ld
: >m0-plain/order.ld
LINK_ARCH=$M0 OBJ_DIR=m0 link_fw m0-plain fw-m0.elf
"$lorgen" fw.prf fw-m0.elf m0/*.o "$libc_m0" "$libgcc_m0" --fast-region .itcm_text=1K,headroom=8% \
  --fast-include m0-fast/itcm.ld --ld-include m0-fast/order.ld -o fw-m0.lor 2>m0.txt ||
  { cat m0.txt >&2; fail "lorgen failed on the Cortex-M0+ build"; }
m0_stubs=$(sed -n 's/^lorgen: note: --fast-region \.itcm_text: \([0-9]*\) bytes kept for the linker.s veneers to the \([0-9]*\) function(s).*/\1 \2/p' m0.txt)
[ -n "$m0_stubs" ] && [ "${m0_stubs% *}" -eq $((16 * ${m0_stubs#* })) ] ||
  { cat m0.txt >&2; fail "lorgen did not keep 16 bytes a veneer on the Cortex-M0+"; }
LINK_ARCH=$M0 OBJ_DIR=m0 link_fw m0-fast fw-m0-fast.elf
[ "$(itcm_veneers fw-m0-fast.elf)" -le "${m0_stubs#* }" ] ||
  fail "$(itcm_veneers fw-m0-fast.elf) veneers in the Cortex-M0+ ITCM, lorgen counted ${m0_stubs#* }"
arm-none-eabi-nm -S fw-m0-fast.elf | awk '$4 ~ /_veneer$/ && $2 != "00000010" { bad = 1 } END { exit bad }' ||
  fail "a Cortex-M0+ veneer is not 16 bytes"
size=$(arm-none-eabi-size -A fw-m0-fast.elf | awk '$1 == ".itcm_text" { print $2 }')
[ -n "$size" ] && [ "$size" -le 944 ] ||
  fail "the Cortex-M0+ .itcm_text holds ${size:-no} bytes with its veneers, more than the 942 budgeted"

step "run the plain and the fast images on qemu's MPS2 AN500 (Cortex-M7)"
if ! have qemu-system-arm || ! qemu-system-arm -M help | grep -q '^mps2-an500 '; then
  echo "SKIP: qemu-system-arm with the mps2-an500 machine is not installed: the images were linked and checked, not run" >&2
  exit 77
fi
for elf in fw.elf fw-fast.elf fw-16k.elf; do
  status=0
  timeout 30 qemu-system-arm -M mps2-an500 -nographic -monitor none -serial none \
    -chardev "file,id=semihosting,path=$elf.out" \
    -semihosting-config enable=on,target=native,chardev=semihosting -kernel "$elf" \
    >"$elf.qemu" 2>&1 || status=$?
  [ "$status" -eq 0 ] || { cat "$elf.qemu" >&2; fail "$elf exited $status under qemu"; }
  cmp -s base.out "$elf.out" || fail "$elf printed '$(cat "$elf.out")', the host build '$(cat base.out)'"
done
echo "fast_region: ok" >&2
