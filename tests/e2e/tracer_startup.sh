#!/usr/bin/env bash
# End to end: the example tracer with an instrumented IFUNC resolver. The resolver runs while
# relocations are applied (by ld.so, or in a static program by the C library's start-up code
# before thread-local storage exists), so its hooks run before the C library is usable. The
# tracer must keep the program's behaviour, honour LGTRACE_OUT, record the resolver's calls and
# all of the program's, and say on stderr what it could not record.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work" && cd "$work"

cat >app.c <<'EOF'
#include <stdio.h>

#ifndef RESOLVER_PROBES
#define RESOLVER_PROBES 1
#endif

typedef int (*add_fn)(int, int);

static int add_plain(int a, int b) { return a + b; }
static int add_slow(int a, int b) { return a - -b; }

/* Called by the resolver, during relocation. */
__attribute__((noinline)) int probe(int i) { return i == 0; }

static add_fn resolve_add(void)
{
    volatile int fast = 0;
    for (int i = 0; i < RESOLVER_PROBES; i++)
        fast += probe(i);
    return fast ? add_plain : add_slow;
}

int add(int, int) __attribute__((ifunc("resolve_add")));

__attribute__((noinline)) int work(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s = add(s, i);
    return s;
}

int main(void)
{
    printf("%d\n", work(1000));
    return 0;
}
EOF

tracer=$(build_tracer gcc tracer "$src")
gcc -O2 -fstack-protector-all -I"$src/loaders" -I"$src/src/core" \
  -c "$src/examples/tracer/lgtrace.c" -o tracer/lgtrace-ssp.o
ssp_tracer="tracer/lgtrace-ssp.o tracer/prf_write.o"

# run_traced NAME: runs ./NAME in its own directory with LGTRACE_OUT=NAME.prf; it must exit 0,
# print the right sum and write that file (and no default trace.prf). Its stderr is NAME.err.
run_traced() {
  local name=$1 status=0
  rm -rf "run-$name" && mkdir "run-$name"
  (cd "run-$name" && LGTRACE_OUT=$name.prf "../$name" >out.txt 2>"../$name.err") || status=$?
  cat "$name.err" >&2
  [ "$status" -eq 0 ] || fail "$name: exit $status, expected 0"
  [ "$(cat "run-$name/out.txt")" = 499500 ] || fail "$name: printed '$(cat "run-$name/out.txt")'"
  [ -f "run-$name/$name.prf" ] || fail "$name: LGTRACE_OUT=$name.prf not written"
  [ ! -e "run-$name/trace.prf" ] || fail "$name: wrote the default trace.prf, not LGTRACE_OUT"
}

# expect_edge NAME CALLER CALLEE COUNT: the profile of NAME has that call edge.
expect_edge() {
  "$lorgen" callgraph "run-$1/$1.prf" -o "$1.cg"
  grep -qx "$2 $3 $4" "$1.cg" || { cat "$1.cg" >&2; fail "$1: no call edge '$2 $3 $4'"; }
}

gcc -O2 -ffunction-sections -finstrument-functions -c app.c -o app-prof.o
gcc -O2 -ffunction-sections -finstrument-functions -DRESOLVER_PROBES=3000 -c app.c -o many-prof.o

for link in dynamic static; do
  flags=
  [ "$link" = static ] && flags=-static
  step "$link: the resolver's hooks run before the C library is ready"
  # shellcheck disable=SC2086 # $tracer is two objects; $flags is empty or one word
  gcc $flags app-prof.o $tracer -o "app-$link"
  run_traced "app-$link"
  expect_edge "app-$link" resolve_add probe 1
  expect_edge "app-$link" work add_plain 1000
  expect_edge "app-$link" main work 1
  grep -q "note: 2 calls ran during start-up" "app-$link.err" ||
    fail "app-$link: no note that the resolver's 2 calls were recorded without time"
done

step "static, the tracer built with a stack protector: its canary is not there yet"
# shellcheck disable=SC2086
gcc -static app-prof.o $ssp_tracer -o app-ssp
run_traced app-ssp
expect_edge app-ssp resolve_add probe 1
expect_edge app-ssp work add_plain 1000

step "more start-up calls than the tracer keeps: a warning, and the rest is still recorded"
# shellcheck disable=SC2086
gcc -static many-prof.o $tracer -o app-many
run_traced app-many
grep -q "warning: 952 calls made during start-up, before the tracer's constructor, not recorded" \
  app-many.err || fail "app-many: no warning naming the start-up calls not recorded"
expect_edge app-many resolve_add probe 2048
expect_edge app-many work add_plain 1000
