# lcu-O0: λcu's interpreter without fusion (-O0: the IR as lowering
# makes it, checked) prints each corpus program's reference output.
. tests/suites/lib.sh
corpus_run lcu-O0 -O0 --check-ir --interp=lcu
finish
