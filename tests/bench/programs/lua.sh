# lua5.4 for tests/bench/real_programs.sh (sourced): the Lua interpreter running
# programs/lua-data/train.lua to profile and eval.lua to measure.
lua_build() {
  local work=$1 src=$cache/lua5.4
  fetch_source lua5.4 "$src"
  title="lua5.4 $(debian_version lua5.4)"
  libs="-lm -ldl"
  mkdir -p "$work/inc"
  # Debian's patches include a header its build generates.
  echo "#define DEB_HOST_MULTIARCH \"$(gcc -dumpmachine)\"" >"$work/inc/lua5.4-deb-multiarch.h"
  local cflags="-O2 -ffunction-sections -DLUA_USE_POSIX -DLUA_USE_DLOPEN -I$src/src -I$work/inc"
  for f in "$src"/src/*.c; do
    case $(basename "$f") in luac.c) continue ;; esac
    gcc $cflags -c "$f" -o "$work/obj/$(basename "${f%.c}").o"
    gcc $cflags -finstrument-functions -c "$f" -o "$work/prof/$(basename "${f%.c}").o"
  done
  gcc "$work"/prof/*.o "$work/lgtrace.o" "$work/prf_write.o" $libs -o "$work/prog-prof"
}
lua_train() { "$1" "$root/tests/bench/programs/lua-data/train.lua"; }
lua_eval() { "$1" "$root/tests/bench/programs/lua-data/eval.lua"; }

