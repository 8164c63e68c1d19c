# sync: the corpus copy is in sync with ../shared/corpus (tests/programs
# and tests/errors; `make sync-corpus` copies it).  No test where
# ../shared/corpus is absent.
. tests/suites/lib.sh
if [ -d ../shared/corpus ]; then
  if d=$(diff -r -q ../shared/corpus tests/programs 2>&1 | grep -v '^Only in tests/programs' | grep -v "^Only in ../shared/corpus: errors"); [ -z "$d" ] &&
     d2=$(diff -r -q ../shared/corpus/errors tests/errors 2>&1) && [ -z "$d2" ]; then
    pass sync/corpus
  else
    fail sync/corpus "$d ${d2:-} (run 'make sync-corpus')"
  fi
fi
finish
