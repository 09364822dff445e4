#!/usr/bin/env bash
# End to end: a fast region that takes one of two same-named statics. a.c and b.c each have a
# static helper; a.c's runs a million times, b.c's a thousand. Built for the host with
# -ffunction-sections and profiled, the program gets a region too small for both: lorgen takes
# a.c's helper, and its fragment must name a.o's section, not every .text.helper. Relinked with
# the toolchain's script plus an output section .fast_text that INCLUDEs the fragment, lorgen
# check must find a.c's helper in the region and b.c's outside (and the rest in order); with fragments that take b.c's
# helper, or both, it must call b.c's an intruder and exit 3.
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
dir=$src/tests/e2e/fast_region_statics
rm -rf "$work" && mkdir -p "$work" && cd "$work"
CFLAGS="-O2 -ffunction-sections"

step "build and profile on the host"
build_and_trace "$dir" prog prog.prf "$CFLAGS" a b main
[ "$(nm prog | awk '$2 == "t" && $3 == "helper"' | wc -l)" -eq 2 ] ||
  fail "the program does not have two static helpers"

step "lorgen takes a.c's helper alone into a 32-byte .fast_text"
"$lorgen" prog.prf prog obj/*.o --fast-region .fast_text=32 --fast-include fast.ld \
  --ld-include order.ld -o prog.lor 2>err.txt || { cat err.txt >&2; fail "lorgen failed"; }
awk '$1 == "region" { r = 1; next } $1 == "clique" { r = 0 } r && $1 == "fn"' prog.lor >members.txt
[ "$(wc -l <members.txt)" -eq 1 ] && grep -q '^ *fn helper .*object=obj/a\.o' members.txt ||
  { cat prog.lor >&2; fail "the region does not hold a.c's helper alone"; }
# The fragment names the object: a bare *(.text.helper) would take b.c's helper too.
grep -Eq '^ *:?\*a\.o\(\.text\.helper\)$' fast.ld || { cat fast.ld >&2; fail "fast.ld does not name a.o's .text.helper"; }

# link_with FRAGMENT ELF: the toolchain's script with .fast_text before .text, INCLUDEing
# FRAGMENT, and the cache order (order.ld) first in .text.
toolchain_script gcc default.ld obj/*.o
link_with() {
  before_text default.ld "$2-region.ld" "  .fast_text : { INCLUDE $1 }"
  awk '/^  \.text  *:/ { text = 1 } { print } text && /^  \{/ { print "    INCLUDE order.ld"; text = 0 }' \
    "$2-region.ld" >"$2-script.ld"
  gcc -T "$2-script.ld" obj/*.o -o "$2"
  "./$2" >"$2.out" || fail "$2 exited $?"
  cmp -s base.out "$2.out" || fail "$2 printed '$(cat "$2.out")', the plain build '$(cat base.out)'"
}

step "relinked with the fragment: check finds a.c's helper in the region, nothing else there"
link_with fast.ld fast
"$lorgen" check prog.lor fast obj/*.o >check.txt 2>&1 || { cat check.txt >&2; fail "lorgen check failed"; }
grep -q '^in region  0x[0-9a-f]*  *\.fast_text  *helper (a\.c)$' check.txt ||
  { cat check.txt >&2; fail "check does not say a.c's helper is in the region"; }
grep -q '^lorgen check: 1 of 1 region members lie in their region, 0 other functions lie in one$' check.txt ||
  { cat check.txt >&2; fail "check's summary is not 1 of 1 and no intruder"; }

# check_exits_3 NAME LINE: relinks with LINE as the whole fragment (ELF NAME) and expects lorgen
# check to fail with exit 3, its output in check-NAME.txt.
check_exits_3() {
  echo "$2" >"$1.ld"
  link_with "$1.ld" "$1"
  local status=0
  "$lorgen" check prog.lor "$1" obj/*.o >"check-$1.txt" 2>&1 || status=$?
  [ "$status" -eq 3 ] || { cat "check-$1.txt" >&2; fail "check exited $status on $1, expected 3"; }
}

step "a fragment that takes both helpers: b.c's is an intruder"
check_exits_3 both '*(.text.helper)'
grep -q '^in region  .* \.fast_text  *helper (a\.c)$' check-both.txt &&
  grep -q '^intruder  .* \.fast_text  *helper (b\.c): in \.fast_text but not its member' check-both.txt ||
  { cat check-both.txt >&2; fail "check did not tell a.c's helper (member) from b.c's (intruder)"; }

step "a fragment that takes b.c's helper: a.c's is outside, b.c's an intruder"
check_exits_3 wrong '*b.o(.text.helper)'
grep -q '^outside .* \.text  *helper (a\.c): a member of \.fast_text$' check-wrong.txt &&
  grep -q '^intruder  .* \.fast_text  *helper (b\.c): in \.fast_text but not its member' check-wrong.txt ||
  { cat check-wrong.txt >&2; fail "check took b.c's helper for the member"; }
grep -q '^lorgen check: 0 of 1 region members lie in their region, 1 other functions lie in one$' check-wrong.txt ||
  { cat check-wrong.txt >&2; fail "check's summary is not 0 of 1 and one intruder"; }
echo "fast_region_statics: ok" >&2
