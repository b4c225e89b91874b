#!/usr/bin/env python3
"""Rewrites axcore's SystemVerilog into the subset yosys 0.23's read_verilog -sv parses, for the
synthesis estimate (firmware/fpga/estimate) only; the simulated and the Vivado RTL is rtl/ itself.

yosys 0.23 has no `import`, no `return`, no `inside`, no casts to a type (`int'(x)`, `T'(x)`) and
no $bits(type). The rewrite, each step meaning-preserving:
  - packages become file-scope declarations (one prelude, the packages in compile order) and every
    `import` / `pkg::` qualifier goes;
  - `T'(e)` becomes `W'(e)` with W the typedef's width expression (`$signed(W'(e))` for a signed
    type); `int'(e)` becomes `$signed(32'(e))`;
  - `x inside {a, b}` becomes `(x == a || x == b)` (a list of values, no ranges);
  - `return e;` becomes `<function> = e;` only where no statement can follow it on the same path
    (no loop in the function, and after the return only `end` / `endcase` / `else` / case labels /
    `endfunction` or other such returns); a function that fails the check keeps its `return`, so
    yosys rejects the file and the estimate reports it.
usage: sv_for_yosys.py OUT_DIR PKG.sv... -- MODULE.sv...   (writes OUT_DIR/prelude.sv and one file
per module; prints the functions it could not rewrite)"""
import re
import sys
from pathlib import Path

def strip_comments(s):
    s = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), s, flags=re.S)
    return re.sub(r"//[^\n]*", "", s)

def matching_paren(s, i):
    """Index just past the ')' matching the '(' at s[i]."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                return j + 1
    raise ValueError("unbalanced parentheses")

def dims_width(dims):
    """'[A:B][C:D]' -> '((A)-(B)+1)*((C)-(D)+1)', '' -> '1'."""
    parts = re.findall(r"\[([^\[\]:]+):([^\[\]]+)\]", dims)
    if not parts:
        return "1"
    return "*".join(f"(({a})-({b})+1)" for a, b in parts)

class Types:
    def __init__(self):
        self.width = {"logic": "1", "bit": "1", "int": "32", "integer": "32", "byte": "8"}
        self.signed = set()

    def of(self, base, dims):
        w = self.width.get(base)
        if w is None:
            return None
        d = dims_width(dims)
        return f"({w})" if d == "1" else f"({w})*{d}"

    def learn(self, text):
        for m in re.finditer(r"typedef\s+(.*?)\s*(\w+)\s*;", text, flags=re.S):
            body, name = m.group(1), m.group(2)
            if body.startswith("struct"):
                inner = body[body.find("{") + 1: body.rfind("}")]
                ws = []
                for mem in inner.split(";"):
                    mem = mem.strip()
                    if not mem:
                        continue
                    mm = re.match(r"(\w+)(\s+signed)?\s*((?:\[[^\]]*\]\s*)*)\s*\w+$", mem)
                    w = mm and self.of(mm.group(1), mm.group(3))
                    if not w:
                        ws = None
                        break
                    ws.append(w)
                if ws:
                    self.width[name] = "(" + "+".join(ws) + ")"
            elif body.startswith("enum"):
                mm = re.match(r"enum\s+(\w+)\s*((?:\[[^\]]*\]\s*)*)", body)
                w = mm and self.of(mm.group(1), mm.group(2))
                if w:
                    self.width[name] = w
            else:
                mm = re.match(r"(\w+)(\s+signed)?\s*((?:\[[^\]]*\]\s*)*)$", body.strip())
                w = mm and self.of(mm.group(1), mm.group(3))
                if w:
                    self.width[name] = w
                    if mm.group(2) or mm.group(1) in self.signed:
                        self.signed.add(name)

def rewrite_casts(s, types):
    out, i = [], 0
    pat = re.compile(r"\b(\w+)'\(")
    while True:
        m = pat.search(s, i)
        if not m:
            out.append(s[i:])
            return "".join(out)
        name = m.group(1)
        out.append(s[i:m.start()])
        open_at = m.end() - 1
        if name == "int" or name in types.width and not name.isdigit():
            close = matching_paren(s, open_at)
            inner = rewrite_casts(s[open_at + 1:close - 1], types)
            w = "32" if name == "int" else types.width[name]
            cast = f"({w})'({inner})"
            if name == "int" or name in types.signed:
                cast = f"$signed({cast})"
            out.append(cast)
            i = close
        else:
            out.append(s[m.start():m.end()])
            i = m.end()

def rewrite_inside(s):
    def rep(m):
        x, items = m.group(1), [t.strip() for t in m.group(2).split(",")]
        if any(":" in t or not t for t in items):
            return m.group(0)
        return "(" + " || ".join(f"{x} == {t}" for t in items) + ")"
    return re.sub(r"([\w.\[\]]+)\s+inside\s*\{([^}]*)\}", rep, s, flags=re.S)

SAFE_AFTER = re.compile(r"\s*(?:end\b(?:\s*:\s*\w+)?|endcase\b|else\b|default\s*:|[\w',\s]+:(?!=))")

def rewrite_returns(s, failures, where):
    def fn(m):
        text, name = m.group(0), m.group(1)
        if "return" not in text:
            return text
        body = text[m.end(1) - m.start(0):]
        if re.search(r"\b(for|while|repeat|do|foreach)\b", body):
            failures.append(f"{where}: {name} (return inside a loop function)")
            return text
        rets = list(re.finditer(r"\breturn\b([^;]*);", text))
        for r in rets:
            rest = text[r.end():]
            while True:
                if re.match(r"\s*endfunction\b", rest):
                    break
                if re.match(r"\s*return\b", rest):
                    rest = rest[re.match(r"\s*return\b[^;]*;", rest).end():]
                    continue
                mm = SAFE_AFTER.match(rest)
                if not mm:
                    failures.append(f"{where}: {name} (a statement may follow a return)")
                    return text
                rest = rest[mm.end():]
        return re.sub(r"\breturn\b", f"{name} =", text)
    return re.sub(r"function\s+(?:automatic\s+)?[^;(]*?\b(\w+)\s*\(.*?endfunction", fn, s, flags=re.S)

def clean(s):
    s = re.sub(r"^\s*import\s+[\w:*,\s]+;\s*$", "", s, flags=re.M)
    s = re.sub(r"\b\w+_pkg::", "", s)
    return s

def main():
    out = Path(sys.argv[1])
    args = sys.argv[2:]
    sep = args.index("--")
    pkgs, mods = args[:sep], args[sep + 1:]
    out.mkdir(parents=True, exist_ok=True)
    types, failures, prelude = Types(), [], []
    for p in pkgs:
        s = clean(strip_comments(Path(p).read_text()))
        s = re.sub(r"^\s*(package\s+\w+\s*;|endpackage\b.*)$", "", s, flags=re.M)
        types.learn(s)
        prelude.append(s)
    text = "\n".join(prelude)
    text = rewrite_returns(rewrite_inside(rewrite_casts(text, types)), failures, "packages")
    (out / "prelude.sv").write_text(text)
    for mfile in mods:
        s = clean(strip_comments(Path(mfile).read_text()))
        types.learn(s)
        s = rewrite_returns(rewrite_inside(rewrite_casts(s, types)), failures, Path(mfile).name)
        (out / Path(mfile).name).write_text(s)
    for f in failures:
        print("sv_for_yosys: kept return:", f)

if __name__ == "__main__":
    main()
