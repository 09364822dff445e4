# lib.bash - helpers for the end-to-end tests (sourced). Each test is called as
#   bash CASE.sh LORGEN_BINARY SOURCE_DIR SCRATCH_DIR

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

step() {
  echo "-- $*" >&2
}

# expect STATUS MESSAGE_FRAGMENT -- lorgen arguments...: runs $lorgen (the caller's) in the
# current directory; its exit status must be STATUS and its stderr (kept in err.txt, stdout in
# out.txt) must hold MESSAGE_FRAGMENT.
expect() {
  local want=$1 fragment=$2
  shift 3
  local status=0
  "$lorgen" "$@" >out.txt 2>err.txt || status=$?
  [ "$status" -eq "$want" ] || { cat err.txt >&2; fail "lorgen $*: exit $status, expected $want"; }
  grep -qF -- "$fragment" err.txt || { cat err.txt >&2; fail "lorgen $*: no '$fragment'"; }
}

have() {
  command -v "$1" >/dev/null 2>&1
}

# The function names of a .LOR in link order (quoted names are not used by these tests).
lor_functions() {
  awk '$1 == "fn" { print $2 }' "$1"
}

# check_order ELF NM LOR [IGNORED_NAME]
# Reads the linked ELF back: the functions the .LOR lists must appear in exactly that order, one
# after another, with no other function between the first and the last of them. IGNORED_NAME is
# left out on both sides (same-named statics that nothing tells apart move together). Another
# name of a listed function (an alias at its address, newlib's snprintf beside sniprintf) is
# that function, not a function between the ordered ones.
check_order() {
  local elf=$1 nm=$2 lor=$3 ignored=${4:-}
  local listed placed
  listed=$(lor_functions "$lor" | awk -v skip="$ignored" '$1 != skip')
  [ -n "$listed" ] || fail "$lor lists no functions"
  "$nm" -n --defined-only "$elf" |
    awk -v skip="$ignored" 'NR == FNR { want[$1] = 1; next }
                            $2 ~ /^[tTwW]$/ && $3 != skip { addr[NR] = $1; name[NR] = $3
                                                            if (want[$3]) listed_at[$1] = 1 }
                            END { for (i = 1; i <= NR; i++)
                                    if (i in name && (want[name[i]] || !listed_at[addr[i]]))
                                      print name[i] }' <(printf '%s\n' "$listed") - >"$elf.syms"
  placed=$(awk 'NR == FNR { want[$1] = 1; next } want[$1] { print $1 }' \
    <(printf '%s\n' "$listed") "$elf.syms")
  if [ "$placed" != "$listed" ]; then
    diff <(printf '%s\n' "$listed") <(printf '%s\n' "$placed") >&2 || true
    fail "$elf: functions are not in the .LOR order (left: .LOR, right: ELF)"
  fi
  # Contiguity: between the first and last listed function, only listed functions.
  local intruders
  intruders=$(awk 'NR == FNR { want[$1] = 1; total++; next }
                   want[$1] { seen++; inside = seen < total; next }
                   inside { print $1 }' <(printf '%s\n' "$listed") "$elf.syms")
  [ -z "$intruders" ] || fail "$elf: other functions sit between the ordered ones: $intruders"
  echo "   $elf: $(printf '%s\n' "$listed" | wc -l) functions in .LOR order" >&2
}

# Builds the example tracer runtime (not instrumented) into DIR with CC; prints the objects.
build_tracer() {
  local cc=$1 dir=$2 src=$3
  mkdir -p "$dir"
  "$cc" -O2 -I"$src/loaders" -I"$src/src/core" -c "$src/examples/tracer/lgtrace.c" -o "$dir/lgtrace.o"
  "$cc" -O2 -I"$src/loaders" -I"$src/src/core" -c "$src/loaders/prf_write.c" -o "$dir/prf_write.o"
  echo "$dir/lgtrace.o $dir/prf_write.o"
}

# build_and_trace SRC_DIR PROGRAM PROFILE CFLAGS FILE...: compiles each SRC_DIR/FILE.c twice in
# the current directory, plain into obj/ and with -finstrument-functions into prof/, links
# PROGRAM (its output into base.out) and PROGRAM-prof with the example tracer, and runs that
# to write PROFILE (its output into prof.out). Uses the calling script's $src (the source tree)
# for the tracer.
build_and_trace() {
  local dir=$1 program=$2 profile=$3 cflags=$4 f tracer
  shift 4
  mkdir -p obj prof
  for f in "$@"; do
    # shellcheck disable=SC2086 # CFLAGS is words on purpose
    gcc $cflags -c "$dir/$f.c" -o "obj/$f.o"
    # shellcheck disable=SC2086
    gcc $cflags -finstrument-functions -c "$dir/$f.c" -o "prof/$f.o"
  done
  gcc obj/*.o -o "$program"
  "./$program" >base.out
  tracer=$(build_tracer gcc tracer "$src")
  # shellcheck disable=SC2086 # $tracer is two objects
  gcc prof/*.o $tracer -o "$program-prof"
  LGTRACE_OUT=$profile "./$program-prof" >prof.out
}

# toolchain_script CC OUT ARGS...: the linker script CC's linker takes by default for a link of
# ARGS (printed by --verbose), into OUT. Fails when it has no .text statement to add before.
toolchain_script() {
  local cc=$1 out=$2
  shift 2
  "$cc" -Wl,--verbose "$@" -o "$out.probe" >"$out.verbose"
  awk '/^=====/ { n++; next } n == 1' "$out.verbose" >"$out"
  grep -q '^  \.text  *:' "$out" || fail "the toolchain's script has no .text statement"
}

# before_text SCRIPT OUT STATEMENT...: SCRIPT with the output-section statements, one a line,
# put before its .text statement (where a fast region's section goes), into OUT.
before_text() {
  local script=$1 out=$2
  shift 2
  STATEMENTS=$(printf '%s\n' "$@") awk '
    /^  \.text  *:/ && !done { print ENVIRON["STATEMENTS"]; done = 1 } { print }' \
    "$script" >"$out"
}

# newlib_nano LIBC_VAR LIBGCC_VAR ARCH...: sets the variables named LIBC_VAR and LIBGCC_VAR to
# the libc_nano.a and libgcc.a arm-none-eabi-gcc links for ARCH; skips the test (exit 77) when
# the compiler or newlib's libc_nano.a is not installed.
newlib_nano() {
  local libc_var=$1 libgcc_var=$2 path
  shift 2
  have arm-none-eabi-gcc || { echo "SKIP: arm-none-eabi-gcc is not installed" >&2; exit 77; }
  path=$(arm-none-eabi-gcc "$@" -print-file-name=libc_nano.a)
  [ -f "$path" ] || { echo "SKIP: newlib's libc_nano.a is not installed ($path)" >&2; exit 77; }
  printf -v "$libc_var" '%s' "$path"
  printf -v "$libgcc_var" '%s' "$(arm-none-eabi-gcc "$@" -print-libgcc-file-name)"
}
