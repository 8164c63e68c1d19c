# install: nessie installed as a compiler is (issue 44).
#
# - install/make-install: `make install` into a DESTDIR puts the binary,
#   the runtime, the man page, the documentation and the editors' files
#   where README.md ("Installing") says;
# - install/moved-cpu-build: the installed tree, moved elsewhere as a
#   whole, builds examples/sqr.nesl for the CPU from another directory,
#   with no variable set, also through a link to the binary, and the
#   executable prints examples/sqr.expected (less the `= fn :` lines an
#   executable does not print); its --version names the moved runtime;
# - install/uninstall: `make uninstall` leaves no file of an install;
# - install/man-options, man-stages, man-repl, man-environment: every
#   option of `nessie --help` is in the man page (docs/nessie.1) and every
#   option there is in --help; so are the --dump stages, the interpreters
#   and the REPL's commands of :help, and every variable the sources read
#   (getenv, rt_env_on); install/man-renders: groff reads the page
#   without a warning (where groff is);
# - install/deb: `make deb`'s package holds the install under /usr, with
#   the Depends and Suggests of tools/deb-control.sh, and its nessie finds
#   its runtime (skipped, saying so, where dpkg-deb is missing);
# - install/diagnostics-json-NAME: --diagnostics=json prints
#   tests/install/NAME.err exactly, every line a JSON object; a file name
#   that JSON must escape; the "too many errors" note; a file that
#   cannot be read;
# - install/version: --version's four lines;
# - install/editors-builtins: the editors' lists of built-ins are the
#   library's (tools/builtins.sh); install/vim, install/emacs: the syntax
#   groups and faces at the places tests/install/editors.expected names
#   (where vim or emacs is; skipped, saying so, where not).
#
# The CPU build of sqr is most of the suite's time (a few seconds).
. tests/suites/lib.sh
ROOT=$(pwd)
ABS_OUT=$(cd "$OUT" && pwd)
ABS_NESSIE=$(cd "$(dirname "$NESSIE")" && pwd)/nessie
VERSION=$(sed -n 's/^VERSION := //p' Makefile)
# the sub-makes build nothing that `make test` has not built; -s: only
# their errors
MAKE_CMD=${MAKE:-make}

# ---- install into a DESTDIR ----
STAGE=$ABS_OUT/stage
if o=$($MAKE_CMD -s install BUILD="$BUILD" DESTDIR="$STAGE" PREFIX=/opt/nessie 2>&1); then
  missing=""
  for f in bin/nessie lib/nessie/libnessie_rt.a lib/nessie/include/rt.h lib/nessie/include/kernel.h \
           lib/nessie/include/scalar.h share/man/man1/nessie.1 share/doc/nessie/README.md \
           share/doc/nessie/docs/nesl.md share/doc/nessie/examples/sqr.nesl share/doc/nessie/examples/README.md \
           share/vim/vimfiles/syntax/nesl.vim share/vim/vimfiles/ftdetect/nesl.vim \
           share/emacs/site-lisp/nesl-mode.el; do
    [ -f "$STAGE/opt/nessie/$f" ] || missing="$missing $f"
  done
  # the CUDA runtime where the build has one
  for f in "$BUILD"/lib/nessie/libnessie_rt_cuda.a "$BUILD"/lib/nessie/include/gpu.cuh; do
    [ -f "$f" ] && { [ -f "$STAGE/opt/nessie/lib/nessie/${f#"$BUILD"/lib/nessie/}" ] || missing="$missing $f"; }
  done
  [ -x "$STAGE/opt/nessie/bin/nessie" ] || missing="$missing (bin/nessie not executable)"
  if [ -z "$missing" ]; then pass install/make-install
  else fail install/make-install "missing under DESTDIR/opt/nessie:$missing"; fi
else
  fail install/make-install "$o"
fi

# ---- the installed tree moved, used from elsewhere ----
MOVED=$ABS_OUT/elsewhere/nessie-moved
mkdir -p "$ABS_OUT/elsewhere" "$ABS_OUT/work" "$ABS_OUT/links"
if [ -d "$STAGE/opt/nessie" ] && mv "$STAGE/opt/nessie" "$MOVED"; then
  grep -v ' = fn : ' examples/sqr.expected > "$ABS_OUT/sqr.expected"
  ln -s "$MOVED/bin/nessie" "$ABS_OUT/links/nessie"
  d=""
  # no variable that could point nessie at the build tree's runtime, and
  # the build tree off the PATH: run from an empty directory
  for how in direct link; do
    case $how in direct) bin=$MOVED/bin/nessie ;; link) bin=$ABS_OUT/links/nessie ;; esac
    rm -f "$ABS_OUT/work/sqr"
    if ! o=$(cd "$ABS_OUT/work" && env -u NESSIE_CC -u NESSIE_CFLAGS "$bin" --target=cpu "$ROOT/examples/sqr.nesl" -o sqr 2>&1); then
      d="$d
