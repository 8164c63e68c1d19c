# tests/suites/library.sh: `nessie --library` (docs/library.md) on the
# CPU target: tests/library/kernels.nesl built into a shared library, a
# C program linked against it (test_kernels.c), the Python binding with
# NumPy (test_kernels.py, skipped without NumPy: `make setup`), and a
# function's result equal to the executable's on the same input.
. tests/suites/lib.sh
# make test-asan builds the library with the sanitizers (NESSIE_CFLAGS):
# the C program takes them too, and Python, which cannot load a library
# that needs the sanitizers' runtime first, is skipped
san=""
case ${NESSIE_CFLAGS:-} in *-fsanitize*) san=$NESSIE_CFLAGS ;; esac
dir=$OUT/lib
mkdir -p "$dir"
if "$NESSIE" --library --target=cpu -o "$dir/kernels" tests/library/kernels.nesl >"$OUT/build.out" 2>&1 &&
   [ -f "$dir/libkernels.so" ] && [ -f "$dir/kernels.h" ] && [ -f "$dir/kernels.py" ]; then
  pass "build libkernels.so, kernels.h, kernels.py"
else
  fail "build libkernels.so, kernels.h, kernels.py" "$(cat "$OUT/build.out")"
fi
# a polymorphic function is named in a warning, not exported; one whose
# instances declarations name is exported at them alone
if grep -q "warning: 'pick' is not exported: it is polymorphic" "$OUT/build.out" &&
   ! grep -q "'poly' is not exported" "$OUT/build.out" && ! grep -q "kernels_poly(\|kernels_pick(" "$dir/kernels.h"; then
  pass "a polymorphic function is not exported"
else
  fail "a polymorphic function is not exported" "$(cat "$OUT/build.out")"
fi
if grep -q "^int kernels_poly_int(kernels_context \*ctx, const kernels_seq_int \*xs, kernels_seq_int \*\*result);" "$dir/kernels.h" &&
   grep -q "^int kernels_poly_float(" "$dir/kernels.h" &&
   grep -q "^int kernels_swap_int_seq_char(kernels_context \*ctx, int32_t n, const kernels_seq_char \*s, kernels_seq_char \*\*result1, int32_t \*result2);" "$dir/kernels.h"; then
  pass "declared instances are exported, named by their types"
else
  fail "declared instances are exported, named by their types" "$(grep -n "poly\|swap" "$dir/kernels.h")"
fi
# the header compiles alone, as C and as C++
if cc -std=c17 -Wall -Wextra -Werror -fsyntax-only -x c "$dir/kernels.h" 2>"$OUT/h.err"; then
  pass "kernels.h compiles alone"
else
  fail "kernels.h compiles alone" "$(cat "$OUT/h.err")"
fi
if ! command -v c++ >/dev/null 2>&1 || c++ -std=c++17 -Wall -Wextra -Werror -fsyntax-only -x c++ "$dir/kernels.h" 2>"$OUT/hpp.err"; then
  pass "kernels.h compiles as C++"
else
  fail "kernels.h compiles as C++" "$(cat "$OUT/hpp.err")"
fi
# shellcheck disable=SC2086
if cc $san -std=c17 -Wall -Wextra -Werror -I"$dir" -o "$dir/test_kernels" tests/library/test_kernels.c -L"$dir" -lkernels -pthread \
     -Wl,-rpath,"$(cd "$dir" && pwd)" 2>"$OUT/c.err"; then
  # under the sanitizers, LeakSanitizer too: the library frees what it makes
  ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=1" "$dir/test_kernels" >"$OUT/c.out" 2>&1
  echo "rc $?" >>"$OUT/c.out"
  grep -v '^rc ' "$OUT/c.out" | relay
  grep -q "^rc 0$" "$OUT/c.out" && pass "c program exits 0" || fail "c program exits 0" "$(cat "$OUT/c.out")"
else
  fail "c program links against libkernels.so" "$(cat "$OUT/c.err")"
