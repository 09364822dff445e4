#!/usr/bin/env bash
# End to end: the default never writes a layout that the cache model predicts to miss more than
# the order the program has now (by more than the model's resolution, 2%: safeguard.h). The
# demo is profiled with the example tracer and ordered for several caches; `lorgen eval` then
# replays each .LOR against the linked program, and its estimate must not be worse. One of the
# caches (4 KiB, 4-way, 16-byte lines) is one where the clique layout is predicted to lose on
# this program: there lorgen must keep the input order, say so, and the relinked program must be
# the original one, byte for byte. In a cache of 4 ways or more the input order is also kept
# when the model sees no conflict misses in it, which it checks first (on the demo that keeps
# both 4-way and 8-way caches); when lorgen says so, `lorgen eval` must find the input order
# missing no less in a fully-associative cache of the same size, and a cache with fewer ways
# must never be kept for that reason. When the default's chains are predicted to lose, lorgen
# tries C3's order under the same check before it keeps the input order
# (optimizer/default_order.h): on the demo that happens in the 2 KiB direct-mapped cache with
# 16-byte lines, where the .LOR must then say c3, lorgen must say why, and the relinked program
# must print what the original does.
# A kept order's .LOR gives the same reason as the warning, and `lorgen check` says it has
# nothing to check.
# (test_safeguard.c covers the loss rule on its own, test_cli_order.c the second choice.)
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
rm -rf "$work" && mkdir -p "$work"
out=$work/demo
step "build and profile the demo"
make -s -C "$src/examples/demo" OUT="$out" RUN_ARGS="-r 5 -n 200 -s 7" all run >/dev/null
[ -s "$out/trace.prf" ] || fail "no profile written"

kept=0 proposed=0 no_conflicts=0 second=0
for geometry in 4096,1,32 8192,1,32 16384,2,32 32768,8,64 2048,1,16 4096,4,16; do
  IFS=, read -r size ways line <<<"$geometry"
  cache=(--cache-size "$size" --ways "$ways" --line-size "$line")
  step "order for $geometry"
  (cd "$out" && "$lorgen" trace.prf demo normal/*.o "${cache[@]}" -o "o-$size-$ways.lor" \
    --ld-script "o-$size-$ways.ld" 2>"o-$size-$ways.err")
  ratio=$(cd "$out" && "$lorgen" eval -q trace.prf demo normal/*.o "${cache[@]}" \
    --lor "o-$size-$ways.lor" | awk 'END { print $NF }')
  [ -n "$ratio" ] || fail "$geometry: lorgen eval printed no estimate"
  awk -v r="$ratio" 'BEGIN { exit !(r <= 1.02) }' ||
    fail "$geometry: the layout is predicted to miss more than the input order (ratio $ratio)"
  if grep -q '^algorithm input-kept$' "$out/o-$size-$ways.lor"; then
    kept=$((kept + 1))
    if grep -q 'kept the input order: in this [0-9]*-way cache the model predicts no conflict' \
      "$out/o-$size-$ways.err"; then
      [ "$ways" -ge 4 ] || fail "$geometry: kept for want of conflicts in a $ways-way cache"
      input=$(cd "$out" && "$lorgen" eval -q trace.prf demo normal/*.o "${cache[@]}" |
        awk '/^ELF \(current\)/ { print $4 }')
      associative=$(cd "$out" && "$lorgen" eval -q trace.prf demo normal/*.o --cache-size "$size" \
        --ways $((size / line)) --line-size "$line" | awk '/^ELF \(current\)/ { print $4 }')
      [ -n "$input" ] && [ -n "$associative" ] && [ "$associative" -ge "$input" ] ||
        fail "$geometry: said no conflicts, yet eval gives $input, fully associative $associative"
      grep -qx "# The input order was kept (in this $ways-way cache the model predicts no conflict misses for it):" \
        "$out/o-$size-$ways.lor" || fail "$geometry: the .LOR gives another reason for keeping"
      no_conflicts=$((no_conflicts + 1))
    else
      grep -q 'kept the input order: the new layout was predicted to miss more' \
        "$out/o-$size-$ways.err" || fail "$geometry: the input order was kept without a warning"
      grep -qx '# The input order was kept (the new layout was predicted to miss more):' \
        "$out/o-$size-$ways.lor" || fail "$geometry: the .LOR gives another reason for keeping"
    fi
    ! grep -q '^clique ' "$out/o-$size-$ways.lor" || fail "$geometry: kept, yet cliques listed"
    make -s -C "$src/examples/demo" OUT="$out" relink LDSCRIPT="$out/o-$size-$ways.ld" \
      >/dev/null 2>&1
    cmp -s "$out/demo-ordered" "$out/demo" ||
      fail "$geometry: keeping the input order changed the linked program"
    # Nothing to check, and check says so rather than "0 of 0 functions landed".
    verdict=$(cd "$out" && "$lorgen" check "o-$size-$ways.lor" demo-ordered normal/*.o) ||
      fail "$geometry: check failed on a .LOR that keeps the input order"
    [ "$verdict" = "lorgen check: no functions to check: o-$size-$ways.lor keeps the input order (algorithm input-kept), so the link orders nothing" ] ||
      fail "$geometry: check said '$verdict' of a .LOR that keeps the input order"
  else
    proposed=$((proposed + 1))
    grep -q '^clique ' "$out/o-$size-$ways.lor" || fail "$geometry: no cliques proposed"
    if grep -q 'layout was predicted to miss more than the input order in this cache' \
      "$out/o-$size-$ways.err"; then
      grep -q 'the chains layout was predicted to miss more .* proposing the c3 layout' \
        "$out/o-$size-$ways.err" || fail "$geometry: a second choice that is not c3's"
      grep -q '^algorithm c3$' "$out/o-$size-$ways.lor" ||
        fail "$geometry: lorgen said it proposed c3, the .LOR says otherwise"
      ! grep -q 'kept the input order' "$out/o-$size-$ways.err" ||
        fail "$geometry: c3 proposed, yet lorgen says it kept the input order"
      make -s -C "$src/examples/demo" OUT="$out" relink LDSCRIPT="$out/o-$size-$ways.ld" \
        >/dev/null 2>&1
      diff <("$out/demo" -r 5 -n 200 -s 7) <("$out/demo-ordered" -r 5 -n 200 -s 7) >/dev/null ||
        fail "$geometry: the program relinked in c3's order prints something else"
      second=$((second + 1))
    elif ! grep -q '^algorithm chains$' "$out/o-$size-$ways.lor"; then
      fail "$geometry: the default proposed neither chains nor, after them, c3"
    fi
  fi
done
[ "$kept" -ge 1 ] || fail "no cache kept the input order (4096,4,16 is expected to)"
[ "$proposed" -ge 1 ] || fail "no cache got a new layout"
[ "$second" -ge 1 ] || fail "no cache got c3's layout after the chains (2048,1,16 is expected to)"
echo "safeguard: $proposed layouts proposed ($second of them c3's after the chains)," \
  "$kept kept the input order ($no_conflicts for want of conflict misses)" >&2
