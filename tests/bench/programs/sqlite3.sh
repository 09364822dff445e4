# sqlite3 for tests/bench/real_programs.sh (sourced).
# The SQLite library and the sqlite3 shell, linked statically, the shell reading SQL on stdin.
# Built as Debian builds it, from the individual source files (debian/rules passes
# --disable-amalgamation), with Debian's CFLAGS and the options its configure line turns on, but
# without configure: the sources that the Makefile generates with lemon and tclsh are generated
# below by the same commands, and sqlite_cfg.h holds what configure finds on Debian 12 x86-64.
# Differences from Debian: SQLITE_THREADSAFE=0 (the tracer records one thread), and the shell
# without readline and zlib (the workloads are not interactive and use no archives).
sqlite3_build() {
  local work=$1 src=$cache/sqlite3
  fetch_source sqlite3 "$src"
  title="sqlite3 $(debian_version sqlite3)"
  libs="-lm"
  # The source generators are Tcl scripts: tclsh, installed as scripts/setup.sh installs.
  if ! dpkg-query -W -f='${Status}' tcl 2>/dev/null | grep -q "install ok installed"; then
    local as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo)
    echo "sqlite3: installing tcl" >&2
    "${as_root[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends \
      tcl >/dev/null
  fi
  local gen=$work/gen
  mkdir -p "$gen" "$work/data" "$work/tmp"
  # Debian's CFLAGS (debian/rules), then what its configure options add to OPT_FEATURE_FLAGS.
  local features=(-DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_FTS3
    -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1
    -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB
    -DSQLITE_ALLOW_ROWID_IN_VIEW -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1
    -DSQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_ENABLE_JSON1 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
    -DSQLITE_THREADSAFE=0 -DSQLITE_ENABLE_FTS3_TOKENIZER=1 -DSQLITE_USE_URI=1
    -DSQLITE_MAX_SCHEMA_RETRY=25 -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION
    -DSQLITE_ENABLE_STMTVTAB -DSQLITE_MAX_VARIABLE_NUMBER=250000
    -DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5)

  # The generated sources, as the Makefile makes them: the SQL parser (lemon, with the feature
  # flags, which select grammar rules), the opcode tables, the keyword hash, sqlite3.h (with the
  # source id), FTS5 as one file, and shell.c (shell.c.in with the ext/misc extensions inlined).
  gcc -O2 -o "$gen/lemon" "$src/tool/lemon.c"
  gcc -O2 -o "$gen/mksourceid" "$src/tool/mksourceid.c"
  gcc -O2 "${features[@]}" -o "$gen/mkkeywordhash" "$src/tool/mkkeywordhash.c"
  cp "$src/tool/lempar.c" "$src/src/parse.y" "$src/ext/fts5/fts5parse.y" "$gen/"
  (
    cd "$gen" || exit 1
    ./lemon "${features[@]}" -S parse.y >/dev/null
    ./lemon -S fts5parse.y >/dev/null
    cat parse.h "$src/src/vdbe.c" | tclsh "$src/tool/mkopcodeh.tcl" >opcodes.h
    tclsh "$src/tool/mkopcodec.tcl" opcodes.h >opcodes.c
    ./mkkeywordhash >keywordhash.h
    tclsh "$src/tool/mksqlite3h.tcl" "$src" >sqlite3.h
    tclsh "$src/ext/fts5/tool/mkfts5c.tcl"
    cp "$src/ext/fts5/fts5.h" .
    tclsh "$src/tool/mkshellc.tcl" >shell.c
  )
  cat >"$gen/sqlite_cfg.h" <<'EOF'
