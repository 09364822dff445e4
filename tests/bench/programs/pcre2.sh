# pcre2 for tests/bench/real_programs.sh (sourced).
# libpcre2-8 and pcre2grep, linked statically, pcre2grep searching text files.
# Built without autotools, as NON-AUTOTOOLS-BUILD describes: the config.h below holds what
# pcre2's configure finds on Debian 12 x86-64 with Debian's options (8-bit library with Unicode
# support, pcre2grep without callouts), but without JIT (Debian enables it on amd64; here the
# matcher is to be the interpreter that lorgen can lay out, and pcre2grep's JIT would only
# generate code at run time). The library's sources are COMMON_SOURCES in Makefile.am plus the
# default character tables, pcre2_chartables.c.dist, which Debian's build uses too.
pcre2_build() {
  local work=$1 src=$cache/pcre2
  fetch_source pcre2 "$src"
  title="pcre2 $(debian_version pcre2)"
  libs=
  mkdir -p "$work/inc" "$work/data" "$work/tmp"
  local version
  version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"/\1/p' "$src/src/config.h.generic")
  cat >"$work/inc/config.h" <<EOF
#define HAVE_ATTRIBUTE_UNINITIALIZED 1
#define HAVE_BCOPY 1
#define HAVE_DIRENT_H 1
#define HAVE_DLFCN_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_LIMITS_H 1
#define HAVE_MEMFD_CREATE 1
#define HAVE_MEMMOVE 1
#define HAVE_MKOSTEMP 1
#define HAVE_REALPATH 1
#define HAVE_SECURE_GETENV 1
#define HAVE_STDINT_H 1
#define HAVE_STDIO_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRERROR 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_SYS_WAIT_H 1
#define HAVE_UNISTD_H 1
#define HAVE_VISIBILITY 1
#define HAVE_WCHAR_H 1
#define STDC_HEADERS 1
#define HEAP_LIMIT 20000000
#define LINK_SIZE 2
#define MATCH_LIMIT 10000000
#define MATCH_LIMIT_DEPTH MATCH_LIMIT
#define MAX_NAME_COUNT 10000
#define MAX_NAME_SIZE 32
#define NEWLINE_DEFAULT 2
#define PARENS_NEST_LIMIT 250
#define PCRE2GREP_BUFSIZE 20480
#define PCRE2GREP_MAX_BUFSIZE 1048576
#define SUPPORT_PCRE2_8 1
#define SUPPORT_UNICODE 1
#define PACKAGE "pcre2"
#define PACKAGE_BUGREPORT ""
#define PACKAGE_NAME "PCRE2"
#define PACKAGE_STRING "PCRE2 $version"
#define PACKAGE_TARNAME "pcre2"
#define PACKAGE_URL ""
#define PACKAGE_VERSION "$version"
#define VERSION "$version"
EOF
  cp "$src/src/pcre2.h.generic" "$work/inc/pcre2.h"
  cp "$src/src/pcre2_chartables.c.dist" "$work/inc/pcre2_chartables.c"
  local cflags=(-O2 -ffunction-sections -DHAVE_CONFIG_H -DPCRE2_CODE_UNIT_WIDTH=8 -I"$work/inc"
                -I"$src/src")
  local f
  # pcre2_jit_compile.c gives the stubs of the JIT functions; pcre2_tables.c includes
  # pcre2_ucptables.c.
  for f in "$src"/src/pcre2_{auto_possess,compile,config,context,convert,dfa_match,error}.c \
           "$src"/src/pcre2_{extuni,find_bracket,jit_compile,maketables,match,match_data}.c \
           "$src"/src/pcre2_{newline,ord2utf,pattern_info,script_run,serialize}.c \
           "$src"/src/pcre2_{string_utils,study,substitute,substring,tables,ucd,valid_utf}.c \
           "$src/src/pcre2_xclass.c" "$work/inc/pcre2_chartables.c" "$src/src/pcre2grep.c"; do
    gcc "${cflags[@]}" -c "$f" -o "$work/obj/$(basename "${f%.c}").o"
    gcc "${cflags[@]}" -finstrument-functions -c "$f" -o "$work/prof/$(basename "${f%.c}").o"
  done
  gcc "$work"/prof/*.o "$work/lgtrace.o" "$work/prf_write.o" -o "$work/prog-prof"

  # The data, the same on every run. TRAIN: an application's logs from four hosts (2.4 MB of
  # ASCII, key=value fields, stack traces after some errors) from a fixed-seed Lehmer generator
  # (exact in any awk's doubles). EVAL: seven chapters of pcre2's own manual (110 kB of English
  # prose, from doc/pcre2.txt) and customer notes in UTF-8 (65 kB, six languages in five
  # scripts) from the same generator. Each also gets what its check must find, counted here.
  awk -v dir="$work/data" '
    function rand_() { x = (x * 48271) % 2147483647; return x }
    function pick(a, n) { return a[1 + rand_() % n] }
    BEGIN {
      x = 1234567
      nu = split("anna ben carla david emma felix greta hugo ida jonas karin lukas mia nils",
                 user, " ")
      nd = split("example.com example.com mail.example.net corp.example.org", domain, " ")
      np = split("/api/v1/items /api/v1/items /api/v1/users /api/v1/orders /health /health " \
                 "/static/app.js /login /admin/settings /search", path, " ")
      nm = split("GET GET GET GET POST POST PUT DELETE", method, " ")
      nl = split("DEBUG DEBUG INFO INFO INFO INFO INFO WARN ERROR", level, " ")
      nf = split("handler.go db.go cache.go auth.go router.go", file, " ")
      for (h = 1; h <= 4; h++) {
        out = sprintf("%s/app-%d.log", dir, h)
        t = 3600 * 6
        for (i = 0; i < 4000; i++) {
          t += rand_() % 4
          r = rand_()
          lv = pick(level, nl)
          errors += lv == "ERROR" || lv == "WARN"
          stamp = sprintf("2024-05-03T%02d:%02d:%02d.%03dZ web-%02d app[%d]:", int(t / 3600) % 24,
                          int(t / 60) % 60, t % 60, r % 1000, h, 2000 + h * 17)
          if (lv == "DEBUG")
            printf "%s level=DEBUG msg=\"cache lookup\" key=item:%d hit=%s\n", stamp, r % 9000,
              r % 3 ? "true" : "false" >out
          else if (lv == "WARN")
            printf "%s level=WARN msg=\"slow query\" table=%s rows=%d dur_ms=%d.%d\n", stamp,
              pick(path, np), r % 5000, 200 + r % 3000, r % 10 >out
          else if (lv == "ERROR") {
            printf "%s level=ERROR msg=\"%s\" path=%s retry=%d ip=10.%d.%d.%d\n", stamp,
              r % 5 ? "upstream timeout" : "panic: nil pointer dereference", pick(path, np),
              r % 4, r % 256, int(r / 256) % 256, int(r / 65536) % 256 >out
            if (r % 5 == 0)
              for (k = 0; k < 3; k++)
                printf "    at main.%s (%s:%d)\n", pick(method, nm), pick(file, nf),
                  10 + rand_() % 900 >out
          } else
            printf "%s level=INFO msg=\"request completed\" method=%s path=%s/%d status=%d dur_ms=%d.%d user=%s@%s ip=192.168.%d.%d\n",
              stamp, pick(method, nm), pick(path, np), r % 1000,
              (r % 23 == 0) ? 500 + r % 4 : (r % 7 == 0 ? 404 : 200), r % 400 + (r % 97 == 0) * 4000,
              int(r / 10) % 10, pick(user, nu), pick(domain, nd), int(r / 7) % 256,
              int(r / 1792) % 256 >out
        }
        printf "app-%d.log:%d\n", h, errors >(dir "/logs.expect")
        errors = 0
      }
    }'
  # The manual's chapters from pcre2build to pcre2partial, one file each as pcre2build.txt...
  awk -v dir="$work/data" '
    /^PCRE2[A-Z]*\(3\) / { name = tolower(substr($1, 1, index($1, "(") - 1)) }
    /^PCRE2PATTERN\(3\) / { exit }
    name != "" && name != "pcre2" && name != "pcre2api" { print >(dir "/" name ".txt") }
  ' "$src/doc/pcre2.txt"
  awk -v dir="$work/data" '
    function rand_() { x = (x * 48271) % 2147483647; return x }
    function pick(a, n) { return a[1 + rand_() % n] }
    BEGIN {
      x = 777
      # Per language: first names, family names, cities, words, a currency format.
      lang[1] = "de"; lang[2] = "fr"; lang[3] = "el"; lang[4] = "ru"; lang[5] = "ja"; lang[6] = "en"
      first["de"] = "Jürgen Björn Käthe Günther Lena Max Sören Jörg"
      last["de"] = "Müller Schäfer Groß Weiß Köhler Bäcker Fuchs Krüger"
      city["de"] = "München Köln Düsseldorf Nürnberg Straßburg Lübeck"
      word["de"] = "Lieferung verspätet Rückgabe Straße Größe bestätigt Rechnung Überweisung prüfen dringend"
      first["fr"] = "Élodie François Hélène Jérôme Zoé Anaïs Noël Cécile"
      last["fr"] = "Lefèvre Dupré Bénard Girard Rivière Lemaître Chevalier Mercier"
      city["fr"] = "Orléans Besançon Nîmes Genève Montréal Sète"
      word["fr"] = "livraison retardée élan reçu façon problème remboursé déjà colis vérifié"
      first["el"] = "Γιώργος Μαρία Ελένη Νίκος Σοφία Δημήτρης Άννα Κώστας"
      last["el"] = "Παπαδόπουλος Οικονόμου Γεωργίου Νικολάου Αλεξίου Βλάχος"
      city["el"] = "Αθήνα Θεσσαλονίκη Πάτρα Ηράκλειο Βόλος ΑΘΉΝΑ"
      word["el"] = "παραγγελία καθυστέρηση επιστροφή πληρωμή δέμα ευχαριστώ πρόβλημα γρήγορα"
      first["ru"] = "Иван Ольга Дмитрий Наталья Сергей Юлия Алексей Мария"
      last["ru"] = "Иванов Смирнова Кузнецов Попова Соколов Лебедева Новиков"
      city["ru"] = "Москва Казань Самара Новосибирск Пермь МОСКВА"
      word["ru"] = "доставка задержка возврат оплата посылка спасибо проблема срочно"
      first["ja"] = "ハルト ユイ ソウタ ミオ レン アオイ"
      last["ja"] = "佐藤 鈴木 高橋 田中 伊藤 渡辺"
      city["ja"] = "東京 大阪 京都 札幌 福岡"
      word["ja"] = "配送 遅延 返品 支払い 荷物 ありがとう 問題 至急"
      first["en"] = "Oliver Amelia Jack Isla Harry Ava Noah Grace"
      last["en"] = "Smith Jones Taylor Brown Williams Wilson Evans"
      city["en"] = "London Leeds Bristol Dublin Boston Perth"
      word["en"] = "delivery delayed return payment parcel thanks problem urgent the the"
      for (l = 1; l <= 6; l++) {
        g = lang[l]
        nfirst[g] = split(first[g], F, " "); for (k in F) first_[g, k] = F[k]
        nlast[g] = split(last[g], F, " "); for (k in F) last_[g, k] = F[k]
        ncity[g] = split(city[g], F, " "); for (k in F) city_[g, k] = F[k]
        nword[g] = split(word[g], F, " "); for (k in F) word_[g, k] = F[k]
      }
      out = dir "/notes.txt"
      for (i = 1; i <= 500; i++) {
        g = lang[1 + rand_() % 6]
        r = rand_()
        amount = sprintf("%d.%02d", 1 + r % 900, int(r / 900) % 100)
        if (g == "de" || g == "fr" || g == "el") { sub(/\./, ",", amount); amount = amount " €" }
        else if (g == "ru") { sub(/\./, ",", amount); amount = amount " ₽" }
        else if (g == "ja") amount = "¥" (1 + r % 90000)
        else amount = (r % 2 ? "£" : "$") amount
        text = ""
        for (k = 3 + rand_() % 8; k > 0; k--)
          text = text " " word_[g, 1 + rand_() % nword[g]]
        line = sprintf("%05d [%s] %s %s, %s: %s;%s id=%d", i, g,
          first_[g, 1 + rand_() % nfirst[g]], last_[g, 1 + rand_() % nlast[g]],
          city_[g, 1 + rand_() % ncity[g]], amount, text, r % 100000)
        print line >out
        # The lines pcre2_eval finds with its caseless search: every case in which these words
        # occur here.
        found += index(line, "Straße") || index(line, "élan") || index(line, "Αθήνα") ||
                 index(line, "ΑΘΉΝΑ") || index(line, "Москва") || index(line, "МОСКВА")
      }
      print found >(dir "/notes.expect")
    }'
  # The terms a support engineer searches the notes for, one per line, for -F -f.
  printf '%s\n' Rückgabe remboursé επιστροφή возврат 返品 return urgent срочно 至急 >"$work/data/terms.txt"
}
# TRAIN: a morning's look at the application logs: error counts per file, server errors with line
# numbers, the users and slow requests as extracted fields, an inverted multi-pattern count,
# panics with their stack traces, files naming a path. ASCII, case-sensitive, simple classes and
# repeats, no Unicode. pcre2grep exits with 1 when nothing matches: every search here must match.
pcre2_train() {
  local run=$1 data=$build/bench-pcre2/data tmp=$build/bench-pcre2/tmp
  (
    cd "$data" || exit 1
    # pcre2grep reads LC_ALL and LC_CTYPE only: without them it uses its built-in tables.
    unset LC_ALL LC_CTYPE
    "$run" -c 'level=(ERROR|WARN)' app-*.log >"$tmp/train-counts.out" &&
    "$run" -n 'status=5\d\d' app-1.log &&
    "$run" -h -o 'user=[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}' app-*.log &&
    "$run" -v -c -e 'level=DEBUG' -e 'path=/health' app-*.log &&
    "$run" -A3 -w 'panic' app-2.log app-3.log &&
    "$run" -h -o 'dur_ms=[0-9]{4,}\.[0-9]' app-*.log &&
    "$run" -l 'path=/admin/settings/9[0-9]{2} ' app-*.log &&
    "$run" -h -o 'ip=\d{1,3}(\.\d{1,3}){3}' app-4.log
  ) >"$tmp/train.out" || return 1
  # The counts of errors and warnings as the generator counted them.
  cmp "$data/logs.expect" "$tmp/train-counts.out" >&2 || return 1
  cat "$tmp/train-counts.out" "$tmp/train.out" | md5sum
}
# EVAL: another day: looking things up in the manual and in customer notes, with the features
# TRAIN never uses: caseless matching, backreferences, lookahead and lookbehind, recursion,
# multiline matching, Unicode properties and caseless UTF-8, fixed strings from a file, captured
# groups as output, context lines.
pcre2_eval() {
  local run=$1 data=$build/bench-pcre2/data tmp=$build/bench-pcre2/tmp
  (
    cd "$data" || exit 1
    unset LC_ALL LC_CTYPE
    "$run" -n -i '\b(\w+)\s+\1\b' pcre2*.txt &&
    "$run" -o '\b\w+(?=\(\))' pcre2*.txt &&
    "$run" -c -i -e 'unicode|utf-?(8|16|32)' -e 'new ?line' pcre2*.txt &&
    "$run" -o '(?<![\w-])--?[a-z][a-z0-9]*+(?:-[a-z0-9]+)*+(?![\w-])' pcre2*.txt &&
    "$run" -M -n '^[A-Z][A-Z0-9 ]{5,}\n\n\s+\S.*' pcre2*.txt &&
    "$run" -o '\((?:[^()]++|(?R))*\)' pcre2*.txt &&
    "$run" -u -o '\p{Lu}\p{Ll}+(?:\s\p{Lu}\p{Ll}+)+' notes.txt &&
    "$run" -u -c -i 'straße|élan|αθήνα|москва' notes.txt >"$tmp/eval-count.out" &&
    "$run" -u -o '\d+(?:,\d{2})?\s?[€₽]|[£$¥]\d+(?:\.\d{2})?' notes.txt &&
    "$run" -u -o '\p{Greek}+|\p{Cyrillic}+|\p{Han}+|\p{Katakana}+' notes.txt &&
    "$run" -u -F -w -B1 -f terms.txt notes.txt &&
    "$run" -u -o1 -o2 --om-separator=' ' '(*UCP)\[(\w\w)\][^:]*?(\w+):' notes.txt
  ) >"$tmp/eval.out" || return 1
  # The caseless UTF-8 count as the generator counted it.
  cmp "$data/notes.expect" "$tmp/eval-count.out" >&2 || return 1
  cat "$tmp/eval-count.out" "$tmp/eval.out" | md5sum
}
