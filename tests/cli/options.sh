# Issue 38, item 12: options a careless user gives.  --target=cpu
# --dump=c (what --help's dump list says) is taken; --target with another
# dump, --arch with --target=cpu, two different targets, architectures or
# outputs, and an --arch that is no architecture's name (foo, one a shell
# would run) are refused at once (status 2, with a reason); -O2 and -O3,
# as gcc's and nvcc's users type them, are -O1; --arch alone means
# --target=cuda; a bad NESSIE_JOBS is said once.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'function sqr(x) = x * x;\nsqr(3);\n' > "$tmp/ok.nesl"
message() { # expected-status description pattern command...
  want=$1; what=$2; pattern=$3; shift 3
  err=$("$@" 2>&1 >/dev/null < /dev/null); got=$?
  [ "$got" = "$want" ] || { echo "$what: exit $got, expected $want ($*): $err"; exit 1; }
  printf '%s' "$err" | grep -q -- "$pattern" || { echo "$what: no '$pattern' in: $err"; exit 1; }
}
# --target chooses the program --dump=c or --dump=cuda shows
"$NESSIE" --target=cpu --dump=c "$tmp/ok.nesl" > "$tmp/c" || { echo "--target=cpu --dump=c: exit $?"; exit 1; }
"$NESSIE" --dump=c "$tmp/ok.nesl" | cmp -s - "$tmp/c" || { echo "--target=cpu --dump=c differs from --dump=c"; exit 1; }
"$NESSIE" --dump=cuda --target=cuda "$tmp/ok.nesl" > /dev/null || { echo "--dump=cuda --target=cuda: exit $?"; exit 1; }
message 2 "--target=cpu --dump=cuda" "--target=cpu contradicts --dump=cuda" "$NESSIE" --target=cpu --dump=cuda "$tmp/ok.nesl"
message 2 "--target=cuda --dump=c" "--target=cuda contradicts --dump=c" "$NESSIE" --target=cuda --dump=c "$tmp/ok.nesl"
message 2 "--target with --dump=ast" "--target=cpu is for compiling to an executable, or with --dump=c" \
  "$NESSIE" --target=cpu --dump=ast "$tmp/ok.nesl"
message 2 "--target with --interp" "it does not go with --interp" "$NESSIE" --target=cpu --interp "$tmp/ok.nesl"
message 2 "--target in the REPL" "--target is for compiling to an executable; the REPL" "$NESSIE" --target=cpu -i "$tmp/ok.nesl"
# contradictions
message 2 "two targets" "--target=cpu and --target=cuda contradict" "$NESSIE" --target=cpu --target=cuda "$tmp/ok.nesl"
message 2 "--arch with --target=cpu" "--arch chooses a GPU architecture: it does not go with --target=cpu" \
  "$NESSIE" --arch=sm_80 --target=cpu "$tmp/ok.nesl"
message 2 "two --arch" "--arch given twice" "$NESSIE" --arch=sm_80 --arch=sm_90 "$tmp/ok.nesl"
message 2 "two -o" "-o given twice" "$NESSIE" -o a -o b "$tmp/ok.nesl"
message 2 "--arch a shell would run" "unknown GPU architecture 'sm_90;touch x'" "$NESSIE" '--arch=sm_90;touch x' "$tmp/ok.nesl"
message 2 "--arch empty" "unknown GPU architecture '' for --arch" "$NESSIE" --arch= "$tmp/ok.nesl"
message 2 "--arch=foo" "unknown GPU architecture 'foo' for --arch (expected sm_NN" "$NESSIE" --arch=foo "$tmp/ok.nesl"
message 2 "--arch=sm_" "unknown GPU architecture 'sm_'" "$NESSIE" --arch=sm_ "$tmp/ok.nesl"
for a in sm_90 sm_90a compute_80 native all all-major; do
  "$NESSIE" --arch=$a --dump=ast "$tmp/ok.nesl" 2>&1 | grep -q "unknown GPU architecture" && { echo "--arch=$a refused"; exit 1; }
done
# the same option twice, alike, is no contradiction
"$NESSIE" --target=cpu --target=cpu -o "$tmp/a" -o "$tmp/a" "$tmp/ok.nesl" 2> "$tmp/err" ||
  { echo "--target=cpu twice: exit $?: $(cat "$tmp/err")"; exit 1; }
# -O2 and -O3 are the highest level, -O1; others are refused
for o in -O2 -O3; do
  "$NESSIE" $o --dump=fused "$tmp/ok.nesl" > "$tmp/o" 2> "$tmp/err" || { echo "$o: exit $?: $(cat "$tmp/err")"; exit 1; }
  "$NESSIE" -O1 --dump=fused "$tmp/ok.nesl" | cmp -s - "$tmp/o" || { echo "$o is not -O1"; exit 1; }
done
message 2 "-O4" "unknown optimization level '-O4' (expected -O0 or -O1; -O2 and -O3 are -O1)" "$NESSIE" -O4 "$tmp/ok.nesl"
message 2 "-Ofast" "unknown optimization level '-Ofast'" "$NESSIE" -Ofast "$tmp/ok.nesl"
# --arch alone asks for a GPU executable: without nvcc that is an error
# naming nvcc, not a CPU build
if ! command -v nvcc > /dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ] && [ -z "${NESSIE_NVCC:-}" ]; then
  message 1 "--arch without nvcc" "--target=cuda needs nvcc" "$NESSIE" --arch=sm_90 -o "$tmp/x" "$tmp/ok.nesl"
fi
# a bad NESSIE_JOBS is said once, though the compiler runs twice
# (compiling, then linking)
NESSIE_JOBS=abc "$NESSIE" --target=cpu -o "$tmp/j" "$tmp/ok.nesl" 2> "$tmp/err" || { echo "NESSIE_JOBS=abc: exit $?"; exit 1; }
[ "$(grep -c 'NESSIE_JOBS=abc is not a number' "$tmp/err")" = 1 ] || { echo "NESSIE_JOBS=abc: $(cat "$tmp/err")"; exit 1; }
exit 0
