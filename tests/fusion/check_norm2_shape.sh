# The paper's norm2 (section 5) after fusion: exactly its two kernels.
# One REDUCE computes both sums, the filter folded into the second (an
# `if` on x > 0.0 in its pull thunk, 0.0 elsewhere); one MAP produces both
# results; norm2 runs the two, and nothing else: the sums go from one to
# the other on the device.
set -u
dump=$("$NESSIE" --check-ir --dump=fused tests/lcu/norm2.nesl) || { echo "--dump=fused failed"; exit 1; }
kernels=$(printf '%s\n' "$dump" | grep -c '^kernel ')
[ "$kernels" -eq 2 ] || { echo "expected 2 kernels, got $kernels"; printf '%s\n' "$dump"; exit 1; }
soacs=$(printf '%s\n' "$dump" | grep -cE '^  let .* = [A-Z_]+ ')
[ "$soacs" -eq 3 ] || { echo "expected 3 SOACs, got $soacs"; printf '%s\n' "$dump"; exit 1; }
# the two sums stay on the device (fusion/devscalar.c): a MAP of one
# element after the REDUCE gives them as vectors, which the MAP reads
printf '%s\n' "$dump" | grep -qE '^  let \([a-z0-9_]+ : \[float\], [a-z0-9_]+ : \[float\]\) = MAP \{ [a-z0-9_]+ => \([a-z0-9_]+, [a-z0-9_]+\) using [a-z0-9_, ]+ \} \(1\)$' ||
  { echo "the sums should leave their kernel as vectors of one element"; printf '%s\n' "$dump"; exit 1; }
reduce=$(printf '%s\n' "$dump" | grep -E '= REDUCE \{')
printf '%s\n' "$reduce" | grep -qE '^  let \([a-z0-9_]+ : float, [a-z0-9_]+ : float\) = REDUCE' ||
  { echo "the REDUCE should compute two floats"; printf '%s\n' "$dump"; exit 1; }
printf '%s\n' "$reduce" | grep -qE 'if \(?[a-z_0-9]+ > 0\.0\)?(@[0-9:]+)? then [a-z_0-9]+ else 0\.0' ||
  { echo "the second sum should fold the filter (if x > 0.0 then x else 0.0)"; printf '%s\n' "$dump"; exit 1; }
printf '%s\n' "$reduce" | grep -qE '\(0\.0, 0\.0\)' || { echo "two identities"; printf '%s\n' "$dump"; exit 1; }
printf '%s\n' "$dump" | grep -qE '^  let \([a-z0-9_]+ : \[float\], [a-z0-9_]+ : \[float\]\) = MAP \{ [a-z0-9_]+ => \([a-z0-9_]+\[' ||
  { echo "one MAP should produce both results"; printf '%s\n' "$dump"; exit 1; }
body=$(printf '%s\n' "$dump" | sed -n '/^function norm2/,/^}/p')
runs=$(printf '%s\n' "$body" | grep -c '= run K')
[ "$runs" -eq 2 ] || { echo "norm2 should run 2 kernels, runs $runs"; printf '%s\n' "$body"; exit 1; }
[ "$(printf '%s\n' "$body" | grep -c ' = ')" -eq 2 ] || { echo "norm2 should do nothing else"; printf '%s\n' "$body"; exit 1; }
exit 0
