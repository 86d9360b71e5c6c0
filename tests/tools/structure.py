#!/usr/bin/env python3
"""Measures production Rust files: lines before the first `#[cfg(test)]`, and fn lengths.
Usage: structure.py [--files N] [--fns N]   (lists files over N lines, fns over N lines)"""
import os, re, sys
ROOTS = ["console", "firmware", "hardware"]
FN = re.compile(r'^\s*(pub(\([a-z]+\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)')
def prod_files():
    for root in ROOTS:
        for d, _, fs in os.walk(root):
            parts = d.split(os.sep)
            if any(p in ("tests", "benches", "examples", "target", "out") for p in parts):
                continue
            for f in fs:
                if f.endswith(".rs") and not f.endswith("_tests.rs") and f != "tests.rs":
                    yield os.path.join(d, f)
def prod_lines(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, l in enumerate(lines):
        if l.strip().startswith("#[cfg(test)]"):
            return lines[:i]
    return lines
def strip(l):
    l = re.sub(r'"(\\.|[^"\\])*"', '""', l)
    l = re.sub(r"'(\\.|[^'\\])'", "''", l)
    return l.split("//")[0]
def fns(path, lines):
    out = []
    for i, l in enumerate(lines):
        m = FN.match(l)
        if not m: continue
        depth, started = 0, False
        for j in range(i, len(lines)):
            s = strip(lines[j])
            if not started and ";" in s and "{" not in s: break
            depth += s.count("{") - s.count("}")
            if "{" in s: started = True
            if started and depth <= 0:
                out.append((j - i + 1, m.group(6), path, i + 1)); break
    return out
file_max = int(sys.argv[sys.argv.index("--files") + 1]) if "--files" in sys.argv else 700
fn_max = int(sys.argv[sys.argv.index("--fns") + 1]) if "--fns" in sys.argv else 120
bad = 0
for p in sorted(prod_files()):
    ls = prod_lines(p)
    if len(ls) >= file_max and "drawings" not in p:
        print(f"file {len(ls):5} {p}"); bad += 1
    for n, name, path, at in fns(p, ls):
        if n > fn_max and "drawings" not in path:
            print(f"fn   {n:5} {path}:{at} {name}"); bad += 1
sys.exit(1 if bad else 0)
