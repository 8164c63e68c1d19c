#!/bin/sh
# tools/gpu-bundle.sh [BUILD] [DEST]: packs what `make gpu-test` needs on a
# GPU machine that has nvcc but not nessie's build dependencies (Boehm GC,
# libedit, GLPK): BUILD/nessie, its runtime (BUILD/lib/nessie), nesl_compare,
# and the shared libraries nessie links, into DEST (default .gpu, which
# git ignores: a device call names it in carry).  There:
#   LD_LIBRARY_PATH=.gpu/lib sh tests/gpu/run.sh .gpu/build OUTDIR "memcheck ..."
# The executables are built there, by nessie with that machine's nvcc.
set -eu
BUILD=${1:-build}
DEST=${2:-.gpu}
# everything first, before DEST is touched: a half-made bundle fails on
# the GPU machine with a missing library, after the device time is spent
for f in "$BUILD/nessie" "$BUILD/nesl_compare" "$BUILD/lib/nessie/libnessie_rt_cuda.a"; do
  [ -e "$f" ] || { echo "tools/gpu-bundle.sh: $f is missing (make BUILD=$BUILD all $BUILD/nesl_compare)" >&2; exit 1; }
done
rm -rf "$DEST"
mkdir -p "$DEST/build/lib" "$DEST/lib"
cp "$BUILD/nessie" "$BUILD/nesl_compare" "$DEST/build/"
cp -r "$BUILD/lib/nessie" "$DEST/build/lib/"
# every shared library nessie loads (ldd lists them transitively) but
# the C library's own, which any Linux machine has
ldd "$BUILD/nessie" | sed -n 's|^[[:space:]]*\([^ ]*\) => \(/[^ ]*\) .*|\1 \2|p' |
  while read -r lib path; do
    case $lib in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*|libgcc_s.so.*|libstdc++.so.*) ;;
      *) cp -L "$path" "$DEST/lib/" ;;
    esac
  done
du -sh "$DEST"
