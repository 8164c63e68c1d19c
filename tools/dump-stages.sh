#!/bin/sh
# tools/dump-stages.sh NESSIE OUTDIR: writes what `NESSIE --dump=STAGE`
# prints (stdout, stderr and exit status) for every stage and every NESL
# program under tests/ and examples/, one file a program and stage, so
# that two compilers' dumps can be compared with `diff -r`.  A refactor
# that must change no behaviour is checked this way:
#
#   sh tools/dump-stages.sh old/build/nessie /tmp/before
#   sh tools/dump-stages.sh build/nessie /tmp/after
#   diff -r /tmp/before /tmp/after
#
# DUMP_STAGES overrides the stage list; the -O0 fused dump and the C and
# CUDA of both levels are included, since fusion and codegen are what a
# refactor of the IRs can break.
set -u
NESSIE=${1:?usage: dump-stages.sh NESSIE OUTDIR}
OUT=${2:?usage: dump-stages.sh NESSIE OUTDIR}
STAGES=${DUMP_STAGES:-"ast typed mono flat lcu pdg ilp fused fused:-O0 c c:-O0 cuda"}
mkdir -p "$OUT"
find tests examples -name '*.nesl' | LC_ALL=C sort | while read -r f; do
  d="$OUT/$(dirname "$f")"
  mkdir -p "$d"
  n=$(basename "$f" .nesl)
  for s in $STAGES; do
    stage=${s%%:*}
    opt=
    [ "$stage" != "$s" ] && opt=${s#*:}
    target=
    [ "$stage" = c ] && target=--target=cpu
    [ "$stage" = cuda ] && target=--target=cuda
    o="$d/$n.${stage}${opt}"
    # shellcheck disable=SC2086
    timeout 60 "$NESSIE" $opt $target --dump="$stage" "$f" > "$o" 2>&1 < /dev/null
    echo "exit $?" >> "$o"
  done
done
