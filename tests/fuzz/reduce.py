#!/usr/bin/env python3
"""tests/fuzz/reduce.py PROGRAM.nesl TEST... : shrinks a NESL program that
fails a test to a small one that still fails it (issue 41), and prints
it.  TEST is a command run with the candidate program's path appended; it
exits 0 when the candidate still fails the same way ("interesting"), as
tests/fuzz/interesting.sh does for a difference between backends.

The reduction works on the text, greedily, until nothing more shrinks:
  1. statements: drop each top-level statement or function definition;
  2. expressions: replace a bracketed group -- ( ), [ ], { } -- by one of
     the groups inside it, or by a small literal (0, T, 1.0, [] int, [0]);
  3. sequences: drop elements of a literal or arguments lists split at
     top-level commas;
  4. literals: shrink a number towards 0.
The text stays NESL only where the candidate still type-checks: the TEST
must reject candidates that no longer compile (interesting.sh does, as a
program that eval rejects is not a difference).  No types are tracked
here, so most candidates are rejected; the program is small enough that
this costs seconds, not minutes.
"""
import os
import re
import subprocess
import sys
import tempfile

LITERALS = ["0", "1", "T", "1.0", "[] int", "[0]", "[[0]]"]


def statements(text):
    """The top-level statements: split at ';' outside brackets and
    comments (NESL's comments are % ... %)."""
    out, cur, level, comment = [], [], 0, False
    for ch in text:
        cur.append(ch)
        if comment:
            comment = ch != "%"
            continue
        if ch == "%":
            comment = True
        elif ch in "([{":
            level += 1
        elif ch in ")]}":
            level -= 1
        elif ch == ";" and level == 0:
            out.append("".join(cur))
            cur = []
    rest = "".join(cur)
    if rest.strip():
        out.append(rest)
    return out


def groups(text):
    """(start, end) of every bracketed group, outermost first."""
    stack, found = [], []
    pairs = {")": "(", "]": "[", "}": "{"}
    comment = False
    for i, ch in enumerate(text):
        if comment:
            comment = ch != "%"
            continue
        if ch == "%":
            comment = True
        elif ch in "([{":
            stack.append((ch, i))
        elif ch in pairs and stack and stack[-1][0] == pairs[ch]:
            _, j = stack.pop()
            found.append((j, i + 1))
    found.sort(key=lambda g: (-(g[1] - g[0]), g[0]))
    return found


def top_commas(inner):
    """inner split at commas outside brackets."""
    parts, cur, level = [], [], 0
    for ch in inner:
        if ch in "([{":
            level += 1
        elif ch in ")]}":
            level -= 1
        if ch == "," and level == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


class Reducer:
    def __init__(self, test):
        self.test = test
        self.tries = 0
        fd, self.path = tempfile.mkstemp(suffix=".nesl")
        os.close(fd)

    def interesting(self, text):
        self.tries += 1
        with open(self.path, "w") as f:
            f.write(text)
        try:
            r = subprocess.run(self.test + [self.path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               timeout=120)
        except subprocess.TimeoutExpired:
            return False
        return r.returncode == 0

    def pass_statements(self, text):
        stmts = statements(text)
        i = 0
        while i < len(stmts):
            cand = "".join(stmts[:i] + stmts[i + 1:])
            if self.interesting(cand):
                stmts = stmts[:i] + stmts[i + 1:]
            else:
                i += 1
        return "".join(stmts)

    def pass_groups(self, text):
        changed = True
        while changed:
            changed = False
            for a, b in groups(text):
                whole = text[a:b]
                inner = text[a + 1:b - 1]
                cands = []
                for c, d in groups(inner):
                    cands.append(inner[c:d])
                cands += LITERALS
                parts = top_commas(inner)
                if len(parts) > 1:
                    for k in range(len(parts)):
                        cands.append(whole[0] + ",".join(parts[:k] + parts[k + 1:]) + whole[-1])
                        cands.append(parts[k].strip())
                seen = set()
                for c in sorted(cands, key=len):
                    if c in seen or len(c) >= len(whole):
                        continue
                    seen.add(c)
                    cand = text[:a] + c + text[b:]
                    if self.interesting(cand):
                        text = cand
                        changed = True
                        break
                if changed:
                    break
        return text

    def pass_numbers(self, text):
        for m in reversed(list(re.finditer(r"(?<![\w.])-?\d+(\.\d+)?(e-?\d+)?", text))):
            s = m.group(0)
            for c in ["0", "1", "0.0" if "." in s else None]:
                if c is None or c == s:
                    continue
                cand = text[:m.start()] + c + text[m.end():]
                if self.interesting(cand):
                    text = cand
                    break
        return text

    def reduce(self, text):
        if not self.interesting(text):
            sys.exit("reduce.py: the program is not interesting to begin with")
        while True:
            before = text
            text = self.pass_statements(text)
            text = self.pass_groups(text)
            text = self.pass_numbers(text)
            if text == before:
                return text


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: reduce.py PROGRAM.nesl TEST...")
    with open(sys.argv[1]) as f:
        text = f.read()
    r = Reducer(sys.argv[2:])
    try:
        small = r.reduce(text)
    finally:
        os.unlink(r.path)
    sys.stdout.write(small)
    sys.stderr.write("reduce.py: %d characters to %d, %d tries\n" % (len(text), len(small), r.tries))


if __name__ == "__main__":
    main()
