#!/bin/sh
# tests/docs/check.sh [--update] BUILD FILE.md...: the dumps that the
# documentation quotes are what the compiler prints.
#
# A quoted dump is a fenced block opened with ```console whose first line
# is `$ COMMAND`; the rest of the block is what COMMAND prints.  Each
# COMMAND runs in the repository's root through sh (pipes allowed), with
# build/ standing for BUILD/ (build/nessie is BUILD/nessie), and its
# standard output must equal
# the block byte for byte (compilation is deterministic).  Prints
# `[PASS] docs/FILE` or `[FAIL] docs/FILE` per file, with the command and
# a diff, and exits 1 if any failed.
#
# With --update, the blocks are rewritten with what the commands print
# now (after a change to the compiler: read the diff before committing).
# A command that prints nothing fails, and --update leaves its file
# alone: the quote went stale (a grep for what is no longer written).
#
# Graphviz sources beside the documents: docs/tour_pdg.dot and
# docs/norm2_pdg.dot must be the --dump=pdg of docs/tour.nesl and
# tests/lcu/norm2.nesl (--update rewrites them and, with dot, the PNGs).
set -u
update=false
[ "${1:-}" = --update ] && { update=true; shift; }
BUILD=$1
NESSIE=$BUILD/nessie
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for md in "$@"; do
  rm -f "$tmp"/block.*
  # block.N.cmd: the command; block.N.want: the quoted output
  awk -v dir="$tmp" '
    /^```console[ ]*$/ && !inside { inside = 1; n++; first = 1; printf "" > (dir "/block." n ".want"); next }
    inside && /^```[ ]*$/ { inside = 0; close(dir "/block." n ".want"); next }
    inside && first { first = 0; if (substr($0, 1, 2) != "$ ") { print "line " NR ": a console block must begin with $ COMMAND" > "/dev/stderr"; exit 3 }
                      print substr($0, 3) > (dir "/block." n ".cmd"); close(dir "/block." n ".cmd"); next }
    inside { print > (dir "/block." n ".want") }
  ' "$md" || { echo "[FAIL] $md"; echo "    malformed console block"; status=1; continue; }
  ok=true
  update_blocked=false
  report=""
  n=1
  while [ -f "$tmp/block.$n.cmd" ]; do
    cmd=$(cat "$tmp/block.$n.cmd")
    run=$(printf '%s' "$cmd" | sed "s|build/|$BUILD/|g")
    timeout 300 sh -c "$run" > "$tmp/block.$n.got" 2> "$tmp/block.$n.err"
    if [ ! -s "$tmp/block.$n.got" ]; then
      # a quoted command that prints nothing quotes nothing (a grep for
      # what the compiler no longer writes): never updated, always a failure
      ok=false
      update_blocked=true
      report="$report
\$ $cmd
prints nothing: the block quotes nothing$(head -3 "$tmp/block.$n.err")"
    elif ! cmp -s "$tmp/block.$n.got" "$tmp/block.$n.want"; then
      ok=false
      report="$report
\$ $cmd
$(diff "$tmp/block.$n.want" "$tmp/block.$n.got" | head -12)$(head -3 "$tmp/block.$n.err")"
    fi
    n=$((n + 1))
  done
  if $update && ! $ok && ! $update_blocked; then
    awk -v dir="$tmp" '
      /^```console[ ]*$/ && !inside { inside = 1; n++; print; getline; print; f = dir "/block." n ".got"
                                      while ((getline line < f) > 0) print line; close(f); next }
      inside && /^```[ ]*$/ { inside = 0; print; next }
      inside { next }
      { print }' "$md" > "$tmp/updated" && cp "$tmp/updated" "$md"
    echo "[UPDATED] $md"
  elif $ok; then
    echo "[PASS] $md ($((n - 1)) dumps)"
  else
    echo "[FAIL] $md"
    printf '%s\n' "$report" | sed 's/^/    /' | head -40
    echo "    (if the compiler changed on purpose: sh tests/docs/check.sh --update $BUILD $md, then read the diff)"
    status=1
  fi
done

# the Graphviz sources of the pictures in docs/
for pair in "docs/tour_pdg.dot docs/tour.nesl" "docs/norm2_pdg.dot tests/lcu/norm2.nesl"; do
  set -- $pair
  [ -f "$2" ] || continue
  "$NESSIE" --dump=pdg "$2" > "$tmp/pdg.dot" 2>&1
  if cmp -s "$tmp/pdg.dot" "$1" && [ -f "${1%.dot}.png" ]; then
    echo "[PASS] $1 (the --dump=pdg of $2)"
  elif $update; then
    cp "$tmp/pdg.dot" "$1"
    if command -v dot > /dev/null 2>&1; then dot -Tpng -o "${1%.dot}.png" "$1"; fi
    echo "[UPDATED] $1"
  else
    echo "[FAIL] $1 is not the --dump=pdg of $2, or ${1%.dot}.png is missing (tests/docs/check.sh --update)"
    status=1
  fi
done
exit $status
