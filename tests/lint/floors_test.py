#!/usr/bin/env python3
"""floors_test.py SOURCE_DIR | --self-test — the floors of docs/architecture.md §8, enforced.

Each floor uses only the floors below it: common/ (and the generated spec) -> device/ -> the RTL
harness (rtl/), the TLM models (sc_models/) and the runtime (runtime/) -> compiler/. Two checks:

- every #include of a C/C++ file in those parts is resolved to the file in the tree it names and
  must land in a part its floor may use (an include that names no file in the tree — the standard
  library, SystemC, the generated spec header — is not ours to check);
- every axcore target a CMake file of those parts links (target_link_libraries, axcore_library,
  axcore_executable, axcore_gtest) must be defined in a part its floor may use.

The runtime may link the model libraries (its "tlm" / "rtl" backends) but reaches them only through
the device floor (axcore/device/simulators.hpp): it includes no model header. The compiler may use
the bundle format (runtime/bundle) and common/ only. The co-simulation tools (cosim/) may use every
product part but nothing from tests/ or examples/. Prints every violation with its file and line
and exits 1; exits 0 when there is none. --self-test plants violations in a scratch tree and checks
that each one is reported and that a clean tree passes.
"""
import os
import re
import shutil
import sys
import tempfile

# The parts a part's floor may use. runtime/bundle (the bundle format) is a part of its own.
USES = {
    "common": {"common", "spec"},
    "device": {"device", "common", "spec"},
    "rtl": {"rtl", "device", "common", "spec"},
    "sc_models": {"sc_models", "device", "common", "spec"},
    "bundle": {"bundle", "common", "spec"},
    "runtime": {"runtime", "bundle", "device", "common", "spec"},
    "compiler": {"compiler", "bundle", "common", "spec"},
    # The co-simulation tools stand on every product part; like any product part they use nothing
    # from tests/ (which holds tests only) or examples/.
    "cosim": {"cosim", "compiler", "runtime", "bundle", "rtl", "sc_models", "device", "common", "spec"},
}
LINKS_TOO = {"runtime": {"rtl", "sc_models"}}  # linked, reached through the device floor only
# Parts whose targets are checked when a lower part links them (cmake/ helpers are not a floor).
LAYERED = set(USES) | {"examples", "firmware", "python", "tests", "cosim"}
SOURCE_EXT = (".cpp", ".hpp", ".h", ".cc", ".c", ".hh", ".inl")
SKIP_DIRS = {".git", "__pycache__", "node_modules"}
LINK_COMMANDS = {"target_link_libraries", "axcore_library", "axcore_executable", "axcore_gtest"}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def part_of(rel):
    if rel.startswith("runtime/bundle/"):
        return "bundle"
    return rel.split("/", 1)[0]


def walk(root):
    for d, dirs, files in os.walk(root):
        rel_d = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS and not (rel_d == "." and x.startswith("build")))
        for f in sorted(files):
            yield os.path.normpath(os.path.join(rel_d, f)).replace(os.sep, "/")


def cmake_commands(text):
    """(name, args, line) of every command invocation, comments removed, parentheses balanced."""
    text = re.sub(r'#[^\n"]*', "", text)
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        yield m.group(1).lower(), text[m.end():i - 1], text.count("\n", 0, m.start()) + 1


def check(root):
    files = list(walk(root))
    by_name = {}
    for rel in files:
        if rel.endswith(SOURCE_EXT):
            by_name.setdefault(rel.rsplit("/", 1)[-1], []).append(rel)
    cmake_files = [r for r in files if r.endswith("CMakeLists.txt") or r.endswith(".cmake")]
    targets = {}  # target name (axcore_x, axcore::x) -> part defining it
    texts = {}
    for rel in cmake_files:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            texts[rel] = fh.read()
        for name, args, _ in cmake_commands(texts[rel]):
            words = args.split()
            if name in ("add_library", "axcore_library", "add_executable", "axcore_executable") and words:
                targets.setdefault(words[0], part_of(rel))

    violations, counts = [], {p: 0 for p in USES}
    n_includes = n_links = 0
    for rel in files:
        me = part_of(rel)
        if me not in USES or not rel.endswith(SOURCE_EXT):
            continue
        counts[me] += 1
        here = os.path.dirname(rel)
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                inc = m.group(1)
                local = os.path.normpath(os.path.join(here, inc)).replace(os.sep, "/")
                if os.path.isfile(os.path.join(root, local)):
                    found = [local]
                else:
                    found = [c for c in by_name.get(inc.rsplit("/", 1)[-1], []) if c == inc or c.endswith("/" + inc)]
                if not found:
                    continue
                n_includes += 1
                if not any(part_of(c) in USES[me] for c in found):
                    violations.append(f"{rel}:{lineno}: {me} includes {inc} ({found[0]}, part {part_of(found[0])}); "
                                      f"{me} may include from: {', '.join(sorted(USES[me]))}")
    for rel, text in texts.items():
        me = part_of(rel)
        if me not in USES:
            continue
        for name, args, lineno in cmake_commands(text):
            if name not in LINK_COMMANDS:
                continue
            for word in re.findall(r"[A-Za-z_][\w:]*", args)[1:]:
                owner = targets.get(word)
                if owner is None or owner not in LAYERED:
                    continue
                n_links += 1
                if owner not in USES[me] | LINKS_TOO.get(me, set()):
                    violations.append(f"{rel}:{lineno}: {me} links {word} (defined in part {owner}); "
                                      f"{me} may link: {', '.join(sorted(USES[me] | LINKS_TOO.get(me, set())))}")
    return violations, counts, n_includes, n_links


