#!/bin/sh
# setup.sh: installs every Debian package that nessie's build and tests
# need.  Idempotent and non-interactive; run as root or through sudo.
set -eu
# tmux: tests/repl/terminal.sh types at the REPL on a terminal (procps:
# pgrep, interrupt.sh finds its process); graphviz: --dump=pdg pictures
# (docs/); gnuplot-nox (gnuplot without X, with the
# pngcairo terminal) and python3: the benchmarks' harness and charts
# (make bench, make bench-cpu, make bench-chart); g++: the bench suite
# builds a CUDA baseline as host C++ (tests/suites/bench.sh); nettle-dev:
# SHA-256, the build cache's keys (codegen/cache.c); dpkg-dev: make deb
# computes the package's Depends with its dpkg-shlibdeps (dpkg-deb itself
# is in dpkg, always there)
PACKAGES="gcc g++ clang make re2c bison pkg-config libgc-dev libglpk-dev libedit-dev nettle-dev libcmocka-dev tmux procps graphviz gnuplot-nox python3 python3-numpy dpkg-dev"

missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
  echo "setup: installing:$missing"
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # shellcheck disable=SC2086
  $SUDO apt-get install -y -qq --no-install-recommends $missing
else
  echo "setup: all packages present ($PACKAGES)"
fi

# libFuzzer (make fuzz) ships with clang; its runtime is in libclang-rt-*-dev
# on newer Debian releases and inside clang's own package on Debian 12.

if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: CUDA toolkit found (nvcc)"
else
  echo "setup: note: nvcc not found; the CUDA toolkit is needed only for the GPU target"
fi