$how: nessie --target=cpu failed: $o"
    elif ! o=$(cd "$ABS_OUT/work" && ./sqr 2>&1 | diff - "$ABS_OUT/sqr.expected"); then
      d="$d
$how: ./sqr differs from examples/sqr.expected: $o"
    fi
  done
  v=$("$MOVED/bin/nessie" --version | grep '^runtime: ')
  case $v in "runtime: $MOVED/lib/nessie "*) ;; *) d="$d
--version says '$v', not the moved runtime $MOVED/lib/nessie" ;; esac
  if [ -z "$d" ]; then pass install/moved-cpu-build; else fail install/moved-cpu-build "$d"; fi
  # a library from the moved tree (its runtime archive is -fPIC, and
  # the Python binding's code comes from it): a C program runs against it
  if o=$(cd "$ABS_OUT/work" && env -u NESSIE_CC -u NESSIE_CFLAGS "$MOVED/bin/nessie" --library --target=cpu -o kernels "$ROOT/tests/library/kernels.nesl" 2>&1 &&
         cc -std=c17 -I. -o test_kernels "$ROOT/tests/library/test_kernels.c" -L. -lkernels -pthread -Wl,-rpath,"$ABS_OUT/work" &&
         ./test_kernels >/dev/null && grep -q "^class NeslError" kernels.py); then
    pass install/moved-library
  else
    fail install/moved-library "$o"
  fi
else
  fail install/moved-cpu-build "no installed tree to move"
fi

# ---- uninstall: an install, then nothing left ----
STAGE2=$ABS_OUT/stage2
if o=$($MAKE_CMD -s install BUILD="$BUILD" DESTDIR="$STAGE2" PREFIX=/usr/local 2>&1 &&
       $MAKE_CMD -s uninstall BUILD="$BUILD" DESTDIR="$STAGE2" PREFIX=/usr/local 2>&1); then
  left=$(find "$STAGE2" ! -type d)
  if [ -z "$left" ]; then pass install/uninstall; else fail install/uninstall "left after uninstall: $left"; fi
else
  fail install/uninstall "$o"
fi

# ---- the man page against --help, :help and the sources ----
MAN=docs/nessie.1
# the options --help lists: the words beginning with - at the start of
# its option lines ("  -o OUT", "  -O0, -O1", "  --interp[=ENGINE]")
"$NESSIE" --help | sed -n 's/^  \(-[^ ].*\)/\1/p' | sed 's/   .*//' | tr ',' '\n' |
  sed -n 's/^ *\(--*[A-Za-z0-9][-A-Za-z0-9]*\).*/\1/p' | LC_ALL=C sort -u > "$OUT/help-options"
# the options the man page gives an entry: the line after each .TP in
# OPTIONS, its roff undone (\- is -, fonts and quotes dropped)
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$MAN" | awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' |
  sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/^\.[A-Z]* *//' -e 's/"//g' | tr ',' '\n' |
  sed -n 's/^ *\(--*[A-Za-z0-9][-A-Za-z0-9]*\).*/\1/p' | LC_ALL=C sort -u > "$OUT/man-options"
if [ "$(wc -l < "$OUT/help-options")" -lt 15 ]; then
  fail install/man-options "too few options read from --help: $(tr '\n' ' ' < "$OUT/help-options")"
elif d=$(diff "$OUT/help-options" "$OUT/man-options"); then
  pass install/man-options
else
  fail install/man-options "< in --help only, > in docs/nessie.1 only:
$d"
fi

# the stages and interpreters, named in --help's tables, each an entry
# (.TP, then .B NAME) of the man page's STAGES or INTERPRETERS
man_entries() {
  sed -n "/^\.SH $1/,/^\.SH /p" "$MAN" | awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' |
    sed -n 's/^\.B \([a-z]*\)$/\1/p' | LC_ALL=C sort
}
"$NESSIE" --help | sed -n '/STAGE is one of/,/--interp/p' | sed -n 's/^                     \([a-z][a-z]*\) .*/\1/p' |
  LC_ALL=C sort > "$OUT/help-stages"
