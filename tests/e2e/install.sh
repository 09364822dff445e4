#!/usr/bin/env bash
# End to end: the installed tree is usable by a project that has nothing but its prefix.
# `cmake --install` puts lorgen, lorgen(1) and the CMake package (lorgenConfig.cmake, its version
# file and LorgenLinkOrder.cmake) under a scratch prefix; a small consumer project then finds it
# with find_package(lorgen) alone (no module path, no LORGEN_EXECUTABLE, lorgen not on PATH),
# links in the order the installed lorgen writes, and `lorgen check` reads the order back. A
# version the package does not provide is refused at configure time. The source tree configures
# with -DLORGEN_TESTS=OFF where pkg-config cannot find cmocka, and with the tests on it says why
# it stops.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
build=$(dirname "$lorgen")
rm -rf "$work" && mkdir -p "$work" && cd "$work"
have cmake || { echo "skipping: cmake is not installed" >&2; exit 77; }

step "cmake --install into a scratch prefix"
cmake --install "$build" --prefix "$work/prefix" >install.log 2>&1 ||
  { cat install.log >&2; fail "cmake --install failed"; }
pkg=$(find prefix -name lorgenConfig.cmake)
[ -n "$pkg" ] || fail "no lorgenConfig.cmake was installed"
pkg=$(dirname "$pkg")
for f in bin/lorgen share/man/man1/lorgen.1; do
  [ -e "prefix/$f" ] || fail "prefix/$f was not installed"
done
for f in lorgenConfigVersion.cmake LorgenLinkOrder.cmake; do
  [ -e "$pkg/$f" ] || fail "$pkg/$f was not installed beside lorgenConfig.cmake"
done

step "a consumer project finds the package and links in its order"
mkdir app
cat >app/app.c <<'C'
#include <stdio.h>
__attribute__((noinline)) unsigned cold_report(unsigned x) { return x * 7u + 1u; }
__attribute__((noinline)) unsigned spacer(unsigned x) { return x ^ 0x5au; }
__attribute__((noinline)) unsigned hot_step(unsigned x) { return x * 2654435761u + 1u; }
int main(int argc, char **argv)
{
    (void)argv;
    unsigned v = (unsigned)argc;
    for (unsigned i = 0; i < 1000; i++)
        v = hot_step(v);
    printf("%u\n", argc > 5 ? cold_report(spacer(v)) : v);
    return 0;
}
C
# A callgrind profile by hand: main calls hot_step a thousand times.
cat >app/app.callgrind <<'CG'
# callgrind format
version: 1
creator: hand
events: Ir
fn=main
1 4000
cfn=hot_step
calls=1000 1
1 6000
fn=hot_step
1 6000
CG
cat >app/CMakeLists.txt <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(app C)
find_package(lorgen 0.1 REQUIRED)
add_executable(app app.c)
target_compile_options(app PRIVATE -O2 -ffunction-sections)
lorgen_link_order(TARGET app PROFILE app.callgrind)
CMAKE
# lorgen must come from the prefix: a PATH without the build directory or the prefix.
env PATH=/usr/local/bin:/usr/bin:/bin cmake -S app -B app-build -DCMAKE_PREFIX_PATH="$work/prefix" \
  >configure.log 2>&1 || { cat configure.log >&2; fail "the consumer did not configure"; }
grep -q "$work/prefix/bin/lorgen" app-build/CMakeFiles/app.dir/build.make ||
  fail "the consumer does not run the installed lorgen"
cmake --build app-build >build.log 2>&1 || { cat build.log >&2; fail "the consumer did not build"; }
grep -q 'lorgen: link order of app' build.log || { cat build.log >&2; fail "lorgen did not run"; }
[ "$(./app-build/app)" = 352721321 ] || fail "the program printed '$(./app-build/app)'"
"prefix/bin/lorgen" check app-build/app.lor app-build/app >check.txt ||
  { cat check.txt >&2; fail "the order is not in effect"; }
grep -q '^ *in order .*hot_step' check.txt || { cat check.txt >&2; fail "hot_step is not in order"; }

step "a version the package does not provide is refused"
sed -i 's/find_package(lorgen 0.1 REQUIRED)/find_package(lorgen 99 REQUIRED)/' app/CMakeLists.txt
if cmake -S app -B app-v99 -DCMAKE_PREFIX_PATH="$work/prefix" >v99.log 2>&1; then
  fail "find_package(lorgen 99) was satisfied by lorgen $("$lorgen" --version)"
fi
version=$("$lorgen" --version)
grep -q "lorgenConfig.cmake, version: ${version#lorgen }" v99.log ||
  { cat v99.log >&2; fail "the refusal does not name the version installed"; }

step "-DLORGEN_TESTS=OFF configures where pkg-config has no cmocka"
# A pkg-config search path holding every .pc file of the system's but cmocka's.
mkdir pc
for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
  [ -d "$d" ] || continue
  for f in "$d"/*.pc; do
    [ -e "$f" ] && [ "${f##*/}" != cmocka.pc ] && [ ! -e "pc/${f##*/}" ] && ln -s "$f" pc/
  done
done
PKG_CONFIG_LIBDIR=$work/pc cmake -S "$src" -B no-tests -DLORGEN_TESTS=OFF >no-tests.log 2>&1 ||
  { cat no-tests.log >&2; fail "-DLORGEN_TESTS=OFF needs cmocka"; }
if PKG_CONFIG_LIBDIR=$work/pc cmake -S "$src" -B with-tests >with-tests.log 2>&1; then
  fail "the tests configured without cmocka"
fi
grep -q 'LORGEN_TESTS=OFF' with-tests.log || { cat with-tests.log >&2; fail "the error does not say how to build without the tests"; }
echo "install: all checks passed" >&2
