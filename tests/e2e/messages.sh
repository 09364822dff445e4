#!/usr/bin/env bash
# Messages that must be true (issue 13 items 7, 10, 11), on a program profiled by callgrind:
#   - outputs are byte-identical between two runs (the string map's hash is keyed per process);
#   - objects given without the program's archive: a warning names the share of hits lost;
#   - libc functions are said to be in libc, not "inlined, or another build?".
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
have valgrind || { echo "valgrind not found: skipped" >&2; exit 77; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"

cat >main.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
unsigned hot_mix(unsigned x);
unsigned hot_fold(unsigned x);
int main(void)
{
    unsigned acc = 0;
    for (unsigned i = 0; i < 200000; i++) {
        char *p = malloc(16 + i % 32); /* libc: malloc, free, memset */
        memset(p, (int)i, 16);
        acc += hot_fold(hot_mix(i) ^ (unsigned char)p[3]);
        free(p);
    }
    printf("%u\n", acc);
    return 0;
}
EOF
cat >hot.c <<'EOF'
unsigned hot_mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }
unsigned hot_fold(unsigned x) { return (x ^ (x >> 16)) * 0x45d9f3bu; }
EOF
CFLAGS="-O1 -g -ffunction-sections -fno-inline"
gcc $CFLAGS -c main.c -o main.o
gcc $CFLAGS -c hot.c -o hot.o
ar rcs libhot.a hot.o
gcc main.o libhot.a -o app
./app >plain.out || fail "the test program failed"
valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=app.callgrind ./app >profiled.out 2>vg.err ||
  fail "the test program failed under callgrind: $(cat vg.err)"
cmp -s plain.out profiled.out || fail "the program printed something else under callgrind"

step "item 10: objects without the program's archive: a warning with the share of hits"
"$lorgen" app.callgrind app main.o -o part.lor 2>part.err
cat part.err >&2
grep -q "warning: .*% of the profile's hits (.*) are in .* function(s) that none of the object files given defines, the hottest 'hot_" part.err ||
  fail "no warning that hot_mix and hot_fold (libhot.a) cannot move"
grep -q "Give the archives or objects that define them" part.err || fail "no advice to give the archive"
"$lorgen" app.callgrind app main.o libhot.a -o whole.lor 2>whole.err
grep -q "none of the object files given defines" whole.err && fail "a warning with every object given"

step "item 11: libc functions are named by their shared object, not guessed inlined"
grep -q "inlined, or another build" whole.err && fail "a libc function is still said to be inlined"
grep -q "are code outside the program, in shared objects or the kernel, the hottest '.*' in libc.so" whole.err ||
  fail "no note that libc code is outside the program"
grep -q "'free' .*in libc.so.6, a shared object, not in the program: lorgen cannot move it\|hottest: '[a-z_]*' ([0-9]* hits): in libc.so.6, a shared object" whole.err ||
  fail "the unbound warning does not name libc.so.6"
grep -q "falls outside its function" whole.err && fail "position costs in libc blamed on another build"

step "item 7: outputs are byte-identical between runs"
for run in 1 2; do
  "$lorgen" -q app.callgrind app main.o libhot.a -o "run$run.lor" --ld-script "run$run.ld" \
    --report "run$run.txt" 2>"run$run.err"
done
for ext in lor ld txt err; do
  cmp "run1.$ext" "run2.$ext" || fail "run1.$ext and run2.$ext differ"
done
echo "messages: ok" >&2