"$NESSIE" --help | sed -n '/ENGINE is one of/,/^$/p' | sed -n 's/^                     \([a-z][a-z]*\) .*/\1/p' |
  LC_ALL=C sort > "$OUT/help-engines"
d=""
man_entries STAGES | diff "$OUT/help-stages" - > "$OUT/stages.diff" || d="stages (< --help, > man): $(cat "$OUT/stages.diff")"
man_entries INTERPRETERS | diff "$OUT/help-engines" - > "$OUT/engines.diff" ||
  d="$d interpreters (< --help, > man): $(cat "$OUT/engines.diff")"
[ -s "$OUT/help-stages" ] || d="$d no stages read from --help"
if [ -z "$d" ]; then pass install/man-stages; else fail install/man-stages "$d"; fi

# the REPL's commands (:help's lines "  :name ...") in THE REPL
printf ':help\n' | "$NESSIE" 2>&1 | sed -n 's/^  \(:[a-z]*\).*/\1/p' | LC_ALL=C sort -u > "$OUT/repl-commands"
sed -n '/^\.SH THE REPL/,/^\.SH /p' "$MAN" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' > "$OUT/man-repl"
d=""
while read -r c; do
  [ "$c" = ":STAGE" ] && continue
  grep -q -- "$c\\b" "$OUT/man-repl" || d="$d $c"
done < "$OUT/repl-commands"
if [ ! -s "$OUT/repl-commands" ]; then fail install/man-repl "no commands read from :help"
elif [ -z "$d" ]; then pass install/man-repl
else fail install/man-repl "REPL commands of :help missing from THE REPL in $MAN:$d"; fi

# every variable the compiler, the interpreters and the runtime read
grep -rhoE '(getenv|rt_env_on)\("[A-Z_]+"\)' common frontend eval rt flatten flat lower lcu fusion codegen driver |
  sed 's/.*("\([A-Z_]*\)")/\1/' | LC_ALL=C sort -u > "$OUT/env-read"
sed -n '/^\.SH ENVIRONMENT/,/^\.SH /p' "$MAN" | awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' |
  sed -n 's/^\.B \([A-Z_]*\)$/\1/p' | LC_ALL=C sort -u > "$OUT/env-man"
d=$(LC_ALL=C comm -23 "$OUT/env-read" "$OUT/env-man")
if [ "$(wc -l < "$OUT/env-read")" -lt 10 ]; then fail install/man-environment "too few variables read from the sources"
elif [ -z "$d" ]; then pass install/man-environment
else fail install/man-environment "read by the sources, not in ENVIRONMENT of $MAN: $(echo $d)"; fi

if command -v groff > /dev/null 2>&1; then
  if w=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$MAN" 2>&1) && [ -z "$w" ]; then pass install/man-renders
  else fail install/man-renders "$w"; fi
else
  echo "install/man-renders: skipped: groff not found"
fi

# ---- the Debian package ----
if command -v dpkg-deb > /dev/null 2>&1; then
  DEB=$ABS_OUT/nessie.deb
  if o=$($MAKE_CMD -s deb BUILD="$BUILD" DEB_ROOT="$ABS_OUT/deb-root" DEB_FILE="$DEB" 2>&1); then
    info=$(dpkg-deb --info "$DEB")
    contents=$(dpkg-deb --contents "$DEB")
    d=""
    field() { printf '%s\n' "$info" | sed -n "s/^ $1: //p"; }
    [ "$(field Package)" = nessie ] || d="$d Package is '$(field Package)';"
    [ "$(field Version)" = "$VERSION" ] || d="$d Version is '$(field Version)', not $VERSION;"
    deps=$(field Depends)
    for p in libgc1 libglpk40 libedit2 libc6 gcc libc6-dev; do
      case ", $deps," in *", $p "*|*", $p,"*) ;; *) d="$d Depends lacks $p ($deps);" ;; esac
    done
    case $(field Suggests) in *nvidia-cuda-toolkit*) ;; *) d="$d Suggests lacks nvidia-cuda-toolkit;" ;; esac
    for f in ./usr/bin/nessie ./usr/lib/nessie/libnessie_rt.a ./usr/lib/nessie/include/rt.h \
             ./usr/share/man/man1/nessie.1.gz ./usr/share/doc/nessie/README.md \
             ./usr/share/doc/nessie/examples/sqr.nesl ./usr/share/vim/vimfiles/syntax/nesl.vim \
             ./usr/share/emacs/site-lisp/nesl-mode.el; do
      printf '%s\n' "$contents" | grep -q " $f\$" || d="$d no $f;"
    done
    printf '%s\n' "$contents" | grep -v ' root/root ' | grep -q . && d="$d files not owned by root/root;"
    printf '%s\n' "$contents" | grep -q ' \./usr/local/\| \./opt/' && d="$d files outside /usr;"
    # the package's nessie, unpacked anywhere, finds the package's runtime
    dpkg-deb -x "$DEB" "$ABS_OUT/deb-x"
    v=$("$ABS_OUT/deb-x/usr/bin/nessie" --version | grep '^runtime: ')
    case $v in "runtime: $ABS_OUT/deb-x/usr/lib/nessie "*) ;; *) d="$d the unpacked nessie says '$v';" ;; esac
    if [ -z "$d" ]; then pass install/deb; else fail install/deb "$d"; fi
  else
    fail install/deb "$o"
  fi
