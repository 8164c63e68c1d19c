# determinism: compilation is deterministic: every dump stage of every
# corpus, error, flattening, λcu and syntax test program, five runs, the
# last two with the collector forced to run often, byte-identical
# (tests/determinism/run.sh; one test).
. tests/suites/lib.sh
d=$(sh tests/determinism/run.sh "$NESSIE" "$OUT/runs" 5)
if [ -z "$d" ]; then pass "determinism/every-stage (5 runs, 2 under forced collections)"
else fail "determinism/every-stage" "$d"; fi
finish
