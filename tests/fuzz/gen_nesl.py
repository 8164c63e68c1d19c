#!/usr/bin/env python3
"""tests/fuzz/gen_nesl.py SEED [STATEMENTS]: prints a random NESL program
that is well typed and terminates, the same program for the same seed
(issue 41).  tests/fuzz/diff.sh runs it through CMU NESL 3.1 (the oracle)
and every nessie backend and compares what they print.

What it makes, and why:
  - values of type int, float, bool, sequences nested to depth 3 (empty
    and irregular ones included), pairs, and sequences of pairs;
  - apply-to-each with one or two generators (the second over a sequence
    of the same length, as NESL requires) and filters, nested;
  - user functions: plain ones, higher-order ones (a function passed by
    name), divide and conquer over sequences (halving, and quicksort's
    lifted recursion `{f(v) : v in [a, b]}`), loops over an int whose
    argument decreases (fuel), called inside apply-to-each too, so that
    flattening lifts them, and loops over a sequence with a state that
    rep updates or a scalar result, or over a sequence of pairs with a
    pair result (flatten.c's sequence loops, run on each element inside
    an apply-to-each);
  - ranges with a stride (`[a : a + n : d]`), `let` patterns with a
    wildcard (`(a, _)`), which monomorphization copies (flatten/mono.c);
  - `if` in lifted context, `let` with patterns, every group of built-ins
    (scans, reductions, permute, ++, flatten, partition, subscripts,
    take/drop, rotate, dist, sort and rank, strings, @);
  - run-time errors at known places (a subscript out of range, a division
    by zero, a length mismatch in a two-generator apply-to-each, which NESL
    checks): such a statement must fail on every backend;
  - from a second stream of random numbers (so that the rest of a seed's
    program stays what it was): top-level bindings, functions that read
    them, their redefinitions (failing ones too) and reads of `it`
    (Gen.extras).

Ints stay small where NESL and nessie could disagree only by overflow
(both wrap at 32 bits, and that is tested elsewhere); floats stay finite.
Sequences stay short: the point is the shapes, not the sizes.
"""
import random
import sys

INT, FLOAT, BOOL, CHAR = "int", "float", "bool", "char"


def seq(t):
    return ("seq", t)


def pair(a, b):
    return ("pair", a, b)


def is_seq(t):
    return isinstance(t, tuple) and t[0] == "seq"


def is_pair(t):
    return isinstance(t, tuple) and t[0] == "pair"


def data(name, a, b):
    """A datatype of two fields, `datatype name (a, b);`."""
    return ("data", name, a, b)


def is_data(t):
    return isinstance(t, tuple) and t[0] == "data"


def tname(t):
    """NESL's spelling of a type, for `[] t`."""
    if is_seq(t):
        return "[" + tname(t[1]) + "]"
    if is_pair(t):
        return "(" + tname(t[1]) + ", " + tname(t[2]) + ")"
    if is_data(t):
        return t[1]
    return t


def depth(t):
    return 1 + depth(t[1]) if is_seq(t) else 0


