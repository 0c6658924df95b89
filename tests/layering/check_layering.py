#!/usr/bin/env python3
"""Checks the include direction of docs/architecture.md on the source tree.

The engine's layers are the static libraries of engine/CMakeLists.txt: each
`servescope_engine_layer(NAME SOURCES ... DEPENDS ...)` names the folders it
builds and the layers it may use. An engine file may include its own layer and
the layers its layer depends on (transitively), nothing above; model/ includes
nothing from engine/, and nothing below ui/ includes Qt. The folder-level
include graph inside engine/ must have no cycle.

Prints every offending include with its file and line and exits 1; prints the
counts and exits 0 when the tree holds.
"""
import collections
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')
QT = re.compile(r"Q[A-Za-z]")


def read_layers():
    text = open(os.path.join(ROOT, "engine", "CMakeLists.txt"), encoding="utf-8").read()
    layers = {}
    for m in re.finditer(r"servescope_engine_layer\((\w+)\s+SOURCES(.*?)DEPENDS([^)]*)\)", text, re.S):
        name, sources, depends = m.group(1), m.group(2).split(), m.group(3).split()
        folders = {os.path.dirname(s) for s in sources}
        deps = {d[len("servescope_engine_"):] for d in depends if d.startswith("servescope_engine_")}
        layers[name] = (folders, deps)
    if not layers:
        sys.exit("no servescope_engine_layer() in engine/CMakeLists.txt")
    return layers


def closure(layers):
    below = {}

    def visit(name, seen):
        for d in layers[name][1]:
            if d not in seen:
                seen.add(d)
                visit(d, seen)
        return seen

    for name in layers:
        below[name] = visit(name, set())
    return below


def sources(folder):
    for base, _, files in os.walk(os.path.join(ROOT, folder)):
        for f in sorted(files):
            if f.endswith((".h", ".cpp")):
                path = os.path.join(base, f)
                yield os.path.relpath(path, ROOT), path


def main():
    layers = read_layers()
    below = closure(layers)
    folder_layer = {folder: name for name, (folders, _) in layers.items() for folder in folders}
    problems = []
    graph = collections.defaultdict(set)
    files = 0
    for rel, path in sources("engine"):
        if rel.startswith("engine/CMakeFiles"):
            continue
        files += 1
        folder = os.path.dirname(rel)[len("engine/"):]
        layer = folder_layer.get(folder)
        if layer is None:
            problems.append(f"{rel}: its folder engine/{folder} is in no layer of engine/CMakeLists.txt")
            continue
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = m.group(1)
            if QT.match(target):
                problems.append(f"{rel}:{n}: includes Qt ({target}) below ui/")
                continue
            if not target.startswith("engine/"):
                continue
            to_folder = os.path.dirname(target)[len("engine/"):]
            if to_folder != folder:
                graph[folder].add(to_folder)
            to_layer = folder_layer.get(to_folder)
            if to_layer is None:
                problems.append(f"{rel}:{n}: includes {target}, in no layer")
            elif to_layer != layer and to_layer not in below[layer]:
                problems.append(f"{rel}:{n}: layer {layer} includes {target} of layer {to_layer}, "
                                f"which is not below it")
    for rel, path in sources("model"):
        files += 1
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            m = INCLUDE.match(line)
            if m and (m.group(1).startswith("engine/") or QT.match(m.group(1))):
                problems.append(f"{rel}:{n}: model/ includes {m.group(1)}")

    # Folder cycles, by depth-first search over the folder graph.
    state, stack, cycles = {}, [], []

    def dfs(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph.get(u, ())):
            if state.get(v) == 1:
                cycles.append(stack[stack.index(v):] + [v])
            elif v not in state:
                dfs(v)
        stack.pop()
        state[u] = 2

    for u in sorted(graph):
        if u not in state:
            dfs(u)
    for c in cycles:
        problems.append("folder include cycle: " + " -> ".join("engine/" + f for f in c))

    for p in problems:
        print(p)
    print(f"{files} files, {len(layers)} engine layers, {sum(len(v) for v in graph.values())} folder arrows, "
          f"{len(cycles)} cycles, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
