# tests/fusion/bench_program.sh NAME N OUT: writes to OUT the benchmark
# program tests/bench/NAME.nesl at size N, ending in the statement the
# harness runs first (tests/bench/README.md), for the check_*.sh scripts
# that look at how a benchmark fuses.
set -eu
sed "s/^n = [0-9]*;/n = $2;/" "tests/bench/$1.nesl" > "$3"
echo 'check(run_once(input(n)));' >> "$3"
