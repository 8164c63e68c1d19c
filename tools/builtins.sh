#!/bin/sh
# tools/builtins.sh [--update]: the names of NESL's built-in functions,
# constants and datatypes, as the basis library defines them
# (lib-nesl/builtins.nesl: each `function NAME`, `datatype NAME` and
# top-level `NAME = ...`, but the library's own helpers, whose names begin
# with "__"), one a line, sorted.
#
# The editors' syntax files (editors/vim/syntax/nesl.vim,
# editors/emacs/nesl-mode.el) hold the same list between a line holding
# "BEGIN BUILTINS" and one holding "END BUILTINS"; --update writes it
# there again (after a change to the library), and tests/suites/install.sh
# fails when the lists differ.
set -eu
LIB=lib-nesl/builtins.nesl
names() {
  sed -n -e 's/^function \([A-Za-z][A-Za-z0-9_]*\).*/\1/p' \
         -e 's/^datatype \([A-Za-z][A-Za-z0-9_]*\).*/\1/p' \
         -e 's/^\([A-Za-z][A-Za-z0-9_]*\) = .*/\1/p' "$LIB" | LC_ALL=C sort -u
}
[ "${1:-}" = --update ] || { names; exit 0; }

# rewrites the lines between the markers of file $1 as the names, $3 a
# line, each line beginning with $2 (and Emacs's list quoted)
update() {
  file=$1 prefix=$2 per=$3 quote=$4
  tmp=$(mktemp)
  names | awk -v prefix="$prefix" -v per="$per" -v q="$quote" '
    { line = line (n ? " " : "") q $0 q; n++ }
    n == per { print prefix line; line = ""; n = 0 }
    END { if (n) print prefix line }' > "$tmp.list"
  awk -v list="$tmp.list" '
    /END BUILTINS/ { skip = 0 }
    !skip { print }
    /BEGIN BUILTINS/ { while ((getline l < list) > 0) print l; skip = 1 }' "$file" > "$tmp"
  cat "$tmp" > "$file"
  rm -f "$tmp" "$tmp.list"
}
update editors/vim/syntax/nesl.vim "syn keyword neslBuiltin " 8 ""
update editors/emacs/nesl-mode.el "    " 8 '"'
