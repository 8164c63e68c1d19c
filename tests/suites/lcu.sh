# lcu: λcu's interpreter after fusion (--interp=lcu, the default -O1,
# every IR checked) prints each corpus program's reference output.
. tests/suites/lib.sh
corpus_run lcu --check-ir --interp=lcu
finish
