#!/bin/sh
# tests/fuzz/coverage.sh COVBUILD FIRST LAST: how much of the middle end
# the random programs reach (issue 41).  COVBUILD is a build with gcov's
# instrumentation:
#   make BUILD=build-cov OPT="-O0 -g --coverage" SAN=--coverage \
#        build-cov/nessie build-cov/nesl_compare
# The seeds FIRST to LAST run through eval, flat, lcu, lcu -O0 (compared
# with eval's transcript, tests/fuzz/diff.sh) and --dump=c and
# --dump=cuda (code generation without a C compiler); then gcov counts
# the lines executed of each stage: flatten/, lower/, lcu/, fusion/,
# codegen/.  Prints one line per stage, `STAGE: X% of N lines`.
set -u
BUILD=$1
FIRST=$2
LAST=$3
find "$BUILD" -name '*.gcda' -delete
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
REF=eval sh tests/fuzz/diff.sh "$BUILD" "$out/diff" "$FIRST" "$LAST" flat lcu lcu-O0 lcu-text | tail -1
seed=$FIRST
while [ "$seed" -le "$LAST" ]; do
  python3 tests/fuzz/gen_nesl.py "$seed" > "$out/p.nesl"
  "$BUILD/nessie" --dump=c "$out/p.nesl" > /dev/null 2>&1
  "$BUILD/nessie" --dump=cuda "$out/p.nesl" > /dev/null 2>&1
  seed=$((seed + 1))
done
for stage in flatten lower lcu fusion codegen; do
  (cd "$out" && gcov -n -o "$OLDPWD/$BUILD/$stage" "$OLDPWD"/$stage/*.c 2>/dev/null) |
    awk -v s="$stage" '/^File/ { f = $2 } /^Lines executed/ && f !~ /\.h.$/ {
        split($2, a, ":"); pct = a[2] + 0; n = $4; run += pct * n / 100; all += n }
      END { if (all) printf "%s: %.1f%% of %d lines\n", s, 100 * run / all, all }'
done
