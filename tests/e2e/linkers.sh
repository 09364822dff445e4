#!/usr/bin/env bash
# End to end: every linker output lorgen writes takes effect, proven by linking. A small program
# with same-named statics, GCC clones (.constprop, .isra, .part, .cold), hot/unlikely/startup
# section prefixes and C++ mangled names is profiled with callgrind, ordered, and relinked:
#   host: GNU ld (-T INSERT script), gold (--section-ordering-file), lld (--symbol-ordering-file)
#   SH-4, ARM, RISC-V: GNU ld with a board script that INCLUDEs the fragment, entry code kept first
#   SH-4 with -fleading-underscore: _foo in .text.foo, sections inferred from the linked ELF only
# Each link is read back by `lorgen check` (exit 0) and by nm (check_order). `lorgen check` must
# also catch an order that did not take effect (exit 3) and say why.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
lk=$src/tests/e2e/statics_and_clones
rm -rf "$work" && mkdir -p "$work" && cd "$work"
have valgrind || { echo "skipping: valgrind is not installed" >&2; exit 77; }
CFLAGS="-O2 -ffunction-sections -I$lk"
C_SOURCES="ring filt run"

step "host build with clones, prefixes, statics and C++; callgrind profile"
mkdir -p host
for f in $C_SOURCES host_main; do gcc $CFLAGS -c "$lk/$f.c" -o "host/$f.o"; done
g++ $CFLAGS -c "$lk/shapes.cc" -o host/shapes.o
g++ host/*.o -o lk-host
./lk-host >base.out
valgrind --tool=callgrind --demangle=no --dump-instr=yes --callgrind-out-file=lk.cg ./lk-host \
  >/dev/null 2>&1
for sym in mix.constprop.0 weigh.isra.0 lookup.part.0 filt_step.cold _ZN6shapes4growERKNS_3BoxEj; do
  nm lk-host | grep -q " $sym\$" || fail "the host build has no $sym: the test program lost a quirk"
done

step "lorgen writes every linker output at once"
"$lorgen" lk.cg lk-host host/*.o -o lk.lor --ld-script lk.ld --ld-include lk-order.ld \
  --section-ordering lk.ord --gold lk.gold --lld lk.lld 2>lorgen.err
grep -q 'section=.text.hot.filt_hot' lk.lor || fail "the hot function's real section is not named"
grep -q 'section=.text.startup.main' lk.lor || fail "main's real section is not named"
grep -q '^_ZN6shapes4growERKNS_3BoxEj$' lk.lld || fail "lld list lacks the mangled name"
grep -q '^.text._ZN6shapes4growERKNS_3BoxEj$' lk.gold || fail "gold list lacks the mangled section"
grep -q '^\.text :$' lk.ord || fail "the section-ordering fragment does not map into .text"
grep -q '\*filt.o(.text.scale)' lk.ld || fail "same-named statics are not qualified by object"
grep -q "lld orders by symbol name: the static functions called 'scale' move together" lorgen.err ||
  fail "no warning that lld moves same-named statics together"

step "lorgen script writes the same files from the .LOR"
"$lorgen" -q script lk.lor lk-host host/*.o --ld-script s.ld --ld-include s-order.ld \
  --section-ordering s.ord --gold s.gold --lld s.lld
for f in ld ord gold lld; do cmp "lk.$f" "s.$f"; done
cmp lk-order.ld s-order.ld

step "the unrelinked program is not in the order: lorgen check says so (exit 3)"
set +e
"$lorgen" check lk.lor lk-host host/*.o >check-base.txt
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "lorgen check exited $rc on the unrelinked program, expected 3"
grep -q '^elsewhere ' check-base.txt || fail "lorgen check gave no 'elsewhere' row"

relink_and_check() { # NAME LINK-FLAGS...
  local name=$1
  shift
  g++ host/*.o "$@" -o "lk-$name" 2>"$name.err"
  [ ! -s "$name.err" ] || { cat "$name.err" >&2; fail "$name: the linker warned"; }
  ./"lk-$name" >"$name.out"
  cmp -s base.out "$name.out" || fail "$name: the relinked program prints a different result"
  "$lorgen" check lk.lor "lk-$name" host/*.o >"check-$name.txt" ||
    { cat "check-$name.txt" >&2; fail "$name: lorgen check says the order did not take effect"; }
  # The other static scale() sits elsewhere (GNU ld) or moves along (gold, lld): nm cannot tell
  # the two apart, lorgen check (above) does.
  check_order "lk-$name" nm lk.lor scale
}

step "GNU ld $(ld --version | head -1 | awk '{print $NF}'): -T INSERT script"
relink_and_check ld -Wl,-T,lk.ld
if have ld.gold; then
  step "gold: --section-ordering-file"
  relink_and_check gold -fuse-ld=gold -Wl,--section-ordering-file,lk.gold
fi
if have ld.lld; then
  step "lld: --symbol-ordering-file"
  relink_and_check lld -fuse-ld=lld -Wl,--symbol-ordering-file,lk.lld
fi
# binutils 2.43 added --section-ordering-file to GNU ld; this machine may have an older one.
if ld --help | grep -q -- '--section-ordering-file'; then
  step "GNU ld: --section-ordering-file"
  relink_and_check ord -Wl,--section-ordering-file,lk.ord
else
  echo "   GNU ld $(ld --version | head -1 | awk '{print $NF}') has no --section-ordering-file: lk.ord not linked" >&2
fi

step "clone numbers from another build are rebound; a wrong section is caught by check"
sed 's/mix\.constprop\.0/mix.constprop.7/g' lk.lor >renamed.lor
"$lorgen" script renamed.lor lk-host host/*.o --ld-script renamed.ld 2>renamed.err
grep -q "'mix.constprop.7' is now 'mix.constprop.0'" renamed.err || fail "no note on the renamed clone"
cmp lk.ld renamed.ld || fail "the renamed clone did not give the same script"
# Sections inferred from the linked ELF alone keep the .LOR's stale name: the pattern misses.
sed 's/section=\.text\.hot\.filt_hot/section=.text.filt_hot/' lk.lor >stale.lor
"$lorgen" -q script stale.lor lk-host --ld-script stale.ld
g++ host/*.o -Wl,-T,stale.ld -o lk-stale
set +e
"$lorgen" check stale.lor lk-stale host/*.o >check-stale.txt
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "lorgen check exited $rc for a pattern that matched nothing, expected 3"
grep -q '^no match .* filt_hot: pattern matched nothing' check-stale.txt ||
  { cat check-stale.txt >&2; fail "lorgen check did not say the pattern matched nothing"; }

step "same inputs, byte-identical outputs"
"$lorgen" -q lk.cg lk-host host/*.o -o again.lor --ld-script again.ld --gold again.gold --lld again.lld
cmp lk.lor again.lor && cmp lk.ld again.ld && cmp lk.gold again.gold && cmp lk.lld again.lld

board_check() { # TRIPLE DIR LOR ENTRY
  local triple=$1 dir=$2 lor=$3 entry=$4
  "$lorgen" check "$lor" "$dir/lk.elf" >"$dir/check.txt" ||
    { cat "$dir/check.txt" >&2; fail "$triple: lorgen check says the order did not take effect"; }
  check_order "$dir/lk.elf" "$triple-nm" "$lor" "$entry"
  local at
  at=$("$triple-nm" "$dir/lk.elf" | awk -v e="$entry" '$3 == e { print $1 }')
  [ -n "$at" ] && [ "$((16#$at))" -eq $((0x10000)) ] || fail "$triple: $entry moved to 0x$at"
}

for triple in sh4-linux-gnu arm-none-eabi riscv64-linux-gnu; do
  if ! have "$triple-gcc"; then
    echo "   skipping $triple: $triple-gcc is not installed" >&2
    continue
  fi
  step "$triple: board script with INCLUDE; _start listed first in the .LOR stays first"
  flags=""
  case $triple in
    arm-none-eabi) flags="-mthumb -mcpu=cortex-m4" ;;
    riscv64-linux-gnu) flags="-mcmodel=medany" ;;
  esac
  mkdir -p "$triple"
  for f in $C_SOURCES shapes_c start; do
    "$triple-gcc" $CFLAGS $flags -ffreestanding -fno-builtin -c "$lk/$f.c" -o "$triple/$f.o"
  done
  "$lorgen" -q lk.cg "$triple"/*.o -o "$triple/lk.lor"
  # Ask for _start first, as a trace that saw the reset path would: lorgen must not move it.
  awk '{ print } /^clique 1 / { print "  fn _start" }' "$triple/lk.lor" >"$triple/pinned.lor"
  "$lorgen" script "$triple/pinned.lor" "$triple"/*.o --ld-include "$triple/order.ld" \
    2>"$triple/script.err"
  grep -q "'_start' is entry code" "$triple/script.err" || fail "$triple: no note on pinned _start"
  ! grep -q '_start' "$triple/order.ld" || fail "$triple: the fragment names _start"
  "$triple-gcc" $flags -nostdlib -nostartfiles -static -L"$triple" -T "$lk/board.ld" \
    -Wl,--build-id=none -Wl,--no-warn-rwx-segments "$triple"/*.o -lgcc -o "$triple/lk.elf"
  board_check "$triple" "$triple" "$triple/pinned.lor" _start
  grep -q '^pinned .* _start: entry code' "$triple/check.txt" || fail "$triple: _start not reported pinned"
done

if have sh4-linux-gnu-gcc; then
  step "sh4-linux-gnu -fleading-underscore: _foo lives in .text.foo, sections inferred"
  d=sh4-us
  mkdir -p $d
  for f in $C_SOURCES shapes_c start; do
    sh4-linux-gnu-gcc $CFLAGS -fleading-underscore -ffreestanding -fno-builtin -c "$lk/$f.c" -o "$d/$f.o"
  done
  # First link: any order, to have a linked ELF; then order from it alone (no objects).
  : >"$d/order.ld"
  sh4-linux-gnu-gcc -nostdlib -nostartfiles -static -L$d -T "$lk/board.ld" -Wl,-e,__start \
    -Wl,--build-id=none -Wl,--no-warn-rwx-segments $d/*.o -lgcc -o $d/first.elf
  nm $d/first.elf | grep -q ' _ring_push$' || fail "sh4: -fleading-underscore gave no _ring_push"
  "$lorgen" -q lk.cg $d/first.elf -o $d/lk.lor --ld-include $d/order.ld
  grep -q '\.text\.ring_push' $d/order.ld || fail "sh4: the fragment does not name .text.ring_push"
  sh4-linux-gnu-gcc -nostdlib -nostartfiles -static -L$d -T "$lk/board.ld" -Wl,-e,__start \
    -Wl,--build-id=none -Wl,--no-warn-rwx-segments $d/*.o -lgcc -o $d/lk.elf
  # Same-named statics move together without objects: leave _scale out of the nm check.
  "$lorgen" check $d/lk.lor $d/lk.elf >$d/check.txt ||
    { cat $d/check.txt >&2; fail "sh4 leading underscore: the order did not take effect"; }
  check_order $d/lk.elf sh4-linux-gnu-nm $d/lk.lor _scale
fi
echo "linkers: ok" >&2