#define HAVE_DLFCN_H 1
#define HAVE_FDATASYNC 1
#define HAVE_GMTIME_R 1
#define HAVE_INT16_T 1
#define HAVE_INT32_T 1
#define HAVE_INT64_T 1
#define HAVE_INT8_T 1
#define HAVE_INTPTR_T 1
#define HAVE_INTTYPES_H 1
#define HAVE_ISNAN 1
#define HAVE_LOCALTIME_R 1
#define HAVE_MALLOC_H 1
#define HAVE_MEMORY_H 1
#define HAVE_PREAD 1
#define HAVE_PREAD64 1
#define HAVE_PWRITE 1
#define HAVE_PWRITE64 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRCHRNUL 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UINT16_T 1
#define HAVE_UINT32_T 1
#define HAVE_UINT64_T 1
#define HAVE_UINT8_T 1
#define HAVE_UINTPTR_T 1
#define HAVE_UNISTD_H 1
#define HAVE_USLEEP 1
#define HAVE_UTIME 1
#define STDC_HEADERS 1
EOF

  local cflags=(-O2 -ffunction-sections -fno-strict-aliasing -D_HAVE_SQLITE_CONFIG_H
    -DBUILD_sqlite "${features[@]}" -I"$gen" -I"$src/src" -I"$src/ext/rtree" -I"$src/ext/icu"
    -I"$src/ext/fts3" -I"$src/ext/session" -I"$src/ext/userauth")
  sqlite3_compile() { # SOURCE FLAGS...
    local source=$1 object
    object=$(basename "${source%.c}").o
    shift
    gcc "${cflags[@]}" "$@" -c "$source" -o "$work/obj/$object"
    gcc "${cflags[@]}" "$@" -finstrument-functions -c "$source" -o "$work/prof/$object"
  }
  # The library's objects (LIBOBJS0 in Makefile.in) less those that compile to nothing here:
  # the Windows, ICU, debugging-allocator, RBU, user-authentication and tree-view files; mutex,
  # threads, mem0 and os_kv without threads; dbpage and vdbevtab, whose options are in the
  # shell's SHELL_OPT only.
  local f
  for f in alter analyze attach auth backup bitvec btmutex btree build callback complete ctime \
           date dbstat delete expr fault fkey func global hash insert json legacy loadext main \
           malloc mem1 memdb memjournal notify os os_unix pager pcache pcache1 pragma prepare \
           printf random resolve rowset select status table tokenize trigger update upsert util \
           vacuum vdbe vdbeapi vdbeaux vdbeblob vdbemem vdbesort vdbetrace wal walker where \
           wherecode whereexpr window utf vtab; do
    sqlite3_compile "$src/src/$f.c"
  done
  for f in "$gen"/{parse,opcodes}.c; do sqlite3_compile "$f"; done
  for f in "$src"/ext/fts3/fts3{,_aux,_expr,_hash,_porter,_snippet,_tokenizer,_tokenizer1}.c \
           "$src"/ext/fts3/fts3_{tokenize_vtab,unicode,unicode2,write}.c \
           "$src/ext/rtree/rtree.c" "$src/ext/session/sqlite3session.c" "$src/ext/misc/stmt.c" \
           "$gen/fts5.c"; do
    sqlite3_compile "$f" -DSQLITE_CORE
  done
  # The shell, with the Makefile's SHELL_OPT.
  sqlite3_compile "$gen/shell.c" -DSQLITE_ENABLE_EXPLAIN_COMMENTS \
    -DSQLITE_ENABLE_UNKNOWN_SQL_FUNCTION -DSQLITE_ENABLE_DBPAGE_VTAB \
    -DSQLITE_ENABLE_BYTECODE_VTAB -DSQLITE_ENABLE_OFFSET_SQL_FUNC
  gcc "$work"/prof/*.o "$work/lgtrace.o" "$work/prf_write.o" $libs -o "$work/prog-prof"

  # The data, the same on every run, from a fixed-seed Lehmer generator (exact in any awk's
  # doubles). TRAIN: a shop's customers, products, orders and order lines as an SQL script, and
  # the lookups of its report. EVAL: an issue tracker's users, issues and comments as CSV files
  # (quoted fields, some holding commas and quotes). Each also gets the line its check query
  # must print, computed here independently of SQLite.
  awk -v dir="$work/data" '
    function rand_() { x = (x * 48271) % 2147483647; return x }
    function pick(a, n) { return a[1 + rand_() % n] }
    function day(d,   m) { # day d (0-based) of 2024, a leap year
      for (m = 1; d >= ml[m]; m++) d -= ml[m]
      return sprintf("2024-%02d-%02d", m, d + 1)
    }
    BEGIN {
      x = 42
      split("31 29 31 30 31 30 31 31 30 31 30 31", ml, " ")
      nf = split("Anna Ben Carla David Emma Felix Greta Hugo Ida Jonas Karin Lukas Mia Nils " \
                 "Olga Paul Rosa Simon Tina Uwe Vera Willi Xenia Yann Zoe", first, " ")
      nl = split("Meyer Schmidt Novak Rossi Garcia Dubois Jansen Kowalski Berg Horvat Silva " \
                 "Larsen Fischer Moreau Bianchi Costa Weber Nagy", last, " ")
      nc = split("Berlin Hamburg Munich Cologne Leipzig Dresden Bremen Vienna Graz Zurich Basel " \
                 "Prague Brno Lyon Ghent", city, " ")
      na = split("red blue small large classic quick silent golden steel wooden smart tiny",
                 adj, " ")
      nn = split("lamp chair kettle backpack notebook speaker blanket bottle clock mug shelf",
                 noun, " ")
      nk = split("home kitchen office outdoor travel audio decor garden", cat, " ")
      ns = split("shipped shipped shipped delivered delivered delivered cancelled pending",
                 stat, " ")
      out = dir "/train-data.sql"
      ncust = 400; nprod = 120; nord = 2400
      print "BEGIN;" >out
      for (i = 1; i <= ncust; i++)
        printf "INSERT INTO customers VALUES (%d, \047%s %s\047, \047%s\047, \0472%03d-%02d-%02d\047);\n",
          i, pick(first, nf), pick(last, nl), pick(city, nc), 19 + rand_() % 6,
          1 + rand_() % 12, 1 + rand_() % 28 >out
      print "COMMIT;\nBEGIN;" >out
      for (i = 1; i <= nprod; i++) {
        price[i] = 199 + rand_() % 20000
        name[i] = pick(adj, na) " " pick(noun, nn) " " i  # unique: it ends with the id
        printf "INSERT INTO products VALUES (%d, \047%s\047, \047%s\047, %d);\n",
          i, name[i], pick(cat, nk), price[i] >out
      }
      print "COMMIT;\nBEGIN;" >out
      for (i = 1; i <= nord; i++)
        printf "INSERT INTO orders VALUES (%d, %d, \047%s\047, \047%s\047);\n",
          i, 1 + rand_() % ncust, day(rand_() % 366), pick(stat, ns) >out
      print "COMMIT;\nBEGIN;" >out
      # The order lines in one INSERT per order.
      for (i = 1; i <= nord; i++) {
        n = 1 + rand_() % 4
        line = ""
        split("", seen)
        for (j = 0; j < n; j++) {
          p = 1 + rand_() % nprod
          if (p in seen) continue
          seen[p] = 1
          q = 1 + rand_() % 5
          line = line (line == "" ? "" : ", ") sprintf("(%d, %d, %d)", i, p, q)
          items++; units += q; value += q * price[p]
        }
        print "INSERT INTO order_items VALUES " line ";" >out
      }
      print "COMMIT;" >out
      printf "check|%d|%d|%d|%d|%d\n", ncust, nord, items, units, value >(dir "/train.expect")
      out = dir "/train-lookups.sql"
      for (i = 0; i < 150; i++) {
        printf "SELECT c.name, c.city, count(o.id) AS orders FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE c.id = %d GROUP BY c.id;\n",
          1 + rand_() % ncust >out
        printf "SELECT o.id, o.status, sum(i.qty) AS units FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.day = \047%s\047 GROUP BY o.id ORDER BY o.id;\n",
          day(rand_() % 366) >out
        printf "SELECT id, category, price_cents FROM products WHERE name = \047%s\047;\n",
          name[1 + rand_() % nprod] >out
      }
    }'
  awk -v dir="$work/data" '
    function rand_() { x = (x * 48271) % 2147483647; return x }
    function pick(a, n) { return a[1 + rand_() % n] }
    function stamp(d,   m, y) { # day d (0-based) from 2024-09-01, with a time of day
      split("30 31 30 31 31 28 31 30 31 30 31 31", ml, " ")  # September 2024 to August 2025
      for (m = 1; d >= ml[m]; m++) d -= ml[m]
      y = m <= 4 ? 2024 : 2025
      return sprintf("%d-%02d-%02d %02d:%02d:%02d", y, (m + 7) % 12 + 1, d + 1,
                     rand_() % 24, rand_() % 60, rand_() % 60)
    }
    function words(n,   s, k) {
      s = pick(word, nw)
      for (k = 1; k < n; k++) s = s " " pick(word, nw)
      return s
    }
    BEGIN {
      x = 4711
      nw = split("the a fix crash when cache is slow query timeout Timeout on startup after " \
                 "upgrade memory leak in parser windows linux macos build fails test flaky " \
                 "config option missing docs typo error message unclear regression since " \
                 "release network retry login page layout broken export csv import json " \
                 "index rebuild lock contention disk full", word, " ")
      nt = split("core core core ui ui docs infra bots", team, " ")
      nd = split("example.org example.org example.org mail.test corp.test uni.test", domain, " ")
      ns = split("open open open open closed closed closed wontfix duplicate", stat, " ")
      nb = split("bug bug feature docs perf security ux", label, " ")
      nusers = 120; nissues = 1000; ncomments = 2400
      out = dir "/users.csv"
      print "id,login,email,team" >out
      for (i = 1; i <= nusers; i++)
        printf "%d,user%03d,User%03d@%s,%s\n", i, i, i, pick(domain, nd), pick(team, nt) >out
      out = dir "/issues.csv"
      print "id,parent_id,reporter,assignee,title,status,priority,created,closed,labels" >out
      for (i = 1; i <= nissues; i++) {
        parent = (i > 20 && rand_() % 10 < 3) ? 1 + rand_() % (i - 1) : ""
        assignee = rand_() % 5 ? 1 + rand_() % nusers : ""
        s = pick(stat, ns); prio = 1 + rand_() % 4; prios += prio
        d = rand_() % 330
        closed = s == "open" ? "" : substr(stamp(d + rand_() % 30), 1, 10)
        n = rand_() % 3; labels = "["
        for (k = 0; k < n; k++) labels = labels (k ? "," : "") "\"\"" pick(label, nb) "\"\""
        printf "%d,%s,%d,%s,\"%s\",%s,%d,%s,%s,\"%s]\"\n", i, parent, 1 + rand_() % nusers,
          assignee, words(3 + rand_() % 6), s, prio, stamp(d), closed, labels >out
      }
      out = dir "/comments.csv"
      print "id,issue_id,author,created,body" >out
      for (i = 1; i <= ncomments; i++) {
        body = words(5 + rand_() % 20)
        if (rand_() % 4 == 0) body = body ", \"\"" words(2) "\"\" " words(3)
        # The body as SQLite stores it: the CSV quotes undoubled.
        b = body; gsub(/""/, "\"", b); length_ += length(b)
        printf "%d,%d,%d,%s,\"%s\"\n", i, 1 + rand_() % nissues, 1 + rand_() % nusers,
          stamp(rand_() % 360), body >out
      }
      printf "check|%d|%d|%d|%d|%d\n", nusers, nissues, prios, ncomments, length_ \
        >(dir "/eval.expect")
    }'
}
# TRAIN: the shop. One process creates and fills the database from an SQL script; another runs
# the report (sqlite3-data/train-*.sql), whose lookups read the database from disk again.
# -init /dev/null: no ~/.sqliterc; -bail: stop with an error status at the first failing
# statement.
sqlite3_train() {
  local run=$1 work=$build/bench-sqlite3 sql=$root/tests/bench/programs/sqlite3-data
  rm -f "$work/tmp/shop.db" "$work/tmp/shop.db-journal"
  (cd "$work/data" && "$run" -init /dev/null -bail "$work/tmp/shop.db" <"$sql/train-load.sql" \
    >"$work/tmp/train-load.out") || return 1
  cmp "$work/data/train.expect" "$work/tmp/train-load.out" >&2 || return 1
  (cd "$work/data" && "$run" -init /dev/null -bail "$work/tmp/shop.db" <"$sql/train-query.sql" \
    >"$work/tmp/train-query.out") || return 1
  cat "$work/tmp/train-load.out" "$work/tmp/train-query.out" | md5sum
}
# EVAL: the issue tracker, another day's work with other features: CSV import, WAL mode,
# triggers and FTS5 in one process; updates and deletes in a transaction, window functions,
# subqueries, a recursive CTE, string, date and JSON functions, full-text queries and the box, CSV
# and JSON output modes in another.
sqlite3_eval() {
  local run=$1 work=$build/bench-sqlite3 sql=$root/tests/bench/programs/sqlite3-data
  rm -f "$work/tmp/issues.db" "$work/tmp/issues.db-wal" "$work/tmp/issues.db-shm"
  (cd "$work/data" && "$run" -init /dev/null -bail "$work/tmp/issues.db" <"$sql/eval-load.sql" \
    >"$work/tmp/eval-load.out") || return 1
  # The first line is the journal mode set.
  [ "$(head -1 "$work/tmp/eval-load.out")" = wal ] || return 1
  tail -n +2 "$work/tmp/eval-load.out" | cmp "$work/data/eval.expect" - >&2 || return 1
  (cd "$work/data" && "$run" -init /dev/null -bail "$work/tmp/issues.db" <"$sql/eval-query.sql" \
    >"$work/tmp/eval-query.out") || return 1
  [ "$(tail -1 "$work/tmp/eval-query.out")" = ok ] || return 1
  cat "$work/tmp/eval-load.out" "$work/tmp/eval-query.out" | md5sum
}
