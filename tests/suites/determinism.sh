# determinism: compilation is deterministic: every dump stage of every
# corpus, error, flattening, λcu and syntax test program, three runs, the
# last two with the collector forced to run often, byte-identical
# (tests/determinism/run.sh; one test).  Three, not five: the two runs
# without forced collections between the first and those added nothing
# that the forced ones miss (the addresses differ from run to run
# anyway), and `make test` must stay within 20 minutes on CI.
. tests/suites/lib.sh
d=$(sh tests/determinism/run.sh "$NESSIE" "$OUT/runs" 3)
if [ -z "$d" ]; then pass "determinism/every-stage (3 runs, 2 under forced collections)"
else fail "determinism/every-stage" "$d"; fi
finish
