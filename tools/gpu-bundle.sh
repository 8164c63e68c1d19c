#!/bin/sh
# tools/gpu-bundle.sh [BUILD] [DEST]: packs what `make gpu-test` needs on a
# GPU machine that has nvcc but not nessie's build dependencies (Boehm GC,
# libedit): BUILD/nessie, its runtime (BUILD/lib/nessie), nesl_compare,
# and the shared libraries nessie links, into DEST (default .gpu, which
# git ignores).  There:
#   LD_LIBRARY_PATH=.gpu/lib sh tests/gpu/run.sh .gpu/build OUTDIR "memcheck ..."
# The executables are built there, by nessie with that machine's nvcc.
set -eu
BUILD=${1:-build}
DEST=${2:-.gpu}
rm -rf "$DEST"
mkdir -p "$DEST/build/lib" "$DEST/lib"
cp "$BUILD/nessie" "$BUILD/nesl_compare" "$DEST/build/"
cp -r "$BUILD/lib/nessie" "$DEST/build/lib/"
for lib in libgc.so.1 libedit.so.2 libbsd.so.0 libmd.so.0 libtinfo.so.6; do
  path=$(ldd "$BUILD/nessie" | sed -n "s|^[[:space:]]*$lib => \([^ ]*\) .*|\1|p")
  [ -n "$path" ] && cp -L "$path" "$DEST/lib/"
done
du -sh "$DEST"