def fuel(e):
    """The first argument of a call to a loop with fuel (an (int, int)
    function), which counts its steps: bounded, since an unbounded one
    (min_scan's identity, say) never ends."""
    return "mod(%s, 7)" % e


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.n = 0
        # the top-level bindings' own stream (extras), apart, so that the
        # rest of a seed's program is what it was before they came
        self.r2 = random.Random(seed * 7919 + 17)
        self.n2 = 100000
        self.globals = {}  # name -> its type now
        self.readers = []  # (function, the type of the global it read)
        self.expressions = 0  # expression statements so far (`it` is then bound)
        # the last one fails: `it;` then reads the value before it, whose
        # type may be another (CMU NESL checks a statement when it comes
        # to it; nessie checks the file first: docs/nesl.md)
        self.last_failed = False
        self.last_type = None  # the type of `it` now, where known
        self.funcs = []  # (name, [arg types], result type)
        self.fixed = {}  # name -> the arguments every call passes first (functions, by name)
        self.datatypes = []  # data(...) declared by the program

    def fresh(self, base="v"):
        self.n += 1
        return "%s%d" % (base, self.n)

    def pick(self, xs):
        return self.r.choice(xs)

    def chance(self, p):
        return self.r.random() < p

    def vars_of(self, env, t):
        return [v for v, vt in env if vt == t]

    # ---- types ----
    def elem_type(self, d=0):
        """An element type for sequences: mostly ints, some floats,
        bools, pairs and nested sequences."""
        k = self.r.random()
        if k < 0.55 or d >= 2:
            return INT if k < 0.45 or d >= 3 else self.pick([FLOAT, BOOL, CHAR, INT])
        if k < 0.85:
            return seq(self.elem_type(d + 1))
        if self.datatypes and k < 0.9:
            return self.pick(self.datatypes)
        return pair(INT, self.pick([INT, FLOAT, BOOL]))

    def any_type(self):
        k = self.r.random()
        if k < 0.25:
            return self.pick([INT, INT, FLOAT, BOOL])
        if k < 0.9:
            return seq(self.elem_type())
        return pair(INT, seq(INT))

    # ---- expressions: gen(t, env, size) gives an expression of type t ----
    def gen(self, t, env, size):
        if size <= 0:
            return self.leaf(t, env)
        if t == INT:
            return self.gen_int(env, size)
        if t == FLOAT:
            return self.gen_float(env, size)
        if t == BOOL:
            return self.gen_bool(env, size)
        if t == CHAR:
            return self.gen_char(env, size)
        if is_pair(t):
            return self.gen_pair(t, env, size)
        if is_data(t):
            if self.chance(0.3):
                return self.gen_common(t, env, size)
            return "%s(%s, %s)" % (t[1], self.gen(t[2], env, size // 2), self.gen(t[3], env, size // 2))
        return self.gen_seq(t, env, size)

    def leaf(self, t, env):
        vs = self.vars_of(env, t)
        if vs and self.chance(0.7):
            return self.pick(vs)
        if t == INT:
            return str(self.r.randint(-9, 20))
        if t == FLOAT:
            return self.pick(["0.5", "1.25", "2.0", "-3.5", "0.1", "10.0", "1.0e-3"])
        if t == BOOL:
            return self.pick(["T", "F"])
        if t == CHAR:
            return "`" + self.pick("abcxyz09") + ""
        if is_pair(t):
            return "(" + self.leaf(t[1], env) + ", " + self.leaf(t[2], env) + ")"
        if is_data(t):
            return "%s(%s, %s)" % (t[1], self.leaf(t[2], env), self.leaf(t[3], env))
        return self.seq_literal(t, env, 0)

    def seq_literal(self, t, env, size):
        k = self.r.randint(0, 4)
        if k == 0:
            return "[] " + tname(t[1])
        if t[1] == CHAR and self.chance(0.5):
            return '"' + "".join(self.pick("abc xyz") for _ in range(k)) + '"'
        return "[" + ", ".join(self.gen(t[1], env, size // 3) for _ in range(k)) + "]"

    def small_int(self, env, size):
        """An int in [0, 5]: sizes of dist, take, ranges."""
        return "mod(%s, %d)" % (self.gen(INT, env, size // 2), self.r.randint(2, 6))

    def some_seq(self, env, size, elem=None):
        t = seq(elem if elem is not None else self.elem_type())
        return t, self.gen(t, env, size)

    def call_of(self, t, env, size):
        # (a sequence loop is called only where program calls it: its
        # state must not be empty)
        fs = [f for f in self.funcs if f[2] == t and f[1] not in (["loop_state"], ["loop_scan"], ["loop_pairs"])]
        if not fs:
            return None
        name, args, _ = self.pick(fs)
        fixed = self.fixed.get(name, [])
        actual = [self.gen(a, env, size // 2) for a in args]
        if args == [INT, INT]:
            actual[0] = fuel(actual[0])
        return "%s(%s)" % (name, ", ".join(fixed + actual))

    def gen_common(self, t, env, size):
        """if, let and calls: any type."""
        k = self.r.random()
        if k < 0.35:
            return "(if %s then %s else %s)" % (self.gen(BOOL, env, size // 3), self.gen(t, env, size // 2),
                                                self.gen(t, env, size // 2))
        if k < 0.7:
            vt = self.any_type()
            v = self.fresh()
            return "(let %s = %s in %s)" % (v, self.gen(vt, env, size // 2), self.gen(t, env + [(v, vt)], size // 2))
        if k < 0.78 and self.datatypes:
            # a datatype taken apart by a pattern
            d = self.pick(self.datatypes)
            a, b = self.fresh(), self.fresh()
            return "(let %s(%s, %s) = %s in %s)" % (d[1], a, b, self.gen(d, env, size // 2),
                                                   self.gen(t, env + [(a, d[2]), (b, d[3])], size // 2))
        if k < 0.85:
            # a pattern let over a pair
            a, b = self.fresh(), self.fresh()
            pt = pair(INT, self.pick([INT, seq(INT)]))
            if self.chance(0.25):
                # one side not wanted: a wildcard
                return "(let (%s, _) = %s in %s)" % (a, self.gen(pt, env, size // 2),
                                                     self.gen(t, env + [(a, pt[1])], size // 2))
            return "(let (%s, %s) = %s in %s)" % (a, b, self.gen(pt, env, size // 2),
                                                  self.gen(t, env + [(a, pt[1]), (b, pt[2])], size // 2))
        c = self.call_of(t, env, size)
        return c if c else self.leaf(t, env)

    def gen_int(self, env, size):
        k = self.r.randint(0, 21)
        g = lambda: self.gen(INT, env, size // 2)
        if k <= 2:
            return self.gen_common(INT, env, size)
        if k == 3:
            return "(%s %s %s)" % (g(), self.pick(["+", "-", "+"]), g())
        if k == 4:
            return "(%s * %s)" % (g(), self.r.randint(-3, 3))
        if k == 5:
            return "(%s / (abs(%s) + 1))" % (g(), g())
        if k == 6:
            return "%s(%s, abs(%s) + 1)" % (self.pick(["rem", "mod"]), g(), g())
        if k == 7:
            st, s = self.some_seq(env, size)
            return "#" + s
        if k == 8:
            return "sum(%s)" % self.gen(seq(INT), env, size - 1)
        if k == 9:
            return "count(%s)" % self.gen(seq(BOOL), env, size - 1)
        if k == 10:
            s = self.fresh("s")
            return "(let %s = %s in if #%s == 0 then %s else %s(%s))" % (
                s, self.gen(seq(INT), env, size - 1), s, g(), self.pick(["max_val", "min_val", "max_index", "min_index"]), s)
        if k == 11:
            # a subscript in range
            s = self.fresh("s")
            st = seq(INT) if self.chance(0.7) else seq(seq(INT))
            body = "%s[mod(%s, #%s)]" % (s, g(), s)
            if st != seq(INT):
                body = "#" + body
            return "(let %s = %s in if #%s == 0 then %s else %s)" % (s, self.gen(st, env, size - 1), s, g(), body)
        if k == 12:
            return "%s(%s, %s)" % (self.pick(["min", "max"]), g(), g())
        if k == 13:
            return "%s(%s)" % (self.pick(["trunc", "round", "floor", "ceil"]), self.gen(FLOAT, env, size // 2))
        if k == 14:
            return "abs(%s)" % g()
        if k == 15:
            return "(if %s then 1 else 0)" % self.gen(BOOL, env, size // 2)
        if k == 16:
            return "char_code(%s)" % self.gen(CHAR, env, size // 2)
        if k == 17:
            # the lengths of a nested sequence's parts
            s = self.fresh("s")
            return "sum({#%s : %s in %s})" % (s, s, self.gen(seq(seq(INT)), env, size - 1))
        if k == 18:
            return "%s(%s)" % (self.pick(["max_val", "min_val"]),
                               "[%s] ++ %s" % (g(), self.gen(seq(INT), env, size - 1)))
        if k == 19:
            # a loop with fuel
            c = self.call_of(INT, env, size)
            if c:
                return c
        if k == 20 and env:
            pts = [v for v, vt in env if is_pair(vt) and vt[1] == INT]
            if pts:
                a, b = self.fresh(), self.fresh()
                v = self.pick(pts)
                return "(let (%s, %s) = %s in %s)" % (a, b, v, a)
        return self.leaf(INT, env)

    def gen_float(self, env, size):
        k = self.r.randint(0, 9)
        g = lambda: self.gen(FLOAT, env, size // 2)
        if k <= 1:
            return self.gen_common(FLOAT, env, size)
        if k == 2:
            return "(%s %s %s)" % (g(), self.pick(["+", "-", "*"]), g())
        if k == 3:
            return "float(%s)" % self.gen(INT, env, size // 2)
        if k == 4:
            return "(%s / (abs(%s) + 1.0))" % (g(), g())
        if k == 5:
            return "sqrt(abs(%s))" % g()
        if k == 6:
            return "sum(%s)" % self.gen(seq(FLOAT), env, size - 1)
        if k == 7:
            return "%s(%s)" % (self.pick(["max_val", "min_val"]), "[%s] ++ %s" % (g(), self.gen(seq(FLOAT), env, size - 1)))
        if k == 8:
            return "%s(%s, %s)" % (self.pick(["min", "max"]), g(), g())
        return self.leaf(FLOAT, env)

    def gen_bool(self, env, size):
        k = self.r.randint(0, 8)
        if k <= 1:
            return self.gen_common(BOOL, env, size)
        if k <= 3:
            t = self.pick([INT, INT, FLOAT])
            return "(%s %s %s)" % (self.gen(t, env, size // 2), self.pick(["<", "<=", "==", "/=", ">", ">="]),
                                   self.gen(t, env, size // 2))
        if k == 4:
            return "(%s %s %s)" % (self.gen(BOOL, env, size // 2), self.pick(["and", "or", "xor"]),
                                   self.gen(BOOL, env, size // 2))
        if k == 5:
            return "not(%s)" % self.gen(BOOL, env, size // 2)
        if k == 6:
            return "%s(%s)" % (self.pick(["all", "any"]), self.gen(seq(BOOL), env, size - 1))
        if k == 7:
            return "%s(%s)" % (self.pick(["evenp", "oddp"]), self.gen(INT, env, size // 2))
        return self.leaf(BOOL, env)

    def gen_char(self, env, size):
        k = self.r.randint(0, 3)
        if k == 0:
            return self.gen_common(CHAR, env, size)
        if k == 1:
            return "code_char(97 + mod(%s, 26))" % self.gen(INT, env, size // 2)
        return self.leaf(CHAR, env)

    def gen_pair(self, t, env, size):
        if self.chance(0.3):
            return self.gen_common(t, env, size)
        return "(%s, %s)" % (self.gen(t[1], env, size // 2), self.gen(t[2], env, size // 2))

    def apply_to_each(self, t, env, size):
        """{body : x in s [; y in s2] [| p]} of type t (a sequence)."""
        et = self.elem_type()
        x = self.fresh("x")
        src = self.gen(seq(et), env, size // 2)
        binds = [(x, et)]
        gens = "%s in %s" % (x, src)
        if self.chance(0.3):
            # a second generator over a sequence of the same length
            y = self.fresh("y")
            yt = self.pick([INT, FLOAT, BOOL])
            s = self.fresh("s")
            inner = self.gen(yt, env + [(s, et)], size // 4)
            second = "%s in %s" % (y, "{%s : %s in %s}" % (inner, s, src))
            gens = "%s; %s" % (gens, second)
            binds.append((y, yt))
        env2 = env + binds
        body = self.gen(t[1], env2, size // 2)
        filt = ""
        if self.chance(0.3):
            filt = " | " + self.gen(BOOL, env2, size // 3)
        return "{%s : %s%s}" % (body, gens, filt)

    def parts_appended(self, t, env, size):
        # a nested value's parts appended back in order, which flattening
        # reads as the value's elements where it has as many segments
        # (flatten.c, whole_append) and the GPU appends in place: a split's
        # result, or v[0] ++ ... ++ v[k-1] of a value of k segments or more
        et = t[1]
        v = self.fresh("p")
        if self.chance(0.5):
            s, x = self.fresh("s"), self.fresh("x")
            body = self.gen(t, env, size // 2)
            # flags of the element itself, mostly, where it is a number:
            # a random boolean is often a constant, which folds, and fusion
            # joins the PARTITION of flags that vary (fusion/join.c)
            if et in (INT, FLOAT) and self.r2.random() < 0.7:
                flag = "%s > %s" % (x, self.r2.randint(-3, 3) if et == INT else "%d.5" % self.r2.randint(-3, 3))
            else:
                flag = self.gen(BOOL, env + [(x, et)], size // 3)
            return "(let %s = %s; %s = split(%s, {%s : %s in %s}) in %s[0] ++ %s[1])" % (
                s, body, v, s, flag, x, s, v, v)
        k = self.r.randint(2, 3)
        parts = " ++ ".join("%s[%d]" % (v, i) for i in range(k))
        return "(let %s = %s in if #%s < %d then flatten(%s) else %s)" % (
            v, self.gen(seq(t), env, size // 2), v, k, v, parts)

    def gen_seq(self, t, env, size):
        et = t[1]
        k = self.r.randint(0, 20)
        g = lambda tt=t: self.gen(tt, env, size // 2)
        if k <= 1:
            return self.gen_common(t, env, size)
        if k <= 5:
            return self.apply_to_each(t, env, size)
        if k == 6:
            if self.r2.random() < 0.3:
                return self.parts_appended(t, env, size)
            return "(%s ++ %s)" % (g(), g())
        if k == 7:
            f = self.pick(["reverse", "odd_elts", "even_elts"])
            if f == "odd_elts":
                # NESL's odd_elts of an empty sequence is an error, and NESL
                # evaluates a filtered body for every element, where nessie
                # only where the filter holds (docs/nesl.md, faults not
                # copied): a possibly empty argument would make the
                # programs differ for that known reason alone
                return "odd_elts([%s] ++ %s)" % (self.gen(et, env, size // 3), g())
            return "%s(%s)" % (f, g())
        if k == 8:
            s = self.fresh("s")
            return "(let %s = %s in %s(%s, min(%s, #%s)))" % (s, g(), self.pick(["take", "drop"]), s,
                                                             self.small_int(env, size // 2), s)
        if k == 9:
            return "flatten(%s)" % self.gen(seq(t), env, size // 2)
        if k == 10:
            return "dist(%s, %s)" % (self.gen(et, env, size // 2), self.small_int(env, size // 2))
        if k == 11:
            return self.seq_literal(t, env, size)
        if k == 12 and et == INT:
            return "%s(%s)" % (self.pick(["plus_scan", "max_scan", "min_scan", "sort", "rank",
                                          "rank_down", "remove_duplicates"]), g())
        if k == 12 and et == INT and self.chance(0.3):
            return "%s(%s, %s)" % (self.pick(["union", "intersection", "set_difference"]), g(), g())
        if k == 12 and et == BOOL and self.chance(0.5):
            return "mark_duplicates(%s)" % self.gen(seq(INT), env, size // 2)
        if k == 12 and et == FLOAT:
            return "%s(%s)" % (self.pick(["plus_scan", "max_scan", "sort"]), g())
        if k == 13 and et == INT:
            if self.chance(0.3):
                # a range with a stride (NESL's: the end at least the
                # start, the stride positive, or an error)
                v = self.fresh()
                return "(let %s = %s in [%s : %s + %s : %s])" % (
                    v, self.small_int(env, size // 3), v, v, self.small_int(env, size // 3),
                    self.pick(["1", "2", "3", "1 + mod(%s, 3)" % v]))
            return "[0 : %s]" % self.small_int(env, size // 2)
        if k == 13 and depth(t) == 2 and et[1] == INT:
            # partition of a sequence into two parts
            s, c = self.fresh("s"), self.fresh("c")
            return "(let %s = %s; %s = min(%s, #%s) in partition(%s, [%s, #%s - %s]))" % (
                s, self.gen(seq(INT), env, size // 2), c, self.small_int(env, size // 3), s, s, c, s, c)
        if k == 14:
            # permute by the reversed indices
            s = self.fresh("s")
            return "(let %s = %s in permute(%s, {#%s - 1 - i : i in [0 : #%s]}))" % (s, g(), s, s, s)
        if k == 15:
            s = self.fresh("s")
            return "(let %s = %s in rotate(%s, %s))" % (s, g(), s, self.small_int(env, size // 3))
        if k == 16 and et == CHAR:
            return "@(%s)" % self.gen(self.pick([INT, FLOAT, BOOL]), env, size // 2)
        if k == 16 and is_seq(et) and et[1] == CHAR:
            return "%s(%s)" % (self.pick(["wordify", "linify"]), self.gen(seq(CHAR), env, size // 2))
        if k == 17:
            c = self.call_of(t, env, size)
            if c:
                return c
        if k == 18 and is_seq(et):
            # a nested apply-to-each whose inner sequences differ in length
            x = self.fresh("x")
            return "{%s : %s in %s}" % (self.gen(et, env + [(x, INT)], size // 2), x, "[0 : %s]" % self.small_int(env, 2))
        if k == 19:
            # a pair sequence taken apart
            x, y = self.fresh("x"), self.fresh("y")
            return "{%s : (%s, %s) in %s}" % (self.gen(et, env + [(x, INT), (y, INT)], size // 2), x, y,
                                             "zip(%s, %s)" % ("[0 : 4]", "[3, 1, 4, 1]"))
        if k == 20 and depth(t) >= 1:
            # a subscript of a nested sequence, guarded
            s = self.fresh("s")
            return "(let %s = %s in if #%s == 0 then %s else %s[mod(%s, #%s)])" % (
                s, self.gen(seq(t), env, size // 2), s, g(), s, self.gen(INT, env, size // 3), s)
        return self.apply_to_each(t, env, size)

    # ---- functions ----
    def scalar_exp(self, names, size):
        """An int expression of 'names' that touches no sequence: what a
        sequence loop's step computes (a generated one would mostly hold
        sequences, which keep the loop lifted)."""
        if size <= 0 or self.chance(0.3):
            return self.pick(names + [str(self.r.randint(0, 9))])
        a, b = self.scalar_exp(names, size - 1), self.scalar_exp(names, size - 1)
        k = self.r.randint(0, 4)
        if k == 0:
            return "(%s %s %s)" % (a, self.pick(["+", "-", "*"]), b)
        if k == 1:
            return "mod(%s, %d)" % (a, self.r.randint(1, 50))
        if k == 2:
            return "%s(%s, %s)" % (self.pick(["min", "max"]), a, b)
        if k == 3:
            return "(if %s %s %s then %s else %s)" % (a, self.pick(["<", "==", ">="]), b, b, a)
        return "(%s / (abs(%s) + 1))" % (a, b)

    def gen_function(self):
        k = self.r.randint(0, 9)
        name = self.fresh("f")
        if k == 8:
            # a sequence loop (flatten.c): a state updated by rep, one
            # key at a time, as NESL/GPU's radix sort counts; the state
            # is not empty where it is called (program)
            x = self.fresh("x")
            j = "mod(abs(%s), #st)" % x
            val = self.scalar_exp([x, "i"], 3)
            body = ("if i >= #ds then st else let %s = ds[i] in %s(ds, rep(st, mod(st[%s] + %s, 1000), %s), i + 1)"
                    % (x, name, j, val, j))
            self.funcs.append((name, ["loop_state"], seq(INT)))
            return "function %s(ds, st, i) = %s;" % (name, body)
        if k == 9 and self.chance(0.4):
            # a sequence loop over a sequence of pairs with a pair result
            # (flatten.c's loops of tuples: one element function giving
            # the pair); its next iteration sometimes under an if of its
            # own, or after an if of a pair that does not reach it
            step1 = self.scalar_exp(["x", "y", "a", "b"], 3)
            step2 = self.scalar_exp(["x", "y", "a", "b"], 3)
            call = "%s(ps, i + 1, mod(%s, 1000), mod(%s, 1000))" % (name, step1, step2)
            form = self.r.randrange(3)
            if form == 1:
                call = "if x > y then %s else %s(ps, i + 1, mod(%s, 1000), a)" % (call, name, step2)
            elif form == 2:
                call = "let (x, y) = if x > y then (y, x) else (x, y) in " + call
            body = "if i >= #ps then (a, b) else let (x, y) = ps[i] in %s" % call
            self.funcs.append((name, ["loop_pairs"], pair(INT, INT)))
            return "function %s(ps, i, a, b) = %s;" % (name, body)
        if k == 9:
            # a sequence loop with a scalar result: the sequence only read
            step = self.scalar_exp(["x", "acc"], 3)
            body = ("if i >= #s then acc else let x = s[i] in %s(s, i + 1, mod(%s, 1000))" % (name, step))
            self.funcs.append((name, ["loop_scan"], INT))
            return "function %s(s, i, acc) = %s;" % (name, body)
        if k >= 6:
            # a higher-order function, called with a function passed by name
            g = self.fresh("g")
            gbody = self.gen(INT, [("x", INT)], 3)
            if k == 6:
                body = "{h(x) : x in s}"
                rt = seq(INT)
            else:
                body = "if #s == 0 then 0 else h(s[0]) + %s(h, drop(s, 1))" % name
                rt = INT
            self.funcs.append((name, [seq(INT)], rt))
            self.fixed[name] = [g]
            return "function %s(x) = %s;\nfunction %s(h, s) = %s;" % (g, gbody, name, body)
        if k == 0:
            # divide and conquer by halves, a sequence result
            s, h, a, b = "s", "h", "a", "b"
            base = self.gen(seq(INT), [(s, seq(INT))], 3)
            comb = self.pick(["%s ++ %s", "%s ++ reverse(%s)", "{x + y : x in %s; y in reverse(%s)}"])
            if "x + y" in comb:
                comb = "if #a == #b then {x + y : x in a; y in b} else a ++ b"
            else:
                comb = comb % (a, b)
            body = ("if #%s < 2 then %s else let %s = #%s / 2; %s = %s(take(%s, %s)); %s = %s(drop(%s, %s)) in %s"
                    % (s, base, h, s, a, name, s, h, b, name, s, h, comb))
            self.funcs.append((name, [seq(INT)], seq(INT)))
            return "function %s(%s) = %s;" % (name, s, body)
        if k == 1:
            # quicksort's shape: a lifted recursion over [lesser, greater]
            op = self.pick(["<", "<="])
            body = ("if #s < 2 then s else let p = s[#s / 2]; l = {x in s | x %s p}; e = {x in s | x == p}; "
                    "g = {x in s | x > p}; r = {%s(v) : v in [l, g]} in r[0] ++ e ++ r[1]" % ("<", name))
            if op == "<=":
                body = body.replace("r[0] ++ e ++ r[1]", "r[1] ++ e ++ r[0]")
            self.funcs.append((name, [seq(INT)], seq(INT)))
            return "function %s(s) = %s;" % (name, body)
        if k == 2:
            # a loop on an int with fuel, a scalar result
            step = self.gen(INT, [("n", INT), ("acc", INT)], 3)
            self.funcs.append((name, [INT, INT], INT))
            return ("function %s(n, acc) = if n <= 0 then acc else %s(n - 1, mod(%s, 1000));"
                    % (name, name, step))
        if k == 3:
            # a plain function of a sequence and an int
            rt = self.any_type()
            body = self.gen(rt, [("a", seq(INT)), ("b", INT)], 5)
            self.funcs.append((name, [seq(INT), INT], rt))
            return "function %s(a, b) = %s;" % (name, body)
        if k == 4:
            # a reduction by recursion, an int result
            body = ("if #s == 0 then %s else if #s == 1 then s[0] %s else %s(take(s, #s / 2)) + %s(drop(s, #s / 2))"
                    % (self.r.randint(0, 3), self.pick(["", "* 2", "+ 1"]), name, name))
            self.funcs.append((name, [seq(INT)], INT))
            return "function %s(s) = %s;" % (name, body)
        # a function over a nested sequence
        body = self.gen(seq(INT), [("m", seq(seq(INT)))], 4)
        self.funcs.append((name, [seq(seq(INT))], seq(INT)))
        return "function %s(m) = %s;" % (name, body)

    def error_statement(self):
        """A statement that must fail on every backend, at a known place."""
        k = self.r.randint(0, 2)
        s = self.gen(seq(INT), [], 3)
        if k == 0:
            return "{x + %s[#%s + 3] : x in [1, 2]};" % ("[1, 2, 3]", "[1, 2, 3]")
        if k == 1:
            return "{x / (x - x) : x in [1, 2, 3]};"
        return "let q = %s in {a + b : a in q; b in q ++ [1]};" % s

    def extras(self, out):
        """Statements from the second stream, after a statement of the
        first: top-level bindings of int and [int] globals, functions that
        read them (CMU NESL's functions read a global's value when they
        run), their redefinitions (of the same type, of another type, which
        ends what the old readers see, and failing ones, after which the
        variable keeps its value: CMU NESL binds nothing), reads of them,
        and reads of `it` (which make every expression statement bind it)."""
        saved = (self.r, self.n)
        self.r, self.n = self.r2, self.n2
        try:
            self.extra(out)
        finally:
            self.r2, self.n2 = self.r, self.n
            self.r, self.n = saved

    def failing(self, t):
        """An expression of type t that fails on every backend."""
        if t == INT:
            return "%d / (%d - %d)" % (self.r.randint(1, 9), 3, 3)
        return "{x / (x - x) : x in [1, 2, 3]}"

    def extra(self, out):
        if not self.chance(0.35):
            return
        k = self.r.random()
        names = sorted(self.globals)
        if k < 0.3 or not names:
            g = self.fresh("g")
            t = self.pick([INT, seq(INT)])
            out.append("%s = %s;" % (g, self.gen(t, [], self.r.randint(2, 5))))
            self.globals[g] = t
            if self.chance(0.6):
                f = self.fresh("rd")
                op = "+" if t == INT else "++"
                out.append("function %s(y) = y %s %s;" % (f, op, g))
                self.readers.append((f, t))
            return
        g = self.pick(names)
        t = self.globals[g]
        if k < 0.5:
            out.append("%s = %s;" % (g, self.gen(t, [], self.r.randint(2, 5))))
        elif k < 0.62:
            out.append("%s = %s;" % (g, self.failing(t)))
        elif k < 0.7:
            other = seq(INT) if t == INT else INT
            out.append("%s = %s;" % (g, self.gen(other, [], 3)))
            self.globals[g] = other
        elif k < 0.8:
            out.append("%s;" % g)
        elif k < 0.9 and self.readers:
            f, ft = self.pick(self.readers)
            out.append("%s(%s);" % (f, self.gen(ft, [], 3)))
        elif self.expressions and not self.last_failed:
            if self.last_type == INT and self.chance(0.8):
                # a function that reads `it`: its value when it runs, until
                # a value of another type ends that
                f = self.fresh("rit")
                out.append("function %s(y) = y + it;" % f)
                out.append("%s(%d);" % (f, self.r.randint(0, 9)))
                self.readers.append((f, INT))
            else:
                out.append("it;")

    def program(self, statements):
        out = []
        for _ in range(self.r.randint(0, 2)):
            d = data(self.fresh("d"), INT, self.pick([INT, FLOAT, BOOL, seq(INT)]))
            self.datatypes.append(d)
            out.append("datatype %s (%s, %s);" % (d[1], tname(d[2]), tname(d[3])))
        for _ in range(self.r.randint(1, 4)):
            out.append(self.gen_function())
        for name, args, rt in self.funcs:
            x = self.fresh("x")
            if args == ["loop_state"]:
                out.append("{%s(%s, dist(%d, %d), 0) : %s in %s};" % (name, x, self.r.randint(0, 3),
                                                                   self.r.randint(1, 5), x,
                                                                   self.gen(seq(seq(INT)), [], 5)))
            elif args == ["loop_scan"]:
                out.append("{%s(%s, 0, %d) : %s in %s};" % (name, x, self.r.randint(0, 9), x,
                                                           self.gen(seq(seq(INT)), [], 5)))
            elif args == ["loop_pairs"]:
                out.append("{%s(%s, 0, %d, %d) : %s in %s};" % (name, x, self.r.randint(0, 9), self.r.randint(0, 9),
                                                               x, self.gen(seq(seq(pair(INT, INT))), [], 5)))
        for i in range(statements):
            if self.chance(0.06):
                out.append(self.error_statement())
                self.expressions += 1
                self.last_failed = True
                self.extras(out)
                continue
            t = self.any_type()
            e = self.gen(t, [], self.r.randint(3, 9))
            self.last_type = t
            if self.funcs and self.chance(0.4):
                self.last_type = None
                # a user function inside an apply-to-each, so that it is lifted
                name, args, rt = self.pick(self.funcs)
                x = self.fresh("x")
                fixed = "".join(a + ", " for a in self.fixed.get(name, []))
                if args == [seq(INT)]:
                    e = "{%s(%s%s) : %s in %s}" % (name, fixed, x, x, self.gen(seq(seq(INT)), [], 5))
                elif args == [INT, INT]:
                    e = "{%s(%s, %s) : %s in %s}" % (name, fuel(x), x, x, self.gen(seq(INT), [], 4))
                elif args == [seq(INT), INT]:
                    e = "{%s(%s, %s) : %s in %s}" % (name, x, "#" + x, x, self.gen(seq(seq(INT)), [], 4))
                elif args == ["loop_state"]:
                    e = "{%s(%s, dist(%d, %d), 0) : %s in %s}" % (name, x, self.r.randint(0, 3), self.r.randint(1, 5),
                                                                x, self.gen(seq(seq(INT)), [], 5))
                elif args == ["loop_scan"]:
                    e = "{%s(%s, 0, %d) : %s in %s}" % (name, x, self.r.randint(0, 9), x, self.gen(seq(seq(INT)), [], 5))
                elif args == ["loop_pairs"]:
                    e = "{%s(%s, 0, %d, %d) : %s in %s}" % (name, x, self.r.randint(0, 9), self.r.randint(0, 9), x,
                                                           self.gen(seq(seq(pair(INT, INT))), [], 5))
            out.append(e + ";")
            self.expressions += 1
            self.last_failed = False
            self.extras(out)
        return "\n".join(out) + "\n"


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    sys.stdout.write("%% random program, seed %d (tests/fuzz/gen_nesl.py) %%\n" % seed)
    sys.stdout.write(Gen(seed).program(n))


if __name__ == "__main__":
    main()
