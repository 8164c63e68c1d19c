#!/bin/sh
# tests/cpu/build_all.sh NESSIE OUTDIR FILE...: compiles each NESL file to
# an executable OUTDIR/NAME with the target $TARGET (cpu unless set; cuda
# for the GPU; $ARCH, where set, is nessie's --arch), as many at once as
# there are processors; the messages of a build go to OUTDIR/NAME.build.
# The C compiler runs at -O1 here (NESSIE_CFLAGS): the tests check what
# the programs print, and the build time of the whole corpus matters on
# CI.  The builds run side by side, so each nessie runs at most two
# compilers on a large program's translation units (NESSIE_JOBS).  The
# largest files start first, so that the last builds running are small
# ones and no processor waits long for a large one at the end.
set -u
NESSIE=$1
OUT=$2
shift 2
mkdir -p "$OUT"
jobs=$(nproc 2>/dev/null || echo 2)
ls -S -- "$@" |
  NESSIE_JOBS=${NESSIE_JOBS:-2} NESSIE_CFLAGS=${NESSIE_CFLAGS:--O1} xargs -P "$jobs" -I{} sh -c \
    'n=$(basename "{}" .nesl); "$0" --target="$2" ${3:+"--arch=$3"} "{}" -o "$1/$n" > "$1/$n.build" 2>&1 || true' \
    "$NESSIE" "$OUT" "${TARGET:-cpu}" "${ARCH:-}"
