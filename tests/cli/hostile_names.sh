# Issue 38, item 1: file names that a shell would run.  nessie starts its
# compilers without a shell, but nvcc runs its own steps (the link among
# them) through `sh -c` with the paths pasted in, so a program called
# `a b;$(touch PWNED).nesl` once created PWNED and an executable called
# `a b;`.  Now the compilers see only the private directory's fixed
# names: no marker file may appear, and the executable has the name
# asked for.  The CUDA builds run where nvcc is found (no GPU needed:
# they are only built); the CPU build always.  -v's lines are quoted so
# that a shell reads them back as the words nessie ran.
set -u
case $NESSIE in /*) ;; *) NESSIE=$PWD/$NESSIE ;; esac # the tests change directory
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src='a b;$(touch PWNED).nesl'
out='cu $(touch PWNED2)'
printf 'function sqr(x) = x * x;\nsqr(7);\n' > "$tmp/$src"
markers() { # fails if a marker file was made anywhere it could be
  for m in PWNED PWNED2 PWNED3 PWNED4; do
    for d in "$tmp" "$tmp/w" "$PWD" /tmp; do
      [ ! -e "$d/$m" ] || { echo "a file name was run as a command: $d/$m exists"; exit 1; }
    done
  done
}
# nessie installed under a directory a shell would split and run, with
# a TMPDIR of the same kind, so that the runtime's path and the
# temporary directory's are hostile too
inst="$tmp/in st;\$(touch PWNED3)"
mkdir -p "$inst/lib" "$tmp/w" "$tmp/t;\$(touch PWNED4)"
cp "$NESSIE" "$inst/nessie"
cp -R "$(dirname "$NESSIE")/lib/nessie" "$inst/lib/nessie"
if command -v nvcc > /dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  targets="cuda cpu"
else
  targets=cpu
fi
export NESSIE_NVCCFLAGS=-O0 NESSIE_CFLAGS=-O0
for t in $targets; do
  rm -rf "$tmp/w"/*
  # the executable named after the file: `a b;$(touch PWNED)`
  (cd "$tmp/w" && TMPDIR="$tmp/t;\$(touch PWNED4)" "$inst/nessie" --target=$t "$tmp/$src") > "$tmp/log" 2>&1 ||
    { echo "--target=$t '$src': exit $?: $(cat "$tmp/log")"; exit 1; }
  markers
  [ -x "$tmp/w/a b;\$(touch PWNED)" ] || { echo "--target=$t: no executable 'a b;\$(touch PWNED)': $(ls "$tmp/w")"; exit 1; }
  # -o OUT, with -v
  (cd "$tmp/w" && "$NESSIE" -v --target=$t -o "$out" "$tmp/$src") > "$tmp/log" 2>&1 ||
    { echo "--target=$t -o '$out': exit $?: $(cat "$tmp/log")"; exit 1; }
  markers
  [ -x "$tmp/w/$out" ] || { echo "--target=$t: no executable '$out': $(ls "$tmp/w")"; exit 1; }
  [ "$(ls "$tmp/w" | wc -l)" = 2 ] || { echo "--target=$t left files beside the executables: $(ls "$tmp/w")"; exit 1; }
  # each line of -v reads back as its words: the last word of the line
  # that puts the executable in place is the name given
  line=$(grep "^mv " "$tmp/log") || { echo "-v does not show where the executable goes: $(cat "$tmp/log")"; exit 1; }
  eval "set -- $line"
  markers
  [ "$#" = 3 ] && [ "$3" = "$out" ] || { echo "-v's line does not read back: $line"; exit 1; }
done
exit 0
