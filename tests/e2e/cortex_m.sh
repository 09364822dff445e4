#!/usr/bin/env bash
# End to end: a Cortex-M7 firmware linked with newlib (nano) through its own MEMORY script, with
# lorgen's --ld-include fragment INCLUDEd inside .text. The profile comes from a host build of
# the same sources with the example tracer (host_libc.c stands in for the C library calls, so
# the tracer sees them under newlib's names). lorgen gets the arm objects, libc_nano.a and
# libgcc.a; the hot newlib members (memcpy, memset, strlen, qsort, and snprintf's member, a fixed
# group) must land in the .LOR's order beside their callers, the vector table and reset handler
# must stay at the start of FLASH, and lorgen check must pass, also for a link with -g (which
# takes the members from newlib's libg_nano.a copy). qemu-system-arm then runs the original and
# the relinked images with semihosting and their output must be the host build's; without qemu
# that step alone is skipped (exit 77 after every other check passed).
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
fw=$src/tests/e2e/cortex_m
ARCH="-mcpu=cortex-m7 -mthumb -mfloat-abi=soft"
libc='' libgcc='' # set by newlib_nano
# shellcheck disable=SC2086 # ARCH is words on purpose
newlib_nano libc libgcc $ARCH
rm -rf "$work" && mkdir -p "$work" && cd "$work"
# -fno-builtin: every C library call in the source stays a call on both machines, so the host's
# profile counts the calls the firmware makes.
CFLAGS="-O2 -ffunction-sections -fno-builtin -fno-tree-loop-distribute-patterns -I$fw"
APP="app filter frames"

step "profile on the host"
# shellcheck disable=SC2086 # APP is words on purpose
build_and_trace "$fw" fw-host fw.prf "$CFLAGS" $APP host_board host_libc
cmp -s base.out prof.out || fail "the instrumented and plain host builds print different results"
grep -q '^frames=600 ' base.out || fail "unexpected host output: $(cat base.out)"

