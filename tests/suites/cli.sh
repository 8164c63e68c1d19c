# cli: the command line (tests/cli/NAME.sh: exit statuses, limits, output
# formats, split builds) and λcu's shape checks (tests/lcu/NAME.sh), each
# script one test cli/NAME, run with NESSIE set; it fails with what it
# prints when it exits non-zero.
. tests/suites/lib.sh
for t in tests/cli/*.sh tests/lcu/*.sh; do
  [ -f "$t" ] || continue
  n=$(basename "$t" .sh)
  if o=$(NESSIE="$NESSIE" sh "$t" 2>&1); then pass "cli/$n"; else fail "cli/$n" "$o"; fi
done
finish