def main(root):
    violations, counts, n_inc, n_link = check(root)
    empty = [p for p in ("common", "device", "rtl", "sc_models", "bundle", "runtime", "compiler") if not counts[p]]
    if empty:
        print(f"floors_test: no C/C++ files found in {', '.join(empty)} under {root} (wrong SOURCE_DIR, or "
              "a floor missing)")
    if violations:
        print(f"floors_test: {len(violations)} uses across floors (docs/architecture.md §8):")
        for v in violations:
            print("  " + v)
    if empty or violations:
        return 1
    print(f"floors_test: {sum(counts.values())} files, {n_inc} includes and {n_link} CMake links of "
          f"{', '.join(f'{p} ({n})' for p, n in counts.items())} stay on their floors")
    return 0


def self_test():
    def tree(files):
        d = tempfile.mkdtemp(prefix="floors_selftest_")
        for rel, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w", encoding="utf-8") as fh:
                fh.write(text)
        return d

    clean = {
        "common/trace/include/axcore/trace/record.hpp": "#pragma once\n#include <vector>\n",
        "common/CMakeLists.txt": "add_library(axcore_trace INTERFACE)\nadd_library(axcore::trace ALIAS axcore_trace)\n",
        "device/include/axcore/device/device.hpp": '#include "axcore/trace/record.hpp"\n',
        "device/CMakeLists.txt": "add_library(axcore_device INTERFACE)\nadd_library(axcore::device ALIAS axcore_device)\n",
        "rtl/sim/src/rtl_device.cpp": '#include "axcore/device/device.hpp"\n#include "model.hpp"\n',
        "rtl/sim/src/model.hpp": "#pragma once\n",
        "rtl/sim/CMakeLists.txt": "axcore_library(axcore_rtl SOURCES src/rtl_device.cpp\n  PUBLIC_LIBS axcore::device)\n"
                                  "add_library(axcore::rtl ALIAS axcore_rtl)\n",
        "sc_models/src/tlm_device.cpp": '#include "axcore/device/device.hpp"\n',
        "runtime/bundle/include/axcore/runtime/bundle.hpp": "#pragma once\n",
        "runtime/backends/src/backend.cpp": '#include "axcore/device/device.hpp"\n#include "axcore/runtime/bundle.hpp"\n',
        "runtime/backends/CMakeLists.txt": "axcore_library(axcore_runtime SOURCES src/backend.cpp\n"
                                           "  PUBLIC_LIBS axcore::device axcore::rtl)  # links the model\n"
                                           "add_library(axcore::runtime ALIAS axcore_runtime)\n",
        "compiler/src/emit.cpp": '#include <axcore/runtime/bundle.hpp>\n#include <vector>\n',
        "compiler/CMakeLists.txt": "axcore_library(axcore_compiler SOURCES src/emit.cpp PUBLIC_LIBS axcore::trace)\n",
        "examples/kernels/catalog.hpp": "#pragma once\n",
        "tests/rtl_core/case.hpp": "#pragma once\n",
        "cosim/agree/src/agree.cpp": '#include "axcore/device/device.hpp"\n#include "axcore/runtime/bundle.hpp"\n',
    }
    planted = {
        "rtl/sim/src/bad.cpp": ('#include "axcore/runtime/bundle.hpp"\n', "rtl includes axcore/runtime/bundle.hpp"),
        "sc_models/src/bad.cpp": ('#include "axcore/runtime/bundle.hpp"\n', "sc_models includes axcore/runtime/bundle.hpp"),
        "runtime/backends/src/bad.cpp": ('#include "model.hpp"\n', "runtime includes model.hpp"),
        "compiler/src/bad.cpp": ('#include "catalog.hpp"\n', "compiler includes catalog.hpp"),
        "device/include/axcore/device/bad.hpp": ('#include "axcore/runtime/bundle.hpp"\n',
                                                 "device includes axcore/runtime/bundle.hpp"),
        "compiler/tools/CMakeLists.txt": ("axcore_executable(axc SOURCES axc.cpp LIBS\n  axcore::runtime)\n",
                                          "compiler links axcore::runtime"),
        "cosim/agree/src/bad.cpp": ('#include "rtl_core/case.hpp"\n', "cosim includes rtl_core/case.hpp"),
    }
    def check_tree(files):
        d = tree(files)
        try:
            return check(d)
        finally:
            shutil.rmtree(d)

    ok = True
    v, _, n_inc, n_link = check_tree(clean)
    if v or n_inc < 6 or n_link < 3:
        print(f"self-test: the clean tree gave {v} ({n_inc} includes, {n_link} links)")
        ok = False
    for rel, (text, want) in planted.items():
        v, _, _, _ = check_tree({**clean, rel: text})
        if len(v) != 1 or want not in v[0] or not v[0].startswith(rel + ":"):
            print(f"self-test: planting {rel} ({want}) gave {v}")
            ok = False
    print(f"floors_test --self-test: a clean tree passes and {len(planted)} planted violations are each reported"
          if ok else "floors_test --self-test: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__)
        sys.exit(2)
    sys.exit(self_test() if sys.argv[1] == "--self-test" else main(sys.argv[1]))
