# tcc for tests/bench/real_programs.sh (sourced): the Tiny C Compiler compiling C to objects.
# Built without its configure and Makefile: the config.h below is the one configure writes on
# Debian 12 x86-64 (with --triplet=x86_64-linux-gnu, as Debian's build passes), except that
# tcc's own directory (its stddef.h, stdarg.h... headers) is WORK/tccdir. The sources are those
# the Makefile compiles for the native x86-64 compiler when not in ONE_SOURCE mode: one object
# each, so the link orders can move the parts of the compiler apart.
#
# Each workload checks what tcc made by linking it with gcc and running it: TRAIN, a bootstrap
# (the tcc that tcc compiled must compile itself to the same object); EVAL, a Lua interpreter
# whose core files tcc compiled must print what the one gcc compiled prints.
tcc_build() {
  local work=$1 src=$cache/tcc lua=$cache/lua5.4
  fetch_source tcc "$src"
  fetch_source lua5.4 "$lua"
  title="tcc $(debian_version tcc)"
  libs="-lm -ldl -lpthread"
  mkdir -p "$work/inc" "$work/tccdir" "$work/data" "$work/tmp" "$work/rt" "$work/lua-gcc"
  cat >"$work/inc/config.h" <<EOF
#define CONFIG_TCCDIR "$work/tccdir"
#define TCC_VERSION "$(cat "$src/VERSION")"
#define GCC_MAJOR $(gcc -dumpfullversion | cut -d. -f1)
#define GCC_MINOR $(gcc -dumpfullversion | cut -d. -f2)
#define CC_NAME CC_gcc
EOF
  cp -r "$src/include" "$work/tccdir/"
  # The flags of configure's config.mak and the Makefile's native DEFINES.
  local cflags=(-O2 -ffunction-sections -fno-strict-aliasing -Wall -Wno-pointer-sign
                -Wno-sign-compare -Wno-unused-result -Wno-format-truncation -DONE_SOURCE=0
                '-DCONFIG_TRIPLET="x86_64-linux-gnu"' -DTCC_TARGET_X86_64 -I"$work/inc" -I"$src")
  local f
  for f in tcc libtcc tccpp tccgen tccelf tccasm tccrun x86_64-gen x86_64-link i386-asm; do
    gcc "${cflags[@]}" -c "$src/$f.c" -o "$work/obj/$f.o"
    gcc "${cflags[@]}" -finstrument-functions -c "$src/$f.c" -o "$work/prof/$f.o"
  done
  gcc "$work"/prof/*.o "$work/lgtrace.o" "$work/prf_write.o" $libs -o "$work/prog-prof"

  # For EVAL's check: tcc's run-time helpers (long double conversions, va_arg), which objects
  # tcc makes may call, built with gcc as tcc's lib/Makefile allows; the Lua interpreter's
  # files compiled by gcc, with the flags of lua.sh (Debian's); that interpreter's output.
  gcc -O2 -c "$src/lib/libtcc1.c" -o "$work/rt/libtcc1.o"
  gcc -O2 -c "$src/lib/va_list.c" -o "$work/rt/va_list.o"
  echo "#define DEB_HOST_MULTIARCH \"$(gcc -dumpmachine)\"" >"$work/inc/lua5.4-deb-multiarch.h"
  for f in "$lua"/src/*.c; do
    case $(basename "$f") in luac.c) continue ;; esac
    gcc -O2 -DLUA_USE_POSIX -DLUA_USE_DLOPEN -I"$work/inc" -c "$f" \
      -o "$work/lua-gcc/$(basename "${f%.c}").o"
  done
  gcc "$work"/lua-gcc/*.o -lm -ldl -o "$work/lua-gcc/lua"
  "$work/lua-gcc/lua" "$root/tests/bench/programs/tcc-data/check.lua" >"$work/data/check.out"
}
# TRAIN: tcc's own build, by tcc: the compiler itself as one translation unit (tcc.c with
# ONE_SOURCE, 25,000 lines with the x86-64 code generator and assembler) with debug information
# (-g) and warnings, then its run-time library: two C files and one assembler file (alloca).
# Check: the tcc so made, linked, compiles tcc.c to the same object.
tcc_train() {
  local run=$1 src=$cache/tcc work=$build/bench-tcc tmp=$build/bench-tcc/tmp/train
  local flags=(-g -Wall -DONE_SOURCE=1 '-DCONFIG_TRIPLET="x86_64-linux-gnu"' -DTCC_TARGET_X86_64
               -I"$work/inc" -I"$src")
  rm -rf "$tmp" && mkdir -p "$tmp"
  "$run" -c "${flags[@]}" "$src/tcc.c" -o "$tmp/tcc.o" || return 1
  "$run" -c -g "$src/lib/libtcc1.c" -o "$tmp/libtcc1.o" || return 1
  "$run" -c -g "$src/lib/va_list.c" -o "$tmp/va_list.o" || return 1
  "$run" -c "$src/lib/alloca86_64.S" -o "$tmp/alloca86_64.o" || return 1
  gcc -Wl,-z,noexecstack "$tmp"/*.o -lm -ldl -lpthread -o "$tmp/tcc2" || return 1
  "$tmp/tcc2" -c "${flags[@]}" "$src/tcc.c" -o "$tmp/tcc2.o" || return 1
  cmp "$tmp/tcc.o" "$tmp/tcc2.o" >&2 || return 1
  cat "$tmp/tcc.o" "$tmp/libtcc1.o" "$tmp/va_list.o" "$tmp/alloca86_64.o" | md5sum
}
# EVAL: other code and other options: Lua's virtual machine (computed gotos), tables, objects
# (number formatting), string library and math library (floating point), as Lua's Makefile
# builds them (-std=gnu99 -O2 -Wall -Wextra, without debug information). Check: the Lua
# interpreter with those five objects instead of gcc's runs tcc-data/check.lua the same way.
tcc_eval() {
  local run=$1 lua=$cache/lua5.4 work=$build/bench-tcc tmp=$build/bench-tcc/tmp/eval
  local mine=(lvm ltable lobject lstrlib lmathlib) f
  rm -rf "$tmp" && mkdir -p "$tmp"
  for f in "${mine[@]}"; do
    "$run" -c -std=gnu99 -O2 -Wall -Wextra -DLUA_USE_POSIX -DLUA_USE_DLOPEN -I"$work/inc" \
      "$lua/src/$f.c" -o "$tmp/$f.o" || return 1
  done
  for f in "$work"/lua-gcc/*.o; do
    [ -e "$tmp/$(basename "$f")" ] || ln -s "$f" "$tmp/"
  done
  gcc -Wl,-z,noexecstack "$tmp"/*.o "$work"/rt/*.o -lm -ldl -o "$tmp/lua" || return 1
  "$tmp/lua" "$root/tests/bench/programs/tcc-data/check.lua" >"$tmp/check.out" || return 1
  cmp "$work/data/check.out" "$tmp/check.out" >&2 || return 1
  for f in "${mine[@]}"; do cat "$tmp/$f.o"; done | cat - "$tmp/check.out" | md5sum
}
