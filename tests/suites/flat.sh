# flat: the flat IR's interpreter (--interp=flat, every IR checked)
# prints each corpus program's reference output.
. tests/suites/lib.sh
corpus_run flat --check-ir --interp=flat
finish
