#!/usr/bin/env bash
# GCC LTO objects. A slim one (gcc -flto) holds GIMPLE bytecode and no function: given with the
# program linked from it, the order comes from the program alone, as with no objects, with one
# warning naming them, and GNU ld's -T script orders the sections the LTO link makes (linked
# with -flto -ffunction-sections); given alone, it is refused. A fat one (-ffat-lto-objects),
# linked without -flto, is an object like any other. clang -flto writes LLVM bitcode, no ELF,
# and is refused as that.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work"
cd "$work"
args=(-r 5 -n 200 -s 7)
lto_flags="-std=c11 -O2 -ffunction-sections -flto"
what="GCC LTO bytecode (built with -flto, without -ffat-lto-objects)"

step "build and profile the demo with -flto"
make -s -C "$src/examples/demo" OUT="$work/slim" DEMO_CFLAGS="$lto_flags" \
  LDFLAGS="-flto -ffunction-sections" RUN_ARGS="${args[*]}" all run >/dev/null
cd slim
./demo "${args[@]}" >before.out

step "slim objects with the linked program: the program's order, one warning"
expect 0 "$what" -- trace.prf demo normal/*.o -o with.lor --ld-script with.ld
[ "$(grep -c "$what" err.txt)" -eq 1 ] || fail "expected one warning about the LTO objects"
grep -qF "normal/buf.o and 10 more" err.txt || fail "the warning does not name the objects"
"$lorgen" -q trace.prf demo -o without.lor --ld-script without.ld
cmp -s with.ld without.ld || fail "the LTO objects changed the linker script"
diff <(grep -v '^input elf=normal/' with.lor) without.lor >/dev/null ||
  fail "the LTO objects changed the .LOR beyond its input lines"
[ "$(lor_functions with.lor | wc -l)" -ge 10 ] || fail "with.lor orders almost nothing"

step "relink with -flto -ffunction-sections and the script: the order holds"
make -s -C "$src/examples/demo" OUT="$work/slim" DEMO_CFLAGS="$lto_flags" \
  LDFLAGS="-flto -ffunction-sections" relink LDSCRIPT="$work/slim/with.ld" >/dev/null
./demo-ordered "${args[@]}" >after.out
cmp -s before.out after.out || fail "the relinked LTO demo prints differently"
check_order demo-ordered nm with.lor
status=0
"$lorgen" check with.lor demo-ordered normal/*.o >check.txt 2>check.err || status=$?
[ "$status" -eq 0 ] || { cat check.txt check.err >&2; fail "check: exit $status, expected 0"; }
grep -qF "did not, 0 left" check.txt || fail "check: not every function landed"

step "relink with -ffunction-sections only when compiling: one .text, nothing moves"
gcc -O2 -flto normal/*.o -Wl,-T,with.ld -o demo-one-text
status=0
"$lorgen" check with.lor demo-one-text >check.txt 2>check.err || status=$?
[ "$status" -eq 3 ] || { cat check.txt check.err >&2; fail "check: exit $status, expected 3"; }

if have ld.gold; then
  step "gold with -flto -ffunction-sections: the order holds"
  "$lorgen" -q trace.prf demo normal/*.o -o gold.lor --gold gold.txt
  gcc -O2 -flto -ffunction-sections -fuse-ld=gold normal/*.o \
    -Wl,--section-ordering-file,gold.txt -o demo-gold
  ./demo-gold "${args[@]}" >gold.out
  cmp -s before.out gold.out || fail "the demo relinked by gold prints differently"
  check_order demo-gold nm gold.lor
fi

step "slim objects alone: refused, nothing written"
expect 1 "$what" -- trace.prf normal/*.o -o alone.lor
grep -qF "Give the linked program" err.txt || fail "the refusal does not say what to give"
[ ! -e alone.lor ] || fail "alone.lor written"
expect 1 "$what" -- script with.lor normal/*.o --ld-script alone.ld
[ ! -e alone.ld ] || fail "alone.ld written"
cd ..

step "fat objects linked without -flto: read as any objects"
make -s -C "$src/examples/demo" OUT="$work/fat" DEMO_CFLAGS="$lto_flags -ffat-lto-objects" \
  LDFLAGS="-fno-lto" "$work/fat/demo" >/dev/null
cd fat
./demo "${args[@]}" >before.out
"$lorgen" ../slim/trace.prf demo normal/*.o -o fat.lor --ld-script fat.ld 2>err.txt ||
  { cat err.txt >&2; fail "fat objects: lorgen failed"; }
! grep -qF "LTO" err.txt || { cat err.txt >&2; fail "fat objects taken for LTO bytecode"; }
grep -q ' object=normal/lex\.o' fat.lor || fail "fat objects: no object= from them in fat.lor"
make -s -C "$src/examples/demo" OUT="$work/fat" DEMO_CFLAGS="$lto_flags -ffat-lto-objects" \
  LDFLAGS="-fno-lto" relink LDSCRIPT="$work/fat/fat.ld" >/dev/null
./demo-ordered "${args[@]}" >after.out
cmp -s before.out after.out || fail "the relinked fat demo prints differently"
check_order demo-ordered nm fat.lor
cd ..

if have clang; then
  step "clang -flto objects (LLVM bitcode): named for what they are"
  clang -O2 -flto -c "$src/examples/demo/lex.c" -o lex-clang.o
  expect 1 "LLVM bitcode (clang -flto): no machine code yet" -- slim/trace.prf slim/demo \
    lex-clang.o -o clang.lor
  [ ! -e clang.lor ] || fail "clang.lor written"
else
  echo "   skipping clang -flto: clang missing" >&2
fi
echo "lto: ok" >&2