# link_fw DIR ELF [FLAGS...]: links the arm objects from DIR, where cortex_m.ld finds the
# order.ld it INCLUDEs (GNU ld looks in the current directory first).
link_fw() {
  local dir=$1 elf=$2
  shift 2
  # shellcheck disable=SC2086
  (cd "$dir" && arm-none-eabi-gcc $ARCH --specs=nano.specs -nostartfiles -T "$fw/cortex_m.ld" -L. \
    -Wl,--gc-sections -Wl,--build-id=none "$@" ../arm/*.o -o "../$elf")
}

# symbol_address ELF NAME: the symbol's address in hex (no 0x, Thumb bit as nm shows it: clear).
symbol_address() {
  arm-none-eabi-nm "$1" | awk -v n="$2" '$3 == n { print $1; exit }'
}

# The start of FLASH holds the vector table, then the reset handler, then lorgen's order (or
# the rest of the code); the reset vector and the ELF entry point at the handler.
check_flash_start() {
  local elf=$1 first=$2
  [ "$(symbol_address "$elf" vectors)" = 00000000 ] || fail "$elf: the vector table left FLASH's start"
  local reset
  reset=$(symbol_address "$elf" Reset_Handler)
  [ "$reset" = 00000040 ] || fail "$elf: Reset_Handler is at 0x$reset, not after the vector table"
  local vector
  vector=$(arm-none-eabi-objdump -s -j .text --start-address=4 --stop-address=8 "$elf" |
    awk '$1 == "0004" { print $2 }')
  [ "$vector" = "41000000" ] || fail "$elf: the reset vector holds $vector, not Reset_Handler"
  arm-none-eabi-readelf -h "$elf" | grep -q 'Entry point address: *0x41$' ||
    fail "$elf: the entry point is not Reset_Handler"
  if [ -n "$first" ]; then
    local next
    next=$(arm-none-eabi-nm -n "$elf" | awk '$2 ~ /^[tT]$/ && seen { print $3; exit }
                                          $3 == "Reset_Handler" { seen = 1 }')
    [ "$next" = "$first" ] || fail "$elf: $next, not the order's first function $first, follows Reset_Handler"
  fi
}

step "arm-none-eabi build with newlib nano, MEMORY regions and an empty order"
mkdir -p arm orig
for f in $APP startup semihost syscalls; do
  # shellcheck disable=SC2086
  arm-none-eabi-gcc $CFLAGS $ARCH -fdata-sections -c "$fw/$f.c" -o "arm/$f.o"
done
: >orig/order.ld
link_fw orig fw.elf -Wl,-Map,fw.map
grep -q 'libc_nano\.a(lib_a-memcpy\.o)' orig/fw.map || fail "the link did not take memcpy from libc_nano.a"
check_flash_start fw.elf ""

step "lorgen with the objects, libc_nano.a and libgcc.a"
"$lorgen" fw.prf fw.elf arm/*.o "$libc" "$libgcc" --cache-size 4K --ways 2 --line-size 32 \
  -o fw.lor --ld-include order.ld --report fw.txt 2>err.txt || { cat err.txt >&2; fail "lorgen failed"; }
# clique_of NAME: the clique the .LOR lists NAME in (empty when it is no clique's).
clique_of() {
  awk -v n="$1" '$1 == "cold" { exit } $1 == "clique" { c = $2 } $1 == "fn" && $2 == n { print c; exit }' fw.lor
}
for f in memcpy memset strlen qsort; do
  grep -q "^  fn $f .* section=.text object=[^ ]*libc_nano\.a(lib_a-$f\.o)" fw.lor ||
    { grep -n "$f" fw.lor >&2; fail "$f is not ordered as libc_nano.a's member"; }
done
# snprintf's member also holds _snprintf_r: a fixed group of two, under whichever alias names it.
group=$(awk '$1 == "cold" { exit } $1 == "fn" && /object=[^ ]*\(lib_a-snprintf\.o\)/' fw.lor)
[ "$(printf '%s\n' "$group" | grep -c ' group=1 ')" -eq 2 ] ||
  { grep -n snprintf fw.lor >&2; fail "snprintf's member is not ordered as a fixed group of two"; }
snprintf=$(printf '%s\n' "$group" | awk '$4 != "hits=0" { print $2 }')
grep -q "^  group 1  clique [0-9]*  2 functions .*libc_nano\.a(lib_a-snprintf\.o)(\.text)$" fw.txt ||
  fail "the report does not list snprintf's member as a fixed group"
while read -r caller callee; do
  clique=$(clique_of "$callee")
  if [ -z "$clique" ] || [ "$(clique_of "$caller")" != "$clique" ]; then
    fail "$callee is not in the clique of its caller $caller"
  fi
done <<EOF
filter_median memcpy
filter_median qsort
qsort cmp_sample
frame_build strlen
frame_build memset
frame_build $snprintf
EOF
grep -qx '"\*lib\[cg\]_nano\.a:lib_a-memcpy\.o"(\.text)' order.ld ||
  { cat order.ld >&2; fail "memcpy's member is not named for libc_nano.a and its libg copy"; }
grep -q '^\*(\.text)$' order.ld && fail "order.ld names every object's plain .text"

step "link with the order: the ELF holds the .LOR's order and lorgen check passes"
mkdir -p ord && cp order.ld ord/
link_fw ord fw-ordered.elf
check_order fw-ordered.elf arm-none-eabi-nm fw.lor
n=$(lor_functions fw.lor | wc -l)
"$lorgen" check fw.lor fw-ordered.elf arm/*.o "$libc" "$libgcc" >check.txt 2>&1 ||
  { grep -v '^in order' check.txt >&2; fail "lorgen check"; }
grep -q "^lorgen check: $n of $n functions landed in the asked order" check.txt ||
  { tail -1 check.txt >&2; fail "lorgen check did not find all $n functions in order"; }
check_flash_start fw-ordered.elf "$(lor_functions fw.lor | head -1)"
status=0
"$lorgen" check fw.lor fw.elf arm/*.o "$libc" "$libgcc" >check-orig.txt 2>&1 || status=$?
[ "$status" -eq 3 ] || fail "the original link already had the .LOR's order (check exited $status)"

step "-g takes the members from newlib's libg_nano.a: the same order holds"
mkdir -p debug && cp order.ld debug/
link_fw debug fw-g.elf -g -Wl,-Map,fw-g.map
grep -q 'libg_nano\.a(lib_a-memcpy\.o)' debug/fw-g.map || fail "-g did not take memcpy from libg_nano.a"
check_order fw-g.elf arm-none-eabi-nm fw.lor
"$lorgen" check fw.lor fw-g.elf arm/*.o "$libc" "$libgcc" >check-g.txt 2>&1 ||
  { grep -v '^in order' check-g.txt >&2; fail "lorgen check on the -g link"; }

step "same inputs, byte-identical outputs; lorgen script writes the same fragment"
"$lorgen" -q fw.prf fw.elf arm/*.o "$libc" "$libgcc" --cache-size 4K --ways 2 --line-size 32 \
  -o again.lor --ld-include again.ld
cmp fw.lor again.lor && cmp order.ld again.ld
"$lorgen" script fw.lor fw.elf arm/*.o "$libc" "$libgcc" --ld-include script.ld 2>/dev/null
cmp order.ld script.ld

step "run the original and the relinked images on qemu's MPS2 AN500 (Cortex-M7)"
if ! have qemu-system-arm || ! qemu-system-arm -M help | grep -q '^mps2-an500 '; then
  echo "SKIP: qemu-system-arm with the mps2-an500 machine is not installed: the images were linked and checked, not run" >&2
  exit 77
fi
for elf in fw.elf fw-ordered.elf fw-g.elf; do
  status=0
  timeout 30 qemu-system-arm -M mps2-an500 -nographic -monitor none -serial none \
    -chardev "file,id=semihosting,path=$elf.out" \
    -semihosting-config enable=on,target=native,chardev=semihosting -kernel "$elf" \
    >"$elf.qemu" 2>&1 || status=$?
  [ "$status" -eq 0 ] || { cat "$elf.qemu" >&2; fail "$elf exited $status under qemu"; }
  cmp -s base.out "$elf.out" || fail "$elf printed '$(cat "$elf.out")', the host build '$(cat base.out)'"
done
echo "cortex_m: ok" >&2
