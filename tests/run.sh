#!/bin/sh
# tests/run.sh BUILD [SUITE...]: runs the tests of nessie against the
# binary in BUILD/nessie: every suite, in the order of ALL below (`make
# test`), or only the SUITEs named, in the order named (`sh tests/run.sh
# build errors golden`).
# Each suite is one runner, tests/suites/SUITE.sh (tests/README.md says
# what each checks), run from the repository's root as
# `sh tests/suites/SUITE.sh BUILD BUILD/test-out/SUITE`; it prints one
# `[PASS] TEST` or `[FAIL] TEST` line per test, a failure's details
# indented below.  This driver passes those lines on, counts them, and
# ends with `N passed, M failed` (the failed tests listed before it);
# exit status 1 if any test failed.  BUILD/test-out/times gets each
# suite's seconds.  After the suites, no output of any may hold a
# sanitizer's report (make test-asan).
set -u
BUILD=${1:-build}
[ $# -gt 0 ] && shift
OUT=$BUILD/test-out
ALL="unit sync types ast eval flat lcu lcu-O0 fusion fusion-rules own scale examples docs eval-own cost errors diag repl
     crash lcu-read lcu-golden lcu-hand golden cli install cpu library cuda-build bench determinism layering fuzz-diff"
SUITES=${*:-$ALL}
rm -rf "$OUT"
mkdir -p "$OUT"
passed=0
failed=0
failures=""

for s in $SUITES; do
  runner=tests/suites/$s.sh
  if [ ! -f "$runner" ]; then
    echo "[FAIL] suite/$s"
    echo "    no runner $runner; the suites are" $ALL
    failed=$((failed + 1)); failures="$failures suite/$s"
    continue
  fi
  t0=$(date +%s)
  # the runner's status in a file: a pipeline's is tee's
  { sh "$runner" "$BUILD" "$OUT/$s" 2>&1; echo $? > "$OUT/$s.status"; } | tee "$OUT/$s.log"
  echo "$s $(($(date +%s) - t0))" >> "$OUT/times"
  p=$(grep -c '^\[PASS\] ' "$OUT/$s.log")
  f=$(grep -c '^\[FAIL\] ' "$OUT/$s.log")
  passed=$((passed + p))
  failed=$((failed + f))
  failures="$failures $(sed -n 's/^\[FAIL\] \([^ ]*\).*/\1/p' "$OUT/$s.log" | tr '\n' ' ')"
  # a runner that stopped without saying which test failed
  if [ "$(cat "$OUT/$s.status")" -ne 0 ] && [ "$f" -eq 0 ]; then
    echo "[FAIL] suite/$s"
    echo "    $runner exited with status $(cat "$OUT/$s.status") and no [FAIL] line"
    failed=$((failed + 1)); failures="$failures suite/$s"
  fi
done

# ---- no sanitizer report anywhere (make test-asan): the suites' logs
# and the files each writes at the top of its directory ----
reports=$(grep -l -E 'ERROR: AddressSanitizer|runtime error:|ERROR: LeakSanitizer' "$OUT"/* "$OUT"/*/* 2>/dev/null)
if [ -n "$reports" ]; then
  echo "[FAIL] sanitizers"
  printf '%s\n' "reports in: $reports" | sed 's/^/    /' | head -20
  failed=$((failed + 1)); failures="$failures sanitizers"
fi

# the failures' details again, a few lines each: CI keeps only the end
# of the log, where the [FAIL] lines above are lost (a test that failed
# only there, stop 53, left no word of why)
if [ $failed -gt 0 ]; then
  echo
  echo "the failures:"
  awk 'BEGIN { shown = 9 }
       /^\[FAIL\] / { shown = 0; print; next }
       /^\[(PASS|SKIP)\] / { shown = 9; next }
       /^    / && shown < 8 { print; shown++ }' "$OUT"/*.log | head -40
fi

# the suites' seconds, slowest first: CI keeps only the end of the log,
# and `make test` must stay within its time there
echo
echo "seconds by suite: $(sort -k2 -n -r "$OUT/times" | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')"
[ $failed -gt 0 ] && echo "failed:$(echo $failures | sed 's/^/ /')"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
