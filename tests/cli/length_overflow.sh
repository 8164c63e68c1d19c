# Issue 38, item 9: a length past max_int is checked where it is
# computed, with the same words at the same place on every engine: the
# evaluator, the flat and λcu interpreters (with fusion and without) and
# the CPU executable.  The evaluator printed `it = -2147418112 : int` for
# the first statement (its flatten's length wrapped) and the others said
# "out of memory" at the dist that makes the nested vector; now the
# evaluator checks there too (a dist of a value with sequences in it
# repeats their elements: eval/prims.c, "lengths").  CMU NESL 3.1 ends
# these with a segmentation fault of its VCODE interpreter, so the
# expected lines are nessie's.  Nothing large is allocated: each check
# comes before the allocation.
set -u
# the C compiler's speed and the code's are not what is tested (the cpu
# suite builds the corpus at -O1)
export NESSIE_CFLAGS=-O0
# AddressSanitizer reserves terabytes of address space: under make
# test-asan only NESSIE_MEMORY bounds the runs (as tests/suites/scale.sh)
vlimit=4000000
grep -q __asan_init "$NESSIE" && vlimit=unlimited
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/lengths.nesl" <<'NESL'
#flatten(dist(dist(`a, 65536), 32769));
v = dist(dist(`a, 65536), 32769);
{#flatten(dist(dist(`a, 65536), 32769)) : i in [0:1]};
"after";
NESL
f=$tmp/lengths.nesl
expect="error: $f:1:10: out of memory (could not allocate a vector of 2147549184 elements)
error: $f:2:5: out of memory (could not allocate a vector of 2147549184 elements)
error: $f:3:11: out of memory (could not allocate a vector of 2147549184 elements)
it = \"after\" : [char]"
"$NESSIE" --target=cpu -o "$tmp/lengths" "$f" || { echo "lengths.nesl does not compile"; exit 1; }
for run in "--interp=eval" "--interp=flat" "--interp=lcu" "--interp=lcu -O0" "cpu"; do
  if [ "$run" = cpu ]; then
    out=$( (ulimit -v $vlimit; NESSIE_MEMORY=1G timeout 60 "$tmp/lengths") 2> /dev/null)
  else
    out=$( (ulimit -v $vlimit; NESSIE_MEMORY=1G timeout 60 "$NESSIE" $run "$f") 2> /dev/null)
  fi
  status=$?
  [ $status -eq 1 ] && [ "$out" = "$expect" ] || { echo "$run (status $status):"; printf '%s\n' "$out" | head -c 600; exit 1; }
done

# Ranges and appends: λcu computed their lengths in int32 (`(e - s + d -
# 1) / d`, `#a + #b`, a lifted range's lengths in a MAP) and said "dist:
# negative length -1" or "negative length -1"; now `size range`, `size
# append` and range_segdes compute them in 64 bits before anything is
# allocated.  CMU NESL 3.1 wraps here too (it prints `it = -1 : int` for
# the first range and `[-1]` for the lifted one) and runs out of vector
# memory for the append, so the expected lines are nessie's.  Every run
# below: the evaluator, the flat interpreter, λcu with fusion and
# without, and the CPU executable.
engines="--interp=eval --interp=flat --interp=lcu --interp=lcu_-O0 cpu"
# run_all FILE MEMORY EXPECTED ENGINES: each engine prints EXPECTED and
# exits 1 under NESSIE_MEMORY=MEMORY
run_all() {
  "$NESSIE" --target=cpu -o "${1%.nesl}" "$1" || { echo "$1 does not compile"; exit 1; }
  for run in $4; do
    run=$(printf '%s' "$run" | tr _ ' ')
    if [ "$run" = cpu ]; then
      out=$( (ulimit -v $vlimit; NESSIE_MEMORY=$2 timeout 60 "${1%.nesl}") 2> /dev/null)
    else
      out=$( (ulimit -v $vlimit; NESSIE_MEMORY=$2 timeout 60 "$NESSIE" $run "$1") 2> /dev/null)
    fi
    status=$?
    [ $status -eq 1 ] && [ "$out" = "$3" ] ||
      { echo "$(basename "$1") under $run (status $status):"; printf '%s\n' "$out" | head -c 600; exit 1; }
  done
}