else
  echo "install/deb: skipped: dpkg-deb not found (make deb needs Debian's dpkg)"
fi

# ---- --diagnostics=json ----
# json_check FILE: every line of FILE is a JSON object with the five keys
json_check() {
  command -v python3 > /dev/null 2>&1 || return 0
  python3 -c '
import json, sys
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    o = json.loads(line)
    if sorted(o) != ["column", "file", "line", "message", "severity"]:
        sys.exit("line %d: keys %s" % (n, sorted(o)))
' "$1" 2>&1
}
for f in tests/install/json_*.nesl; do
  n=$(basename "$f" .nesl)
  mode=--types
  [ -f "tests/install/$n.expected" ] && mode=--interp
  (cd tests/install && "$ABS_NESSIE" --diagnostics=json $mode "$n.nesl" > "$ABS_OUT/$n.out" 2> "$ABS_OUT/$n.err")
  rc=$?
  d=""
  [ $rc -eq 1 ] || d="exit status $rc, not 1;"
  cmp -s "$OUT/$n.err" "tests/install/$n.err" || d="$d stderr differs: $(diff "$OUT/$n.err" "tests/install/$n.err" | head -6)"
  if [ -f "tests/install/$n.expected" ]; then
    o=$("$BUILD/nesl_compare" "$OUT/$n.out" "tests/install/$n.expected" 2>&1) || d="$d transcript differs: $o"
  fi
  o=$(json_check "$OUT/$n.err") || d="$d $o"
  if [ -z "$d" ]; then pass "install/diagnostics-json-$n"; else fail "install/diagnostics-json-$n" "$d"; fi
done
# a file name with a quote, a backslash and a byte that is not UTF-8
odd=$(printf 'q"b\\c\377.nesl')
printf 'x = 1 + `a;\n' > "$OUT/$odd"
(cd "$OUT" && "$ABS_NESSIE" --diagnostics=json --types "$odd" 2> odd.err > /dev/null)
want='{"file":"q\"b\\c\ufffd.nesl","line":1,"column":7,"severity":"error","message":"type error in '"'"'1 + `a'"'"': the operands of + have types int, char, but + takes (a, a) :: (a in number)"}'
if [ "$(cat "$OUT/odd.err")" = "$want" ] && o=$(json_check "$OUT/odd.err"); then pass install/diagnostics-json-file-name
else fail install/diagnostics-json-file-name "got $(cat "$OUT/odd.err")
want $want $o"; fi
# more errors than are shown: the note without a location ends it
awk 'BEGIN { for (i = 0; i < 25; i++) printf "x%d = 1 + `a;\n", i }' > "$OUT/many.nesl"
"$NESSIE" --diagnostics=json --types "$OUT/many.nesl" 2> "$OUT/many.err" > /dev/null
last=$(tail -1 "$OUT/many.err")
if [ "$(wc -l < "$OUT/many.err")" -eq 21 ] &&
   [ "$last" = '{"file":null,"line":null,"column":null,"severity":"note","message":"too many errors (more than 20), stopping"}' ] &&
   o=$(json_check "$OUT/many.err"); then
  pass install/diagnostics-json-too-many
else
  fail install/diagnostics-json-too-many "$(wc -l < "$OUT/many.err") lines, the last: $last $o"
fi

# an input that cannot be read: exit status 3, and a JSON line
"$NESSIE" --diagnostics=json --types "$OUT/missing.nesl" 2> "$OUT/missing.err" > /dev/null
rc=$?
want='{"file":null,"line":null,"column":null,"severity":"error","message":"cannot read '"'$OUT/missing.nesl'"': No such file or directory"}'
if [ $rc -eq 3 ] && [ "$(cat "$OUT/missing.err")" = "$want" ]; then pass install/diagnostics-json-unreadable
else fail install/diagnostics-json-unreadable "status $rc, stderr $(cat "$OUT/missing.err")"; fi

