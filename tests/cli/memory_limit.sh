# Issue 38, item 7: NESSIE_MEMORY bounds what the interpreters and the
# executables allocate, so that a program that grows without end stops
# its statement with "out of memory" at the limit and the next statement
# runs (without a limit the system's OOM killer ended the run, silently,
# after it had taken the machine's memory).  A NESSIE_MEMORY that is not
# a size is refused.  The default limit (half the physical memory, at
# most RLIMIT_AS) is not tested: it depends on the machine.
# `ulimit -v` is only the safety net, far above the limit (AddressSanitizer
# needs far more address space: not under make test-asan).
set -u
[ -z "${ASAN_OPTIONS:-}" ] || exit 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# doubling: 2^k ints after k calls, 4 GB by the 30th
cat > "$tmp/grow.nesl" <<'NESL'
function grow(v, n) = if n == 0 then v else grow(v ++ v, n - 1);
#grow([1], 40);
"after";
NESL

# 'out' has the statement's error at 'where', of at most 200 MB, and the
# next statement ran
check() { # what out status [where]
  what=$1 out=$2 status=$3 where=${4:-:2:2:}
  [ "$status" -eq 1 ] || { echo "$what: exit status $status, expected 1"; printf '%s\n' "$out" | head -5; exit 1; }
  err=$(printf '%s\n' "$out" | grep '^error:')
  printf '%s\n' "$err" | grep -q "$where out of memory (could not allocate [0-9]* bytes)" ||
    { echo "$what: no out-of-memory error at 2:2:"; printf '%s\n' "$out" | head -5; exit 1; }
  size=$(printf '%s\n' "$err" | sed 's/.*could not allocate \([0-9]*\) bytes.*/\1/')
  [ "$size" -le 209715200 ] || { echo "$what: it asked for $size bytes, past NESSIE_MEMORY=200M"; exit 1; }
  printf '%s\n' "$out" | tail -1 | grep -qx 'it = "after" : \[char\]' ||
    { echo "$what: the next statement did not run:"; printf '%s\n' "$out" | tail -3; exit 1; }
}

for e in eval flat lcu; do
  out=$( (ulimit -v 6000000; NESSIE_MEMORY=200M timeout 60 "$NESSIE" --interp=$e "$tmp/grow.nesl") 2> /dev/null)
  check "--interp=$e" "$out" $?
done
out=$( (ulimit -v 6000000; printf ':set interp lcu\n' | cat - "$tmp/grow.nesl" | NESSIE_MEMORY=200M timeout 60 "$NESSIE") 2> /dev/null)
check "the REPL under lcu" "$out" 1 '<stdin>:3:2:'

"$NESSIE" --target=cpu -o "$tmp/grow" "$tmp/grow.nesl" || { echo "grow.nesl does not compile"; exit 1; }
out=$( (ulimit -v 6000000; NESSIE_MEMORY=200M timeout 60 "$tmp/grow") 2> /dev/null)
check "the CPU executable" "$out" $?

# sizes: K, M, G, T; anything else is refused, before anything runs
printf '1 + 2;\n' > "$tmp/small.nesl"
for size in 123456789 100000K 300M 1g 2T 0; do
  out=$(NESSIE_MEMORY=$size "$NESSIE" --interp "$tmp/small.nesl" 2>&1)
  [ "$out" = "it = 3 : int" ] || { echo "NESSIE_MEMORY=$size: $out"; exit 1; }
done
for size in 12Q 1.5G "" -3 M 99999999999999999999999; do
  out=$(NESSIE_MEMORY=$size "$NESSIE" --interp "$tmp/small.nesl" 2>&1)
  status=$?
  [ $status -eq 2 ] && printf '%s\n' "$out" | grep -q "^nessie: error: NESSIE_MEMORY='.*' is not a size" ||
    { echo "NESSIE_MEMORY='$size' (nessie): status $status: $out"; exit 1; }
  out=$(NESSIE_MEMORY=$size "$tmp/grow" 2>&1)
  status=$?
  [ $status -eq 1 ] && printf '%s\n' "$out" | grep -q "^error: NESSIE_MEMORY='.*' is not a size" ||
    { echo "NESSIE_MEMORY='$size' (executable): status $status: $out"; exit 1; }
done
exit 0
