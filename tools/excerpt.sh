#!/bin/sh
# tools/excerpt.sh NAME...: from a flat or λcu dump on standard input
# (nessie --dump=flat, lcu or fused), prints the functions NAME... (a
# lifted function's name ends in ^) and, for λcu, first the kernels they
# run, each once, in the dump's order.  The pages of examples/ and
# docs/tour.md quote dumps through it:
#
#   build/nessie --dump=fused examples/spmv.nesl | sh tools/excerpt.sh spmv
#
# A name the dump lacks is an error (exit status 1), so that a quoted
# excerpt cannot silently become empty.
[ $# -gt 0 ] || { echo "usage: tools/excerpt.sh NAME... < DUMP" >&2; exit 2; }
awk -v names="$*" '
  BEGIN { n = split(names, want, " "); for (i = 1; i <= n; i++) wanted[want[i]] = 1 }
  # a block: from "kernel K (" or "function NAME (" to the "}" of column 0
  /^(kernel|function) / && !inblock {
    inblock = 1; kind = $1; name = $2; text = $0 "\n"; next
  }
  inblock {
    text = text $0 "\n"
    if ($0 == "}") {
      inblock = 0
      if (kind == "kernel") { kernels[name] = text; korder[++nk] = name }
      else { funcs[name] = text }
    }
  }
  END {
    for (i = 1; i <= n; i++) {
      if (!(want[i] in funcs)) { printf "tools/excerpt.sh: no function %s in the dump\n", want[i] > "/dev/stderr"; bad = 1; continue }
      # the kernels this function runs
      m = split(funcs[want[i]], lines, "\n")
      for (j = 1; j <= m; j++)
        if (match(lines[j], /= run K[0-9]+ /)) { k = substr(lines[j], RSTART + 6, RLENGTH - 7); used[k] = 1 }
    }
    if (bad) exit 1
    for (i = 1; i <= nk; i++)
      if (korder[i] in used) printf "%s\n", kernels[korder[i]]
    for (i = 1; i <= n; i++) printf "%s%s", (i > 1 ? "\n" : ""), funcs[want[i]]
  }'
