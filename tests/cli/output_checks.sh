# Issue 38, item 2: -o is checked before anything is compiled.  `nessie
# self.nesl -o self.nesl` once replaced the program with the executable,
# silently (through ./self.nesl and a link too); a directory or a place
# that cannot be written was reported by ld after the whole compilation.
# Now each is refused at once with status 2 (bad usage), the program left
# as it was.  The program here has a syntax error: a message about -o,
# not about the syntax, shows that nothing was compiled first.
set -u
case $NESSIE in /*) ;; *) NESSIE=$PWD/$NESSIE ;; esac # the tests change directory
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2> /dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
printf 'x = 1 +;\n' > self.nesl
cp self.nesl orig
ln -s self.nesl link.nesl
ln self.nesl hard.nesl
mkdir dir
refused() { # description pattern nessie-arguments...
  what=$1; pattern=$2; shift 2
  err=$("$NESSIE" --target=cpu "$@" 2>&1 < /dev/null); got=$?
  [ "$got" = 2 ] || { echo "$what: exit $got, expected 2 ($*): $err"; exit 1; }
  printf '%s' "$err" | grep -q -- "$pattern" || { echo "$what: no '$pattern' in: $err"; exit 1; }
  cmp -s self.nesl orig || { echo "$what: the program was changed"; exit 1; }
}
refused "-o the input" "-o 'self.nesl' is the input file" self.nesl -o self.nesl
refused "-o ./the input" "-o './self.nesl' is the input file" self.nesl -o ./self.nesl
refused "-o the input by its full path" "is the input file" self.nesl -o "$tmp/self.nesl"
refused "-o a link to the input" "-o 'link.nesl' is the input file" self.nesl -o link.nesl
refused "the input through a link" "-o 'self.nesl' is the input file" link.nesl -o self.nesl
refused "-o another name of the input" "-o 'hard.nesl' is the input file" self.nesl -o hard.nesl
# standard input redirected from the program
err=$("$NESSIE" --target=cpu - -o self.nesl 2>&1 < self.nesl); got=$?
[ "$got" = 2 ] && printf '%s' "$err" | grep -q "is the input file" || { echo "- < self.nesl -o self.nesl: exit $got: $err"; exit 1; }
cmp -s self.nesl orig || { echo "- < self.nesl -o self.nesl: the program was changed"; exit 1; }
# --keep writes OUT.c: not over the input either
cp self.nesl prog.c
err=$("$NESSIE" --target=cpu --keep -o prog prog.c 2>&1); got=$?
[ "$got" = 2 ] && printf '%s' "$err" | grep -q "over the input file 'prog.c'" || { echo "--keep over the input: exit $got: $err"; exit 1; }
refused "-o a directory" "cannot write the executable 'dir': it is a directory" self.nesl -o dir
refused "-o a directory/" "it is a directory" self.nesl -o dir/
refused "-o in a missing directory" "cannot write the executable 'none/x': 'none': No such file or directory" self.nesl -o none/x
refused "-o under a file" "'orig' is not a directory" self.nesl -o orig/x
# a directory without write permission (root writes anywhere: not checked)
if [ "$(id -u)" != 0 ]; then
  mkdir ro && chmod a-w ro
  refused "-o in a read-only directory" "cannot write the executable 'ro/x': 'ro': Permission denied" self.nesl -o ro/x
fi
# a good -o still builds, over an old file of that name
printf 'function sqr(x) = x * x;\nsqr(3);\n' > ok.nesl
echo old > out
"$NESSIE" --target=cpu ok.nesl -o out 2> err || { echo "-o out: exit $?: $(cat err)"; exit 1; }
[ "$(./out)" = "it = 9 : int" ] || { echo "the executable prints: $(./out 2>&1)"; exit 1; }
exit 0
