#!/usr/bin/env python3
"""tests/fuzz/gen_bounds.py SEED: a random NESL program of subscripts
under conditions on lengths, for flatten/bounds.c, which leaves out the
checks of the subscripts that the conditions keep in range.  Each
function's body nests ifs on `#a` (comparisons with small constants,
either way round, and, or, nor, nand, not), lets that bind `a` again,
lets that bind ints to `#a`, `#a / c`, `#a - c` or a constant, and
subscripts `a[k]`, `a[#a / c]`, `a[#a - c]` and `a[n]` with constants
that fall on both sides of the bounds (c = 0 and 1 among them); each is
applied to a few sequences of 0 to 5 elements, lifted and not.  A
subscript marked in range that is not would read a zero where NESL
fails: the transcript differs from the reference's.  The same SEED
gives the same program."""
import random
import sys

r = random.Random(int(sys.argv[1]))


def length(ints):
    """#a, or an int local bound to it (let n = #a) where one is in scope"""
    return r.choice(["#a"] + [n for n, v in ints if v == "#a"])


def cond(ints, d=0):
    c = r.random()
    if d < 2 and c < 0.25:
        return "(%s %s %s)" % (cond(ints, d + 1), r.choice(["and", "or", "nor", "nand"]), cond(ints, d + 1))
    if d < 2 and c < 0.35:
        return "not(%s)" % cond(ints, d + 1)
    k = r.randint(0, 4)
    op = r.choice(["<", "<=", ">", ">=", "==", "/="])
    n = length(ints)
    return "%s %s %d" % (n, op, k) if r.random() < 0.7 else "%d %s %s" % (k, op, n)


def index(ints):
    c = r.random()
    if c < 0.2 and ints:
        return r.choice(ints)[0]
    if c < 0.4:
        return str(r.randint(-1, 4))
    if c < 0.65:
        return "%s / %d" % (length(ints), r.randint(1, 3))
    return "%s - %d" % (length(ints), r.randint(0, 4))


def body(ints, d=0):
    """ints: the int locals in scope, (name, what it was bound to)"""
    c = r.random()
    if d < 2 and c < 0.3:
        return "if %s then %s else %s" % (cond(ints), body(ints, d + 1), body(ints, d + 1))
    if d < 2 and c < 0.38:
        # a bound again: what was known of it, and the locals bound to its
        # length, no longer hold (they keep the old length)
        return "let a = %s in %s" % (r.choice(["[1]", "[1, 2, 3]", "drop(a, 1)", "a ++ a"]), body(ints, d + 1))
    if d < 2 and c < 0.5:
        name = "n%d" % d
        v = r.choice(["#a", "#a", "%s / %d" % (length(ints), r.randint(1, 3)),
                      "%s - %d" % (length(ints), r.randint(0, 3)), str(r.randint(0, 3))])
        inner = [(n, w) for n, w in ints if n != name] + [(name, v)]
        return "let %s = %s in %s" % (name, v, body(inner, d + 1))
    if c < 0.85:
        return "a[%s]" % index(ints)
    return str(r.randint(-9, -1))


SEQS = ["[] int", "[7]", "[7, 8]", "[7, 8, 9]", "[7, 8, 9, 10]", "[7, 8, 9, 10, 11]"]
print("% tests/fuzz/gen_bounds.py " + sys.argv[1] + " %")
for f in range(6):
    print("function f%d(a) = %s;" % (f, body([])))
    print("{f%d(a) : a in [%s]};" % (f, ", ".join(r.sample(SEQS, r.randint(1, 4)))))
    print("f%d(%s);" % (f, r.choice(SEQS)))
