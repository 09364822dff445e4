# xz-utils for tests/bench/real_programs.sh (sourced).
# liblzma and the xz command, linked statically.
# Built without autotools: the config.h below holds what xz-utils' configure finds on Debian 12
# x86-64 with --disable-threads --disable-nls (threads off because the tracer records one thread;
# xz 5.4 compresses with one thread by default anyway). The sources are those that configure
# selects for that configuration. liblzma is linked into the program as objects instead of the
# shared library Debian ships, so that lorgen can order both.
xz_build() {
  local work=$1 src=$cache/xz-utils
  fetch_source xz-utils "$src"
  title="xz-utils $(debian_version xz-utils)"
  libs=
  mkdir -p "$work/inc" "$work/data" "$work/tmp"
  local version
  version=$(sed -n 's/^#define LZMA_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
    "$src/src/liblzma/api/lzma/version.h" | paste -sd.)
  cat >"$work/inc/config.h" <<EOF
#define _GNU_SOURCE 1
#define ASSUME_RAM 128
#define NDEBUG 1
#define PACKAGE "xz"
#define PACKAGE_NAME "XZ Utils"
#define PACKAGE_VERSION "$version"
#define PACKAGE_STRING "XZ Utils $version"
#define PACKAGE_TARNAME "xz"
#define PACKAGE_BUGREPORT "xz@tukaani.org"
#define PACKAGE_URL "https://tukaani.org/xz/"
#define VERSION "$version"
#define SIZEOF_SIZE_T 8
#define STDC_HEADERS 1
#define HAVE_CHECK_CRC32 1
#define HAVE_CHECK_CRC64 1
#define HAVE_CHECK_SHA256 1
#define HAVE_ENCODERS 1
#define HAVE_DECODERS 1
#define HAVE_ENCODER_LZMA1 1
#define HAVE_ENCODER_LZMA2 1
#define HAVE_ENCODER_DELTA 1
#define HAVE_ENCODER_X86 1
#define HAVE_ENCODER_POWERPC 1
#define HAVE_ENCODER_IA64 1
#define HAVE_ENCODER_ARM 1
#define HAVE_ENCODER_ARMTHUMB 1
#define HAVE_ENCODER_ARM64 1
#define HAVE_ENCODER_SPARC 1
#define HAVE_DECODER_LZMA1 1
#define HAVE_DECODER_LZMA2 1
#define HAVE_DECODER_DELTA 1
#define HAVE_DECODER_X86 1
#define HAVE_DECODER_POWERPC 1
#define HAVE_DECODER_IA64 1
#define HAVE_DECODER_ARM 1
#define HAVE_DECODER_ARMTHUMB 1
#define HAVE_DECODER_ARM64 1
#define HAVE_DECODER_SPARC 1
#define HAVE_LZIP_DECODER 1
#define HAVE_MF_HC3 1
#define HAVE_MF_HC4 1
#define HAVE_MF_BT2 1
#define HAVE_MF_BT3 1
#define HAVE_MF_BT4 1
#define HAVE_CPUID_H 1
#define HAVE_IMMINTRIN_H 1
#define HAVE_USABLE_CLMUL 1
#define HAVE__MM_MOVEMASK_EPI8 1
#define HAVE_FUNC_ATTRIBUTE_CONSTRUCTOR 1
#define HAVE___BUILTIN_ASSUME_ALIGNED 1
#define HAVE___BUILTIN_BSWAPXX 1
#define HAVE_VISIBILITY 1
#define HAVE_FCNTL_H 1
#define HAVE_FUTIMENS 1
#define HAVE_GETOPT_H 1
#define HAVE_GETOPT_LONG 1
#define HAVE_INTTYPES_H 1
#define HAVE_LIMITS_H 1
#define HAVE_MBRTOWC 1
#define HAVE_POSIX_FADVISE 1
#define HAVE_PROGRAM_INVOCATION_NAME 1
#define HAVE_STDBOOL_H 1
#define HAVE__BOOL 1
#define HAVE_STDINT_H 1
#define HAVE_STDIO_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_STRUCT_STAT_ST_ATIM_TV_NSEC 1
#define HAVE_SYS_PARAM_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UINTPTR_T 1
#define HAVE_UNISTD_H 1
#define HAVE_WCHAR_H 1
#define HAVE_WCWIDTH 1
#define TUKLIB_CPUCORES_SCHED_GETAFFINITY 1
#define TUKLIB_FAST_UNALIGNED_ACCESS 1
#define TUKLIB_PHYSMEM_SYSCONF 1
EOF
  local cflags=(-O2 -ffunction-sections -DHAVE_CONFIG_H -I"$work/inc" -I"$src/src/common"
                -I"$src/src/liblzma/api")
  local d f
  for d in common check lz rangecoder lzma delta simple; do cflags+=(-I"$src/src/liblzma/$d"); done
  xz_compile() { # SOURCE OBJECT FLAGS...
    local source=$1 object=$2
    shift 2
    gcc "${cflags[@]}" "$@" -c "$source" -o "$work/obj/$object"
    gcc "${cflags[@]}" "$@" -finstrument-functions -c "$source" -o "$work/prof/$object"
  }
  for f in "$src"/src/liblzma/{common,check,lz,rangecoder,lzma,delta,simple}/*.c \
           "$src/src/common/tuklib_physmem.c"; do
    case $(basename "$f") in
      *_small.c | *_tablegen.c | hardware_cputhreads.c | outqueue.c | *_mt.c) continue ;;
    esac
    xz_compile "$f" "lzma-$(basename "${f%.c}").o" -DTUKLIB_SYMBOL_PREFIX=lzma_
  done
  for f in "$src"/src/xz/*.c "$src"/src/common/tuklib_{open_stdxxx,progname,exit,mbstr_width,mbstr_fw}.c; do
    xz_compile "$f" "xz-$(basename "${f%.c}").o" -DLOCALEDIR=\"/usr/share/locale\"
  done
  gcc "$work"/prof/*.o "$work/lgtrace.o" "$work/prf_write.o" -o "$work/prog-prof"

  # The data, the same on every run. TRAIN: xz-utils' own C sources (1.4 MB). EVAL: its
  # translations (0.8 MB of natural-language text) and a synthetic web-server log (1.3 MB) from
  # a fixed-seed Lehmer generator (exact in any awk's doubles).
  (cd "$src" && find src -name '*.[ch]' | LC_ALL=C sort | xargs cat) >"$work/data/src.txt"
  (cd "$src" && ls po/*.po | LC_ALL=C sort | xargs cat) >"$work/data/po.txt"
  awk 'BEGIN {
    x = 20251122
    split("GET GET GET GET POST HEAD PUT", method, " ")
    split("/ /index.html /api/v1/items /api/v1/users /static/app.js /static/style.css " \
          "/images/logo.png /login /search /feed.xml", path, " ")
    split("200 200 200 200 200 304 301 404 500", status, " ")
    for (i = 0; i < 12000; i++) {
      x = (x * 48271) % 2147483647; a = x % 256
      x = (x * 48271) % 2147483647; b = x % 256
      x = (x * 48271) % 2147483647; t = x % 86400
      x = (x * 48271) % 2147483647; r = x
      printf "10.%d.%d.%d - - [22/Nov/2026:%02d:%02d:%02d +0000] \"%s %s?id=%d HTTP/1.1\" %s %d \"-\" \"agent/%d.%d\"\n",
        a, b, r % 200, int(t / 3600), int(t / 60) % 60, t % 60, method[1 + r % 7],
        path[1 + int(r / 7) % 10], r % 100000, status[1 + int(r / 70) % 9], 200 + r % 50000,
        1 + int(r / 700) % 9, int(r / 7000) % 10
    }
  }' >"$work/data/log.txt"
}
# TRAIN: compress the C sources at the default level (-6: binary-tree match finder, normal
# parser) and decompress them.
xz_train() {
  local run=$1 data=$build/bench-xz/data tmp=$build/bench-xz/tmp
  "$run" -q -c -6 "$data/src.txt" >"$tmp/train.xz"
  "$run" -q -dc "$tmp/train.xz" >"$tmp/train.out"
  cmp "$data/src.txt" "$tmp/train.out" >&2 || return 1
  md5sum <"$tmp/train.xz"
}
# EVAL: other data and other settings: the translations at -7 (a larger dictionary), the log at
# -2 (hash-chain match finder and the fast parser, which TRAIN never runs), then one process
# decompressing both.
xz_eval() {
  local run=$1 data=$build/bench-xz/data tmp=$build/bench-xz/tmp
  "$run" -q -c -7 "$data/po.txt" >"$tmp/po.xz"
  "$run" -q -c -2 "$data/log.txt" >"$tmp/log.xz"
  "$run" -q -dc "$tmp/po.xz" "$tmp/log.xz" >"$tmp/eval.out"
  cat "$data/po.txt" "$data/log.txt" | cmp - "$tmp/eval.out" >&2 || return 1
  cat "$tmp/po.xz" "$tmp/log.xz" | md5sum
}

