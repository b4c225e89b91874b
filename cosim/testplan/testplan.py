#!/usr/bin/env python3
"""The verification plan: features generated from spec/axcore.yaml (and the language guide's
hazards), mapped to regression tests by cosim/testplan/testplan.yaml.

  testplan.py features SPEC GUIDE            print every feature id, one a line
  testplan.py check SPEC GUIDE PLAN          exit 1 naming every feature no plan entry matches
  testplan.py report SPEC GUIDE PLAN RESULTS [--html FILE [--fragment]]
                                             per feature: planned / passing / failing / uncovered
                                             from axregress results.json files (comma separated:
                                             several runs, e.g. smoke + plan; --fragment: the
                                             table only, for axregress --testplan's report.html)

SPEC "plan" takes the plan's own `spec:` key (a path relative to the plan file).

Feature ids: register:<tile>.<NAME> (DMA block registers as register:<tile>.DMA.<NAME>),
field:<struct>.<field>, enum:<enum>.<VALUE> (DPU/DWPU operations, error codes, dtypes, ...),
dma:<engine>.<capability> (bds, dims, padding from the params), hazard:<slug> (the guide's §14
"silently wrong" list; GUIDE "-" leaves them out). A plan entry {features: [glob, ...], tests: [suite test name, ...]}
covers the features its globs match. A feature's status over RESULTS:
  uncovered  no test is mapped to it;
  failing    a job of one of its tests ran and did not pass (fail, error, timeout);
  passing    otherwise, when at least one job of its tests passed;
  planned    otherwise: its tests did not run in RESULTS, or every job of them was skipped.
"""
import fnmatch
import html
import json
import os
import re
import sys

import yaml


def features(spec_file, guide_file):
    s = yaml.safe_load(open(spec_file))
    out = []
    for tile, t in s["tiles"].items():
        for r in t["registers"]:
            if "block" in r:
                out += [f"register:{tile}.{r['name']}.{b['name']}" for b in r["block"]]
            elif isinstance(r, list):  # an anchored block merged as a list (error registers)
                out += [f"register:{tile}.{b['name']}" for b in r]
            else:
                out.append(f"register:{tile}.{r['name']}")
    for name, st in s["structs"].items():
        out += [f"field:{name}.{f['name']}" for f in st["fields"]]
    for name, e in s["enums"].items():
        out += [f"enum:{name}.{v['name']}" for v in e["values"]]
    params = {p["name"]: p["value"] for p in s["params"]}
    for eng in ("sysdma", "memdma", "coredma"):
        out += [f"dma:{eng}.bds", f"dma:{eng}.dims"]
        if params.get(f"{eng}_padding"):
            out.append(f"dma:{eng}.padding")
    out += ["dma:repeat", "dma:chain", "dma:iteration", "dma:token"]
    if guide_file == "-":  # the guide is not in the repository: hazards checked only when it is given
        return sorted(set(out))
    text = open(guide_file, encoding="utf-8").read()
    block = text.split("Silently wrong, or hangs, with no error raised:", 1)[-1].split("Hard failure:", 1)[0]
    for line in block.splitlines():
        if line.strip().startswith("•"):
            head = line.strip()[1:].split("→")[0].strip()
            out.append("hazard:" + re.sub(r"[^a-z0-9]+", "-", head.lower()).strip("-")[:60])
    return sorted(set(out))


def status_of(tests, by_test):
    """The feature status from the statuses of its tests' jobs (see the module doc)."""
    if not tests:
        return "uncovered"
    ran = [s for t in tests for s in by_test.get(t, [])]
    if any(s not in ("pass", "skip") for s in ran):
        return "failing"
    return "passing" if "pass" in ran else "planned"


def plan_spec(plan_file):
    p = yaml.safe_load(open(plan_file))
    if "spec" not in p:
        sys.exit(f"{plan_file}: no spec: key (the spec file, relative to the plan)")
    return os.path.join(os.path.dirname(os.path.abspath(plan_file)), p["spec"])


def load_plan(plan_file):
    p = yaml.safe_load(open(plan_file))
    entries = p.get("plan", [])
    for e in entries:
        if not isinstance(e.get("features"), list) or not isinstance(e.get("tests", []), list):
            sys.exit(f"{plan_file}: an entry needs features: [glob, ...] and tests: [...]: {e}")
    return entries


def mapping(feats, entries):
    m = {}
    for f in feats:
        hit = [e for e in entries if any(fnmatch.fnmatchcase(f, g) for g in e["features"])]
        if hit:
            m[f] = sorted({t for e in hit for t in e.get("tests", [])})
    return m


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    cmd, spec, guide = argv[0], argv[1], argv[2]
    if spec == "plan" and len(argv) > 3:
        spec = plan_spec(argv[3])
    feats = features(spec, guide)
    if cmd == "features":
        print("\n".join(feats))
        return 0
    entries = load_plan(argv[3])
    m = mapping(feats, entries)
    missing = [f for f in feats if f not in m]
    if cmd == "check":
        covered = sum(1 for f in feats if m.get(f))
        print(f"testplan: {len(feats)} spec features, {len(feats) - len(missing)} in the plan, "
              f"{covered} mapped to tests, {len(feats) - len(missing) - covered} planned without a test")
        if missing:
            print("testplan: features of the spec missing from the plan:\n  " + "\n  ".join(missing))
            return 1
        return 0
    if cmd == "report":
        jobs = [j for f in argv[4].split(",") for j in json.load(open(f))["jobs"]]
        by_test = {}
        for j in jobs:
            by_test.setdefault(j["test"], []).append(j["status"])
        rows, counts = [], {"passing": 0, "failing": 0, "planned": 0, "uncovered": 0}
        for f in feats:
            tests = m.get(f) or []
            st = status_of(tests, by_test)
            counts[st] += 1
            rows.append((f, st, tests))
        for f, st, tests in rows:
            print(f"{st:9} {f:48} {', '.join(tests)}")
        uncovered = [f for f, st, _ in rows if st == "uncovered"]
        summary = f"testplan: {len(feats)} features: " + ", ".join(f"{v} {k}" for k, v in counts.items())
        print(f"testplan: uncovered ({len(uncovered)}): " + (", ".join(uncovered) or "none"))
        print(summary)
        if "--html" in argv:
            out = argv[argv.index("--html") + 1]
            css = {"passing": "pass", "failing": "fail", "planned": "skip", "uncovered": "error"}
            with open(out, "w") as h:
                if "--fragment" not in argv:
                    h.write("<!doctype html><meta charset=utf-8><title>testplan</title>\n")
                h.write("<h2>Verification plan</h2>\n<p id=testplan-summary>"
                        + html.escape(summary.split(": ", 1)[1]) + "</p>\n")
                h.write("<table id=testplan><tr><th>feature<th>status<th>tests\n")
                for f, st, tests in rows:
                    h.write(f"<tr data-status={st}><td>{html.escape(f)}<td class={css[st]}>{st}"
                            f"<td>{html.escape(', '.join(tests))}\n")
                h.write("</table>\n")
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
