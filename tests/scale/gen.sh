#!/bin/sh
# tests/scale/gen.sh KIND N: prints a NESL program that grows the
# compiler with N (tests/suites/scale.sh):
#   literal     [[...[1]...]], N deep
#   branching   [x, x] for the first ten levels, then [x], N deep in all
#               (1024 leaves)
#   tuple       (N-1, (..., (0, 1))), N deep
#   let         let x0 = 1 + 1 in let x1 = x0 + 1 in ... xN-1
#   if          if N-1 < 3 then N-1 + (if ... else 1) else 1, N deep
#   statements  N top-level statements `I + 2;`
#   functions   N definitions `function fI(x) = x + I;`, each called
#   sums        N statements `vI = sum({x * 1 : x in [0:1]});` (issue 40)
#   mixed       a function, a sequence, then N statements that define
#               globals read by later ones, call the function and run
#               kernels, then a run-time error (`a[10];`) and a global
#               (tests/cli/split_statements.sh)
set -eu
kind=$1
n=$2
case $kind in
literal) awk -v n="$n" 'BEGIN { s = "1"; for (i = 0; i < n; i++) s = "[" s "]"; print s ";" }' ;;
branching) awk -v n="$n" 'BEGIN { s = "1"; for (i = 0; i < n; i++) s = i < 10 ? "[" s ", " s "]" : "[" s "]"; print s ";" }' ;;
tuple) awk -v n="$n" 'BEGIN { s = "1"; for (i = 0; i < n; i++) s = "(" i ", " s ")"; print s ";" }' ;;
let) awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "let x%d = %s + 1 in ", i, (i ? "x" (i - 1) : "1"); print "x" (n - 1) ";" }' ;;
if) awk -v n="$n" 'BEGIN { s = "0"; for (i = 0; i < n; i++) s = "if " i " < 3 then " i " + (" s ") else 1"; print s ";" }' ;;
statements) awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print i " + 2;" }' ;;
sums) awk -v n="$n" 'BEGIN { for (i = 1; i <= n; i++) print "v" i " = sum({x * 1 : x in [0:1]});" }' ;;
functions) awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) { print "function f" i "(x) = x + " i ";"; print "f" i "(" i ");" } }' ;;
mixed) awk -v n="$n" 'BEGIN {
  print "function dbl(x) = x * 2;"
  print "a = [1, 2, 3];"
  print "g0 = sum({x * 1 : x in a});"
  last = 0
  for (i = 1; i <= n; i++)
    if (i % 7 == 0) print "{x + g" last " : x in a};"
    else if (i % 11 == 0) print "[g" last ", dbl(" i ")];"
    else { print "g" i " = g" last " + dbl(" i ");"; last = i }
  print "a[10];"
  print "g" last ";"
}' ;;
*) echo "gen.sh: no kind $kind" >&2; exit 2 ;;
esac
