# eval: the source evaluator (--interp=eval) prints each corpus
# program's reference output (tests/programs/NAME.expected).
. tests/suites/lib.sh
corpus_run eval --interp=eval
finish
