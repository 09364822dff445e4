# opus for tests/bench/real_programs.sh (sourced).
# libopus (float build) and its opus_demo tool, linked statically, encoding and decoding raw PCM.
# Built without autotools, as upstream's Makefile.unix does: the sources are those its
# silk_sources.mk, celt_sources.mk and opus_sources.mk list for the float build, and the
# config.h below holds what configure defines on Debian 12 x86-64 with Debian's
# --enable-custom-modes, but without the x86 SSE/SSE4.1/AVX sources: with them, libopus calls
# some DSP kernels through tables of function pointers filled by run-time CPU detection, so the
# code that runs would depend on the machine. This is the plain C build (--disable-intrinsics).
opus_build() {
  local work=$1 src=$cache/opus
  fetch_source opus "$src"
  title="opus $(debian_version opus)"
  libs=-lm
  mkdir -p "$work/inc" "$work/data" "$work/tmp"
  local version
  version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/package_version")
  cat >"$work/inc/config.h" <<EOF
#define OPUS_BUILD /**/
#define CUSTOM_MODES 1
#define VAR_ARRAYS 1
#define HAVE_LRINT 1
#define HAVE_LRINTF 1
#define HAVE_DLFCN_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRINGS_H 1
#define HAVE_STRING_H 1
#define HAVE_SYS_STAT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_UNISTD_H 1
#define STDC_HEADERS 1
#define PACKAGE_BUGREPORT "opus@xiph.org"
#define PACKAGE_NAME "opus"
#define PACKAGE_STRING "opus $version"
#define PACKAGE_TARNAME "opus"
#define PACKAGE_URL ""
#define PACKAGE_VERSION "$version"
EOF
  # mk_list FILE VARIABLE: the sources a make variable of upstream's .mk files lists.
  mk_list() {
    awk -v var="$2" '!on && $1 == var && $2 == "=" { on = 1; first = 3 }
      on { for (i = first; i <= NF; i++) if ($i != "\\") print $i
           first = 1; if ($NF != "\\") on = 0 }' "$src/$1"
  }
  # -Wno-stringop-overread: GCC 12 misreads silk_NSQ's array parameters (a false alarm).
  local cflags=(-O2 -ffunction-sections -Wno-stringop-overread -DHAVE_CONFIG_H -I"$work/inc"
                -I"$src/include" -I"$src/celt" -I"$src/silk" -I"$src/silk/float")
  local f object
  for f in $(mk_list silk_sources.mk SILK_SOURCES) $(mk_list silk_sources.mk SILK_SOURCES_FLOAT) \
           $(mk_list celt_sources.mk CELT_SOURCES) $(mk_list opus_sources.mk OPUS_SOURCES) \
           $(mk_list opus_sources.mk OPUS_SOURCES_FLOAT) src/opus_demo.c; do
    # silk/float/x.c -> silk-float-x.o: unique names for the harness's flat object folder.
    object=$(echo "${f%.c}" | tr / -).o
    gcc "${cflags[@]}" -c "$src/$f" -o "$work/obj/$object"
    gcc "${cflags[@]}" -finstrument-functions -c "$src/$f" -o "$work/prof/$object"
  done
  gcc "$work"/prof/*.o "$work/lgtrace.o" "$work/prf_write.o" $libs -o "$work/prog-prof"

  # The signals, the same on every run, from a small generator with a fixed-seed LCG
  # (opus-data/pcmgen.c): speech-like sound (voiced vowels with a gliding pitch, fricatives,
  # pauses) and music-like sound (panned harmonic notes, a bass line, noise drums, a chirp).
  # Short, because every second of 48 kHz stereo costs the encoder about 90 million instructions.
  gcc -O2 -o "$work/pcmgen" "$root/tests/bench/programs/opus-data/pcmgen.c" -lm
  "$work/pcmgen" speech 16000 2 20251122 >"$work/data/speech16.pcm"
  "$work/pcmgen" speech 8000 2 31337 >"$work/data/speech8.pcm"
  "$work/pcmgen" music 48000 1.2 4242 >"$work/data/music48.pcm"
  "$work/pcmgen" music 48000 0.5 99 >"$work/data/music48b.pcm"
  "$work/pcmgen" speech 48000 0.6 777 >"$work/data/speech48.pcm"
}
# opus_run COMMAND...: runs opus_demo, whose statistics on stderr are shown only if it fails
# (it fails, among others, when the decoder's range coder state differs from the encoder's).
opus_run() {
  local tmp=$build/bench-opus/tmp
  "$@" 2>"$tmp/stderr" || { cat "$tmp/stderr" >&2; return 1; }
}
# opus_check INPUT OUTPUT: the decoded sound covers the input, and is at most a few frames
# longer (the encoder pads the last frame).
opus_check() {
  local in out
  in=$(stat -c %s "$1") out=$(stat -c %s "$2")
  if [ "$out" -lt "$in" ] || [ "$out" -gt $((in + in / 10 + 4000)) ]; then
    echo "opus: $2 has $out bytes for $in bytes of input" >&2
    return 1
  fi
}
# TRAIN: a voice call: speech at 16 kHz mono, VoIP application, 16 kb/s VBR with DTX, encoded
# and decoded in one process at the default complexity (10: SILK wideband, with the encoder's
# signal analysis); then a narrowband phone leg: 8 kHz at 8 kb/s CBR in 40 ms frames at
# complexity 3, encoded to a bitstream by one process and decoded by another.
opus_train() {
  local run=$1 data=$build/bench-opus/data tmp=$build/bench-opus/tmp
  opus_run "$run" voip 16000 1 16000 -dtx "$data/speech16.pcm" "$tmp/train16.pcm" || return 1
  opus_run "$run" -e voip 8000 1 8000 -cbr -framesize 40 -complexity 3 \
    "$data/speech8.pcm" "$tmp/train8.bit" || return 1
  opus_run "$run" -d 8000 1 "$tmp/train8.bit" "$tmp/train8.pcm" || return 1
  opus_check "$data/speech16.pcm" "$tmp/train16.pcm" || return 1
  opus_check "$data/speech8.pcm" "$tmp/train8.pcm" || return 1
  cat "$tmp/train16.pcm" "$tmp/train8.bit" "$tmp/train8.pcm" | md5sum
}
# EVAL: music and other settings: 48 kHz stereo music at 96 kb/s constrained VBR, complexity 8
# (CELT), encoded by one process and decoded by another that loses 8% of the packets (CELT
# packet-loss concealment); other music in the restricted-low-delay application (CELT only) at
# 64 kb/s in 5 ms frames, complexity 4; speech at 48 kHz mono, 32 kb/s (hybrid SILK+CELT) with
# in-band FEC, 10% of the packets lost (decoded from the next packet's FEC), complexity 6.
opus_eval() {
  local run=$1 data=$build/bench-opus/data tmp=$build/bench-opus/tmp
  opus_run "$run" -e audio 48000 2 96000 -cvbr -complexity 8 \
    "$data/music48.pcm" "$tmp/music.bit" || return 1
  opus_run "$run" -d 48000 2 -loss 8 "$tmp/music.bit" "$tmp/music.pcm" || return 1
  opus_run "$run" restricted-lowdelay 48000 2 64000 -framesize 5 -complexity 4 \
    "$data/music48b.pcm" "$tmp/lowdelay.pcm" || return 1
  opus_run "$run" voip 48000 1 32000 -inbandfec -loss 10 -complexity 6 \
    "$data/speech48.pcm" "$tmp/hybrid.pcm" || return 1
  opus_check "$data/music48.pcm" "$tmp/music.pcm" || return 1
  opus_check "$data/music48b.pcm" "$tmp/lowdelay.pcm" || return 1
  opus_check "$data/speech48.pcm" "$tmp/hybrid.pcm" || return 1
  cat "$tmp/music.bit" "$tmp/music.pcm" "$tmp/lowdelay.pcm" "$tmp/hybrid.pcm" | md5sum
}