# ---- --version ----
"$NESSIE" --version > "$OUT/version" 2>&1
d=""
sed -n 1p "$OUT/version" | grep -Eq "^nessie $VERSION \\(commit ([0-9A-Za-z._+-]+)\\)\$" || d="line 1;"
sed -n 2p "$OUT/version" | grep -Eq '^C compiler: (.+ \(.+\)|none \(.+\))$' || d="$d line 2;"
sed -n 3p "$OUT/version" | grep -Eq '^CUDA toolkit: (release [0-9]+\.[0-9]+ \(.+\)|none \(.+\))$' || d="$d line 3;"
sed -n 4p "$OUT/version" | grep -Eq "^runtime: $(cd "$BUILD" && pwd)/lib/nessie \\((CPU only|CPU and CUDA)\\)\$" || d="$d line 4;"
[ "$(wc -l < "$OUT/version")" -eq 4 ] || d="$d not 4 lines;"
# without a C compiler or nvcc, it says none
NESSIE_CC=/nonexistent/cc NESSIE_NVCC=/nonexistent/nvcc "$NESSIE" --version > "$OUT/version-none" 2>&1
grep -q '^C compiler: none (' "$OUT/version-none" || d="$d no 'C compiler: none' without one;"
grep -q '^CUDA toolkit: none (' "$OUT/version-none" || d="$d no 'CUDA toolkit: none' without nvcc;"
if [ -z "$d" ]; then pass install/version; else fail install/version "$d
$(cat "$OUT/version")"; fi

# ---- editors ----
sh tools/builtins.sh > "$OUT/builtins"
sed -n '/BEGIN BUILTINS/,/END BUILTINS/p' editors/vim/syntax/nesl.vim | sed -n 's/^syn keyword neslBuiltin //p' |
  tr ' ' '\n' | LC_ALL=C sort > "$OUT/builtins-vim"
sed -n '/BEGIN BUILTINS/,/END BUILTINS/p' editors/emacs/nesl-mode.el | grep -v BUILTINS | tr ' ' '\n' |
  sed -n 's/^"\(.*\)"$/\1/p' | LC_ALL=C sort > "$OUT/builtins-emacs"
d=""
cmp -s "$OUT/builtins" "$OUT/builtins-vim" || d="vim: $(diff "$OUT/builtins" "$OUT/builtins-vim" | head -5)"
cmp -s "$OUT/builtins" "$OUT/builtins-emacs" || d="$d emacs: $(diff "$OUT/builtins" "$OUT/builtins-emacs" | head -5)"
[ "$(wc -l < "$OUT/builtins")" -gt 150 ] || d="$d only $(wc -l < "$OUT/builtins") built-ins read from lib-nesl"
if [ -z "$d" ]; then pass install/editors-builtins
else fail install/editors-builtins "$d (sh tools/builtins.sh --update writes the lists)"; fi

if command -v vim > /dev/null 2>&1; then
  OUT_FILE=$ABS_OUT/vim.out vim -N -u NONE -i NONE -Es -c 'set rtp^=editors/vim' -c 'filetype on' -c 'syntax on' \
    -c 'runtime ftdetect/nesl.vim' -c 'e tests/install/editors.nesl' -c 'so tests/install/editors.vim' < /dev/null > /dev/null 2>&1
  awk '{ print $1, $2 }' tests/install/editors.expected > "$OUT/vim.expected"
  echo "filetype nesl" >> "$OUT/vim.expected"
  if d=$(awk '{ print $1, ($2 == "" ? "-" : $2) }' "$OUT/vim.out" 2>&1 | diff - "$OUT/vim.expected"); then
    pass install/vim
  else fail install/vim "< vim, > tests/install/editors.expected: $d"; fi
else
  echo "install/vim: skipped: vim not found"
fi
if command -v emacs > /dev/null 2>&1; then
  emacs --batch -Q -l tests/install/editors.el > "$OUT/emacs.out" 2> "$OUT/emacs.err"
  { awk '{ print $1, $3 }' tests/install/editors.expected; echo "mode nesl-mode"; } > "$OUT/emacs.expected"
  if d=$(diff "$OUT/emacs.out" "$OUT/emacs.expected"); then pass install/emacs
  else fail install/emacs "< emacs, > tests/install/editors.expected: $d $(tail -3 "$OUT/emacs.err")"; fi
else
  echo "install/emacs: skipped: emacs not found"
fi
finish
