#!/usr/bin/env bash
# --report-html in a real browser (headless Chromium): the page loads without script errors, its
# cache maps have one cell per cache set (size / line / ways) before and after, the cliques table
# sorts when a header is clicked, and nothing is fetched from elsewhere. Skipped (77) without
# chromium (scripts/setup.sh installs it).
set -euo pipefail
lorgen=$1 src=$2 work=$3
. "$src/tests/e2e/lib.bash"
browser=
for b in chromium chromium-browser; do
  if have "$b"; then
    browser=$b
    break
  fi
done
if [ -z "$browser" ]; then
  echo "report_html: skipped: no chromium" >&2
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/home"
fixture=$src/tests/fixtures/report

# dump_dom FILE.html: the DOM after the page's scripts ran, on stdout.
dump_dom() {
  HOME=$work/home timeout 120 "$browser" --headless --disable-gpu --no-sandbox --no-first-run \
    --disable-extensions --user-data-dir="$work/home/profile" --dump-dom "file://$1" \
    2>>"$work/chromium.log"
}

# count_cells DOM_FILE SVG_ID: the cells of one cache map.
count_cells() {
  awk -v id="$2" '
    index($0, "<svg id=\"" id "\"") { inside = 1 }
    inside && /<rect class="cell/ { n++ }
    inside && /<\/svg>/ { inside = 0 }
    END { print n + 0 }' "$1"
}

# check GEOMETRY_ARGS...: one report with that geometry, loaded and counted.
check() {
  local size=$1 line=$2 ways=$3 name=page-$1-$2-$3
  local sets=$(( size / line / ways ))
  step "cache ${size} bytes, ${line}-byte lines, ${ways}-way: ${sets} sets"
  # --no-safeguard: the maps and tables of the clique layout are what this test reads.
  (cd "$fixture" && "$lorgen" -q prog.callgrind prog.elf --cache-size "$size" --line-size "$line" \
    --ways "$ways" --no-safeguard --report-html "$work/$name.html")
  # Self-contained: no fetched resources (the SVG namespace is a name, not a fetch; url(#id)
  # points inside the page).
  if grep -Eo '(src|href)=|<link|@import|url\([^#]|https?://[^"]*' "$work/$name.html" |
    grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
    fail "$name.html refers to something outside itself"
  fi
  dump_dom "$work/$name.html" >"$work/$name.dom"
  grep -q 'data-lg-ready="1"' "$work/$name.dom" || fail "$name.html: the page script did not run"
  ! grep -q 'data-lg-error="1"' "$work/$name.dom" || fail "$name.html: a script error happened"
  local before after
  before=$(count_cells "$work/$name.dom" map-before)
  after=$(count_cells "$work/$name.dom" map-after)
  [ "$before" -eq "$sets" ] || fail "$name.html: $before cells before, expected $sets"
  [ "$after" -eq "$sets" ] || fail "$name.html: $after cells after, expected $sets"
  grep -q '<svg id="graph"' "$work/$name.dom" || fail "$name.html: no call graph"
  echo "   $sets cells before and after" >&2
}

check 512 16 1
check 2048 16 2
check 8192 32 1

step "sorting the cliques table in the browser"
page=$work/page-512-16-1.html
# Clicks the hits header twice (descending, then ascending) and records what it saw.
sed 's|</body>|<script>\
(function () {\
  var th = document.querySelector("#clique-table thead th:nth-child(5)");\
  function hits() {\
    return Array.prototype.map.call(document.querySelectorAll("#clique-table tbody tr"),\
      function (r) { return parseFloat(r.cells[4].getAttribute("data-v")); });\
  }\
  function sorted(a, dir) {\
    for (var i = 1; i < a.length; i++) if ((a[i] - a[i - 1]) * dir < 0) return false;\
    return a.length > 1;\
  }\
  th.click();\
  var down = sorted(hits(), -1) \&\& th.getAttribute("aria-sort") === "descending";\
  th.click();\
  var up = sorted(hits(), 1) \&\& th.getAttribute("aria-sort") === "ascending";\
  document.documentElement.setAttribute("data-lg-sort", down \&\& up ? "ok" : "wrong");\
})();\
</script>\
</body>|' "$page" >"$work/sort.html"
dump_dom "$work/sort.html" >"$work/sort.dom"
grep -q 'data-lg-sort="ok"' "$work/sort.dom" || fail "the cliques table does not sort by hits"
! grep -q 'data-lg-error="1"' "$work/sort.dom" || fail "sorting raised a script error"
echo "report_html: ok" >&2
