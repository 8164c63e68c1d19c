#!/bin/sh
# tests/fuzz/interesting.sh BUILD REF BACKEND PROGRAM: exit 0 when the
# transcripts of PROGRAM under REF (oracle, or one of nessie's backends
# as tests/fuzz/diff.sh names them) and BACKEND differ, as
# BUILD/nesl_compare compares them, and PROGRAM is valid NESL (nessie's
# front end accepts it, and the oracle, when it is REF, reports no type
# error); exit 1 otherwise.  tests/fuzz/reduce.py's TEST:
#   python3 tests/fuzz/reduce.py F.nesl sh tests/fuzz/interesting.sh build oracle lcu
set -u
BUILD=$1
REF=$2
BACKEND=$3
PROGRAM=$4
ORACLE=${ORACLE:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/oracle/run.sh}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$BUILD/nessie" --dump=typed "$PROGRAM" > /dev/null 2>&1 || exit 1
out() { # BACKEND FILE
  case $1 in
  oracle)
    timeout 60 sh "$ORACLE" "$PROGRAM" 2>&1 | grep -av ' = fn : ' > "$2"
    ! grep -q -E 'error: Error (at top level|in Function definition)\..*(type|symbol|Bad|parse|Syntax|undefined)' "$2" ;;
  eval | flat | lcu) timeout 20 "$BUILD/nessie" --interp="$1" "$PROGRAM" 2> /dev/null | grep -av ' = fn : ' > "$2" ;;
  lcu-O0) timeout 20 "$BUILD/nessie" --interp=lcu -O0 "$PROGRAM" 2> /dev/null | grep -av ' = fn : ' > "$2" ;;
  cpu)
    "$BUILD/nessie" --target=cpu -o "$work/exe" "$PROGRAM" > /dev/null 2>&1 || { echo "build failed" > "$2"; return 0; }
    timeout 20 "$work/exe" 2> /dev/null | grep -av ' = fn : ' > "$2" ;;
  *) exit 1 ;;
  esac
}
out "$REF" "$work/ref" || exit 1
out "$BACKEND" "$work/got"
! "$BUILD/nesl_compare" "$work/got" "$work/ref" > /dev/null 2>&1
