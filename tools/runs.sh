#!/bin/sh
# tools/runs.sh NESSIE FILE.nesl NAME...: for each function NAME of
# FILE.nesl (a lifted one ends in ^), the `run` statements in its λcu
# body, the distinct kernels they run and the SOACs of those kernels,
# before fusion (--dump=lcu) and after (--dump=fused):
#
#   spmv: 6 runs of 5 kernels (5 SOACs) -> 4 runs of 4 kernels (5 SOACs)
#
# The runs are counted in the text, once each: a run in a loop or in a
# branch counts once (--interp=lcu --stats counts the runs executed).
# The pages of examples/ quote it.
set -u
[ $# -ge 3 ] || { echo "usage: tools/runs.sh NESSIE FILE.nesl NAME..." >&2; exit 2; }
NESSIE=$1
FILE=$2
shift 2
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NESSIE" --dump=lcu "$FILE" > "$tmp/lcu" || exit 1
"$NESSIE" --dump=fused "$FILE" > "$tmp/fused" || exit 1
# "R runs of K kernels (S SOACs)" of the excerpt on standard input
count() {
  awk '/^kernel / { k++ } /^  let .* = [A-Z_]+ / && !/= run / && inkernel { s++ }
       /^kernel / { inkernel = 1 } /^}$/ { inkernel = 0 }
       /= run K[0-9]+ / { r++ }
       function n(x, what) { return x " " what (x == 1 ? "" : "s") }
       END { printf "%s of %s (%s)", n(r, "run"), n(k, "kernel"), n(s, "SOAC") }'
}
for name in "$@"; do
  before=$(sh "$here/excerpt.sh" "$name" < "$tmp/lcu" | count) || exit 1
  after=$(sh "$here/excerpt.sh" "$name" < "$tmp/fused" | count) || exit 1
  echo "$name: $before -> $after"
done