# ranges of 2^32 - 1 elements, alone and as the one range of an
# apply-to-each; nothing is allocated
f=$tmp/range.nesl
cat > "$f" <<'NESL'
#[min_int:max_int];
#[0 - 2147483647 - 1 : 2147483647];
{#[a:b] : a in [min_int]; b in [max_int]};
"after";
NESL
run_all "$f" 1G "error: $f:1:2: out of memory (could not allocate a vector of 4294967295 elements)
error: $f:2:2: out of memory (could not allocate a vector of 4294967295 elements)
error: $f:3:3: out of memory (could not allocate a vector of 4294967295 elements)
it = \"after\" : [char]" "$engines"

# lifted ranges whose lengths fit an int but whose total does not, or
# one of which does not: the flat IR's words (the total, at the range).
# The evaluator makes each range in turn, so it runs out of bytes at the
# first large one, or names that range's length, before any total.
f=$tmp/lifted.nesl
cat > "$f" <<'NESL'
{#[a:b] : a in [0, 0, 0]; b in [max_int, max_int, 5]};
{#[a:b] : a in [0, min_int]; b in [5, max_int]};
"after";
NESL
run_all "$f" 1G "error: $f:1:3: out of memory (could not allocate a vector of 4294967299 elements)
error: $f:2:3: out of memory (could not allocate a vector of 4294967300 elements)
it = \"after\" : [char]" "--interp=flat --interp=lcu --interp=lcu_-O0 cpu"

# an append of 2^31 elements: the smallest vector whose append with
# itself passes max_int, 1 GiB of characters, is made (every engine
# makes its operands), and nothing more
f=$tmp/append.nesl
cat > "$f" <<'NESL'
let v = dist(`a, 1073741824) in #(v ++ v);
"after";
NESL
run_all "$f" 1536M "error: $f:1:37: out of memory (could not allocate a vector of 2147483648 elements)
it = \"after\" : [char]" "$engines"

# the same append lifted, one segment a v: the flat IR added the
# segments' lengths as ints before make_segdes, which said "negative
# length -2147483648"; now a check adds them in 64 bits first (`check
# append`, rt_check_ok), the evaluator's words at its place
f=$tmp/lifted_append.nesl
cat > "$f" <<'NESL'
{#(v ++ v) : v in [dist(`a, 1073741824)]};
"after";
NESL
run_all "$f" 1536M "error: $f:1:6: out of memory (could not allocate a vector of 2147483648 elements)
it = \"after\" : [char]" "$engines"

# the lengths a lifted dist is given: make_segdes said "negative length
# -1" for a negative one, where the evaluator says "dist: negative length
# -1"; now `check dist` comes first.  A lifted partition summed each
# segment's counts as ints, so that counts past max_int were said to add
# up to 2 (or passed, summing to the length); now the counts' segdes,
# whose total is checked in 64 bits, comes before their sums.  Counts
# past max_int are out of memory there, where the evaluator, which sums
# in 64 bits, says they do not add up.
f=$tmp/negative.nesl
cat > "$f" <<'NESL'
{dist(1, n) : n in [2, -1]};
{dist([1], n) : n in [2, -3]};
"after";
NESL
run_all "$f" 1G "error: $f:1:2: dist: negative length -1
error: $f:2:2: dist: negative length -3
it = \"after\" : [char]" "$engines"
f=$tmp/counts.nesl
cat > "$f" <<'NESL'
{partition(v, c) : v in [[1]]; c in [[max_int, max_int, 4]]};
{partition(v, c) : v in [[1]]; c in [[max_int, max_int, 3]]};
"after";
NESL
run_all "$f" 1G "error: $f:1:2: out of memory (could not allocate a vector of 4294967298 elements)
error: $f:2:2: out of memory (could not allocate a vector of 4294967297 elements)
it = \"after\" : [char]" "--interp=flat --interp=lcu --interp=lcu_-O0 cpu"
exit 0
