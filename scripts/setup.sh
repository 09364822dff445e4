#!/usr/bin/env bash
# Installs everything lorgen needs to build, test and run its examples on Debian 12.
# Idempotent: installs only what is missing, and does nothing when all is there.
set -euo pipefail

packages=(
  build-essential cmake pkg-config          # build
  libigraph-dev libelf-dev libcmocka-dev libexpat1-dev  # libraries
  binutils valgrind python3 lld             # linkers and tools the tests use
  clang libclang-rt-14-dev strace           # tests/fuzz (libFuzzer); errors.sh watches opens
  chromium                                  # loads --report-html in tests/e2e/report_html.sh
  gcc-sh4-linux-gnu binutils-sh4-linux-gnu libc6-dev-sh4-cross  # SH-4 cross builds
  gcc-arm-none-eabi binutils-arm-none-eabi libnewlib-arm-none-eabi
  gcc-riscv64-linux-gnu binutils-riscv64-linux-gnu libc6-dev-riscv64-cross  # runs under qemu
  qemu-user
  qemu-system-arm                           # runs the Cortex-M firmware of tests/e2e/cortex_m.sh
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  as_root=(sudo)
fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