fi
# two libraries in one program
if "$NESSIE" --library --target=cpu -o "$dir/other" tests/library/other.nesl >"$OUT/two.out" 2>&1 &&
   cc $san -std=c17 -Wall -Wextra -Werror -I"$dir" -o "$dir/test_two" tests/library/test_two.c -L"$dir" -lkernels -lother \
     -Wl,-rpath,"$(cd "$dir" && pwd)" 2>>"$OUT/two.out" && "$dir/test_two" >>"$OUT/two.out" 2>&1; then
  pass "two libraries in one program"
else
  fail "two libraries in one program" "$(cat "$OUT/two.out")"
fi
# a Python with NumPy: python3, else Debian's (a pyenv python3 may lack it)
py=""
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c "import numpy" 2>/dev/null; then py=$p; break; fi
done
if [ -n "$san" ]; then
  echo "[SKIP] python tests: the library is built with sanitizers ($san)"
elif [ -n "$py" ]; then
  "$py" tests/library/test_kernels.py "$dir" >"$OUT/py.out" 2>&1
  echo "rc $?" >>"$OUT/py.out"
  grep -v '^rc ' "$OUT/py.out" | relay
  grep -q "^rc 0$" "$OUT/py.out" && pass "python tests exit 0" || fail "python tests exit 0" "$(cat "$OUT/py.out")"
  # the same fused code as an executable: spmv's statement in kernels.nesl
  # (it is not run by the library) against the library's call
  if "$NESSIE" --target=cpu -o "$OUT/kernels_exe" tests/library/kernels.nesl >"$OUT/exe.err" 2>&1; then
    exe=$("$OUT/kernels_exe" | grep "^it = ")
    lib=$("$py" -c "
import sys; sys.path.insert(0, '$dir'); import kernels
r = kernels.spmv([[(0, 1.0), (1, 2.0)], [], [(1, 3.0)]], [1.0, 2.0])
print('it = [' + ', '.join('%.1f' % v for v in r) + '] : [float]')")
    [ "$exe" = "$lib" ] && pass "library equals executable ($lib)" || fail "library equals executable" "exe: $exe
lib: $lib"
  else
    fail "library equals executable" "$(cat "$OUT/exe.err")"
  fi
else
  echo "[SKIP] python tests: no python3 with NumPy (make setup installs it)"
fi
# the benchmark of a call's cost (docs/library.md) runs, briefly: 200
# calls a measure (its figures are not checked here)
if [ -n "$san" ]; then
  echo "[SKIP] libcall benchmark: the library is built with sanitizers ($san)"
elif sh tests/library/libcall.sh "$BUILD" "$OUT/libcall" cpu 200 >"$OUT/libcall.out" 2>&1 &&
     grep -q "^  inc(x) : int -> int  *[0-9.]*$" "$OUT/libcall.out"; then
  pass "libcall benchmark runs"
else
  fail "libcall benchmark runs" "$(cat "$OUT/libcall.out")"
fi
# the CUDA target's library builds and a C program links against it (no
# GPU here to run it: make gpu-test runs tests/gpu/library.sh)
if [ -f "$BUILD/lib/nessie/libnessie_rt_cuda.a" ] && { command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; }; then
  mkdir -p "$OUT/cuda"
  if env -u NESSIE_CFLAGS "$NESSIE" --library --target=cuda -o "$OUT/cuda/kernels" tests/library/kernels.nesl >"$OUT/cuda.out" 2>&1 &&
     cc -std=c17 -Wall -Wextra -Werror -I"$OUT/cuda" -o "$OUT/cuda/test_kernels" tests/library/test_kernels.c \
       -L"$OUT/cuda" -lkernels -pthread 2>>"$OUT/cuda.out"; then
    pass "cuda library builds, a C program links"
  else
    fail "cuda library builds, a C program links" "$(cat "$OUT/cuda.out")"
  fi
  # without a GPU, as here: NAME_context_new gives a context in an error
  # state instead of exiting, and Python raises NeslError (skipped on a
  # machine with a GPU: tests/gpu/library.sh runs the library there)
  if cc -std=c17 -Wall -Wextra -Werror -I"$OUT/cuda" -o "$OUT/cuda/test_nogpu" tests/library/test_nogpu.c \
       -L"$OUT/cuda" -lkernels -Wl,-rpath,"$(cd "$OUT/cuda" && pwd)" 2>"$OUT/nogpu.err"; then
    "$OUT/cuda/test_nogpu" >"$OUT/nogpu.out" 2>&1
    echo "rc $?" >>"$OUT/nogpu.out"
    grep -v '^rc ' "$OUT/nogpu.out" | relay
    grep -q "^rc 0$" "$OUT/nogpu.out" && pass "cuda without a GPU: the process goes on" ||
      fail "cuda without a GPU: the process goes on" "$(cat "$OUT/nogpu.out")"
    if [ -n "$py" ] && [ -z "$san" ] && grep -q "^\[PASS\]" "$OUT/nogpu.out"; then
      if "$py" -c "
import sys; sys.path.insert(0, '$OUT/cuda'); import kernels
for i in range(2):
    try:
        kernels.add1(1)
        sys.exit('add1 returned')
    except kernels.NeslError as e:
        assert 'no CUDA device' in e.message, e.message
" >"$OUT/nogpu.py" 2>&1; then
        pass "cuda without a GPU: python raises NeslError"
      else
        fail "cuda without a GPU: python raises NeslError" "$(cat "$OUT/nogpu.py")"
      fi
    fi
  else
    fail "cuda without a GPU: test_nogpu.c links" "$(cat "$OUT/nogpu.err")"
  fi
fi
# a function that reads a top-level value, itself or through a function
# it calls, is named in a warning and not exported (other.nesl)
if grep -q "other.nesl:9:1: warning: 'scaled' is not exported: it reads 'scale', a top-level value (line 8)" "$OUT/two.out" &&
   grep -q "other.nesl:10:1: warning: 'scaled_twice' is not exported: it reads 'scale' (through 'scaled')" "$OUT/two.out" &&
   ! grep -q "other_scaled" "$dir/other.h" && grep -q "other_shadowed(" "$dir/other.h" && grep -q "other_circle(" "$dir/other.h"; then
  pass "a function reading a top-level value is not exported"
else
  fail "a function reading a top-level value is not exported" "$(cat "$OUT/two.out")"
fi
printf 'n = 10;\nfunction add_n(x) : int -> int = x + n;\n' >"$OUT/values.nesl"
if ! "$NESSIE" --library --target=cpu -o "$OUT/values" "$OUT/values.nesl" >"$OUT/values.out" 2>&1 &&
   grep -q "values.nesl:2:1: warning: 'add_n' is not exported: it reads 'n'" "$OUT/values.out" &&
   grep -q "values.nesl:1:1: error: no function" "$OUT/values.out"; then
  pass "nothing to export but readers of values is an error"
else
  fail "nothing to export but readers of values is an error" "$(cat "$OUT/values.out")"
fi
# a library's errors (tests/library/errors/NAME.nesl): what nessie
# prints is NAME.err, and it exits 1 (the library is named lib)
for f in tests/library/errors/*.nesl; do
  n=$(basename "$f" .nesl)
  "$NESSIE" --library --target=cpu -o "$OUT/lib" "$f" >"$OUT/$n.err" 2>&1
  rc=$?
  if [ $rc -ne 1 ]; then
    fail "library-errors/$n" "exit status $rc, expected 1: $(cat "$OUT/$n.err")"
  elif ! diff -u "tests/library/errors/$n.err" "$OUT/$n.err" >"$OUT/$n.diff"; then
    fail "library-errors/$n" "$(cat "$OUT/$n.diff")"
  else
    pass "library-errors/$n"
  fi
done
# a file with nothing to export is an error
printf 'function ident(y) = y;\n' >"$OUT/none.nesl"
if "$NESSIE" --library --target=cpu -o "$OUT/none" "$OUT/none.nesl" >"$OUT/none.out" 2>&1; then
  fail "nothing to export is an error" "$(cat "$OUT/none.out")"
elif grep -q "none.nesl:1:1: error: no function" "$OUT/none.out"; then
  pass "nothing to export is an error"
else
  fail "nothing to export is an error" "$(cat "$OUT/none.out")"
fi
finish
