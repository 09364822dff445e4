#!/usr/bin/env bash
# The loaders' golden files: tests/fixtures/golden/DIR/FILE.txt is what lg_dump_profile
# (tests/dump_profile.c) prints for the profile fixture tests/fixtures/DIR/FILE, so that a change
# in any reader shows as a diff.
#   bash tests/golden_loads.sh LG_DUMP_PROFILE SOURCE_DIR SCRATCH_DIR   compare (ctest golden.loaders)
#   bash tests/golden_loads.sh LG_DUMP_PROFILE SOURCE_DIR --update      rewrite them
# (`cmake --build build --target golden` runs the second.) The fixtures are every file of the
# profile folders below but the READMEs and .LOR files, and the report's profile; each is named
# relative to the source tree, so the goldens hold no machine's paths. A golden file without its
# fixture is an error too.
set -euo pipefail
dump=$1 src=$2 work=$3
cd "$src"
golden=tests/fixtures/golden
fixtures=()
for f in tests/fixtures/{aprof,callgrind,malformed,perf,samples,winidea}/* \
  tests/fixtures/report/prog.callgrind; do
  case $f in */README.md | *.lor) continue ;; esac
  fixtures+=("$f")
done
if [ "$work" = --update ]; then
  [ ! -d "$golden" ] || find "$golden" -name '*.txt' -delete
  for f in "${fixtures[@]}"; do
    g=$golden/${f#tests/fixtures/}.txt
    mkdir -p "$(dirname "$g")"
    "$dump" "$f" >"$g"
  done
  echo "wrote ${#fixtures[@]} golden files under $golden" >&2
  exit 0
fi
rm -rf "$work" && mkdir -p "$work"
status=0
for f in "${fixtures[@]}"; do
  g=$golden/${f#tests/fixtures/}.txt
  "$dump" "$f" >"$work/now.txt"
  if [ ! -e "$g" ]; then
    echo "FAIL: $f has no golden file $g (cmake --build build --target golden)" >&2
    status=1
  elif ! diff -u "$g" "$work/now.txt" >"$work/diff.txt"; then
    head -n 40 "$work/diff.txt" >&2
    echo "FAIL: $f: the loader now understands it otherwise than $g says (left: golden)" >&2
    status=1
  fi
done
while IFS= read -r g; do
  f=tests/fixtures/${g#"$golden"/}
  [ -e "${f%.txt}" ] || { echo "FAIL: $g has no fixture ${f%.txt}" >&2; status=1; }
done < <(find "$golden" -type f -name '*.txt')
[ "$status" = 0 ] && echo "golden: ${#fixtures[@]} fixtures load as their golden files say" >&2
exit "$status"
