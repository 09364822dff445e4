#!/usr/bin/env bash
# End to end: the build integrations really build a small project in profile order.
#   cmake/LorgenLinkOrder.cmake  lorgen_link_order(TARGET ... PROFILE ...) with GNU ld and lld
#   examples/make/lorgen.mk      the Make snippet (examples/make/Makefile) with GNU ld and gold
# Each build is read back with `lorgen check`; touching the profile or a source file must
# remake the order and relink, and a second build with nothing changed must do neither.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
lk=$src/tests/e2e/statics_and_clones
rm -rf "$work" && mkdir -p "$work" && cd "$work"
have valgrind || { echo "skipping: valgrind is not installed" >&2; exit 77; }
have cmake || { echo "skipping: cmake is not installed" >&2; exit 77; }

step "profile the project once"
mkdir -p prof proj
cp "$lk"/*.c "$lk"/*.cc "$lk"/*.h proj/
for f in ring filt run host_main; do gcc -O2 -ffunction-sections -c "proj/$f.c" -o "prof/$f.o"; done
g++ -O2 -ffunction-sections -c proj/shapes.cc -o prof/shapes.o
g++ prof/*.o -o prof/lk
./prof/lk >base.out
valgrind --tool=callgrind --demangle=no --callgrind-out-file=lk.cg ./prof/lk >/dev/null 2>&1

cat >proj/CMakeLists.txt <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(lk C CXX)
list(APPEND CMAKE_MODULE_PATH "$src/cmake")
include(LorgenLinkOrder)
add_executable(lk ring.c filt.c run.c host_main.c shapes.cc)
target_compile_options(lk PRIVATE -O2 -ffunction-sections)
lorgen_link_order(TARGET lk PROFILE ../lk.cg LINKER \${LK_LINKER})
CMAKE

for linker in bfd lld; do
  [ "$linker" != lld ] || have ld.lld || continue
  step "CMake, lorgen_link_order with $linker"
  b=cmake-$linker
  cmake -S proj -B $b -DLK_LINKER=$linker -DLORGEN_EXECUTABLE="$lorgen" >/dev/null
  cmake --build $b >$b.log 2>&1 || { cat $b.log >&2; fail "$b: the build failed"; }
  grep -q 'lorgen: link order of lk' $b.log || fail "$b: lorgen did not run"
  ./$b/lk >$b.out && cmp -s base.out $b.out || fail "$b: the program prints a different result"
  "$lorgen" check $b/lk.lor $b/lk >$b.check || { cat $b.check >&2; fail "$b: order not in effect"; }
  cmake --build $b >$b.again 2>&1
  ! grep -q 'lorgen: link order\|Linking' $b.again || fail "$b: rebuilt with nothing changed"
  touch lk.cg
  cmake --build $b >$b.profile 2>&1
  grep -q 'lorgen: link order of lk' $b.profile || fail "$b: a new profile did not remake the order"
  grep -q 'Linking' $b.profile || fail "$b: a new order did not relink"
  touch proj/filt.c
  cmake --build $b >$b.source 2>&1
  grep -q 'lorgen: link order of lk' $b.source || fail "$b: a changed object did not remake the order"
  "$lorgen" check $b/lk.lor $b/lk >$b.check || { cat $b.check >&2; fail "$b: order not in effect"; }
done

for linker in bfd gold; do
  [ "$linker" != gold ] || have ld.gold || continue
  step "Make, examples/make/lorgen.mk with $linker"
  d=make-$linker
  mkdir -p $d
  mk=(make --no-print-directory -C $d -f "$src/examples/make/Makefile" SRC="$work/proj"
      PROFILE="$work/lk.cg" LORGEN="$lorgen" LORGEN_LINKER=$linker)
  "${mk[@]}" >$d.log 2>&1 || { cat $d.log >&2; fail "$d: the build failed"; }
  grep -q "lorgen -q" $d.log || fail "$d: lorgen did not run"
  (cd $d && ./lk) >$d.out && cmp -s base.out $d.out || fail "$d: the program prints a different result"
  "$lorgen" check $d/lorgen.lor $d/lk $d/*.o >$d.check ||
    { cat $d.check >&2; fail "$d: order not in effect"; }
  "${mk[@]}" >$d.again 2>&1
  grep -q "is up to date" $d.again || fail "$d: rebuilt with nothing changed"
  touch lk.cg
  "${mk[@]}" >$d.profile 2>&1
  grep -q "lorgen -q" $d.profile || fail "$d: a new profile did not remake the order"
  touch proj/ring.c
  "${mk[@]}" >$d.source 2>&1
  grep -q "ring.o" $d.source && grep -q "lorgen -q" $d.source ||
    fail "$d: a changed object did not remake the order"
done
echo "build: ok" >&2
