"""The project's layers, read from its import graph.

Every ``.py`` file of ``spla/`` (its ``algorithms`` symlink read as the package
``spla.algorithms``), ``benchmarks/``, ``tools/`` and ``tests/`` is parsed with :mod:`ast`;
every import of a project module is collected, at module level and inside functions
(``importlib.import_module("...")`` with a constant name included), with relative imports and
``from package import submodule`` resolved.  Then:

* no import cycle among the project's modules (each strongly connected component is reported
  with its edges);
* the layers below: a layer never imports what its row forbids.

Layers only call downward: the adapters (the ``spla`` command, the networkx backend, the
benchmarks and their probes, the tools) -> ``spla.algorithms`` -> the spla API -> backends -> kernels.
The networkx backend's info (``_spla_nx``, read at every networkx import) imports nothing of spla.
"""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: module-name prefixes of each layer; a module belongs to the first layer one of whose prefixes it
#: is, or is under ("spla" is every spla module the rows above it do not claim)
LAYERS = (
    ("cli", ("spla.cli", "spla.__main__")),
    ("networkx backend", ("spla.nx_backend",)),
    ("networkx backend info", ("_spla_nx",)),
    ("algorithms", ("spla.algorithms",)),
    ("engine", ("spla",)),
    ("benchmarks", ("benchmarks",)),
    ("tools", ("tools",)),
    ("tests", ("tests",)),
)

#: what each layer must not import (a module, or anything under it), and why
FORBIDDEN = {
    "engine": (("spla.cli", "spla.__main__", "spla.algorithms", "spla.nx_backend", "_spla_nx", "benchmarks", "tools",
                "tests"),
               "the engine is below everything that uses it"),
    "algorithms": (("spla.cli", "spla.__main__", "spla.nx_backend", "_spla_nx", "spla.backends", "spla.selection",
                    "spla.ops", "benchmarks", "tools", "tests"),
                   "the algorithms use the spla API, not the engine's private plumbing, and nothing above them"),
    "cli": (("spla.nx_backend", "benchmarks", "tools", "tests"),
            "the command is an adapter over spla.algorithms and the spla API"),
    "networkx backend": (("spla.cli", "spla.__main__", "spla.backends", "benchmarks", "tools", "tests"),
                         "the networkx backend is an adapter over spla.algorithms and the spla API"),
    "networkx backend info": (("spla",),
                              "networkx reads the backend's info at every import: it stays free of spla's imports"),
    "benchmarks": (("tools", "tests"), "the benchmarks and their probes stand on spla alone"),
}

#: names nobody imports, and why
NOBODY_IMPORTS = {
    "algorithms": "the algorithms are the package spla.algorithms; the top-level folder is only where it lives",
}

ROOTS = ("spla", "_spla_nx", "benchmarks", "tools", "tests")
#: folders whose files run as scripts or test modules, with their own folder on sys.path
SCRIPT_ROOTS = ("tools", "tests")


def _files():
    """(module name, path, is a package __init__) of every project file."""
    for root in ROOTS:
        base = REPO / root
        for path in sorted(base.rglob("*.py")):  # rglob does not enter symlinked folders
            if "__pycache__" not in path.parts:
                yield _name(root, path.relative_to(base)), path
    link = REPO / "spla" / "algorithms"
    for path in sorted(link.resolve().rglob("*.py")):
        if "__pycache__" not in path.parts:
            yield _name("spla.algorithms", path.relative_to(link.resolve())), path


def _name(prefix: str, rel: Path) -> str:
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([prefix, *parts])


@functools.lru_cache(maxsize=1)
def _graph():
    """({module: path}, {module: {imported module: [line, ...]}}, [(module, line, bad name)])."""
    modules = dict(_files())
    packages = {m for m, p in modules.items() if p.name == "__init__.py"}
    edges: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    top_level: list[tuple[str, int, str]] = []

    def project(name):
        """The deepest project module that ``name`` names (a.b.c -> a.b.c, a.b or a), or None."""
        parts = name.split(".")
        for k in range(len(parts), 0, -1):
            if ".".join(parts[:k]) in modules:
                return ".".join(parts[:k])
        return None

    for mod, path in modules.items():
        package = mod if mod in packages else mod.rpartition(".")[0]
        script = mod.split(".")[0] in SCRIPT_ROOTS and mod not in packages
        folder = mod.rpartition(".")[0]

        def absolute(name, line):
            """A module name as an absolute import means it from ``mod``: a script's own folder first."""
            first = name.split(".")[0]
            if first in NOBODY_IMPORTS:
                top_level.append((mod, line, name))
            if script and f"{folder}.{first}" in modules:
                return f"{folder}.{name}"
            return name

        def add(target, line):
            target = project(target) if target else None
            if target and target != mod:
                edges[mod][target].append(line)

        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(absolute(alias.name, node.lineno), node.lineno)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")
                    base = base[:len(base) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = absolute(node.module, node.lineno)
                for alias in node.names:  # from package import submodule: the submodule
                    sub = f"{origin}.{alias.name}"
                    add(sub if sub in modules else origin, node.lineno)
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str) and _is_import_call(node.func):
                add(absolute(node.args[0].value, node.lineno), node.lineno)
    return modules, edges, top_level


def _is_import_call(func) -> bool:
    """``importlib.import_module(...)``, ``import_module(...)`` or ``__import__(...)``."""
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in ("import_module", "__import__")


def _layer(module: str) -> str | None:
    for layer, prefixes in LAYERS:
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return layer
    return None


def _under(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _where(modules, mod, lines) -> str:
    return f"{modules[mod].relative_to(REPO)}:{','.join(map(str, sorted(set(lines))))}"


def _components(edges) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def test_the_graph_is_read():
    """The walk finds the layers' modules and their imports (a guard against a test that passes
    because it reads nothing)."""
    modules, edges, _ = _graph()
    for m in ("spla", "spla.matrix", "spla.cli", "spla.algorithms", "spla.algorithms.betweenness", "benchmarks.core",
              "tests.test_layers", "spla.nx_backend", "spla.nx_backend.centrality", "_spla_nx"):
        assert m in modules, m
    assert "spla.algorithms" in edges["spla.cli.measures"]
    assert "spla.cli" in edges["spla.__main__"]
    assert "benchmarks.core" in edges["benchmarks.spmv"]
    assert "spla.algorithms" in edges["spla.nx_backend.centrality"]
    assert {_layer(m) for m in modules} >= {"engine", "algorithms", "cli", "benchmarks", "tools", "tests",
                                            "networkx backend", "networkx backend info"}


def test_no_import_cycle():
    modules, edges, _ = _graph()
    report = []
    for comp in _components(edges):
        inside = set(comp)
        lines = [f"  {a} -> {b} ({_where(modules, a, edges[a][b])})"
                 for a in comp for b in sorted(edges[a]) if b in inside]
        report.append(f"cycle among {', '.join(comp)}:\n" + "\n".join(lines))
    assert not report, "\n".join(report)


def test_layers_import_only_downward():
    modules, edges, top_level = _graph()
    bad = []
    for mod in sorted(edges):
        layer = _layer(mod)
        forbidden, why = FORBIDDEN.get(layer, ((), ""))
        for target, lines in sorted(edges[mod].items()):
            if _under(target, forbidden):
                bad.append(f"{mod} ({layer}) imports {target} ({_where(modules, mod, lines)}): {why}")
    for mod, line, name in top_level:
        why = NOBODY_IMPORTS[name.split(".")[0]]
        bad.append(f"{mod} imports {name} ({modules[mod].relative_to(REPO)}:{line}): {why}")
    assert not bad, "\n".join(bad)


def test_the_command_is_imported_by_its_entry_point_only():
    """spla.cli is imported by nothing in spla but ``python -m spla`` (spla.__main__)."""
    modules, edges, _ = _graph()
    bad = [f"{mod} imports {target} ({_where(modules, mod, lines)})"
           for mod in sorted(edges) if _under(mod, ("spla",)) and not _under(mod, ("spla.cli", "spla.__main__"))
           for target, lines in sorted(edges[mod].items()) if _under(target, ("spla.cli",))]
    assert not bad, "\n".join(bad)


def test_benchmarks_are_imported_by_nothing_under_spla():
    modules, edges, _ = _graph()
    bad = [f"{mod} imports {target} ({_where(modules, mod, lines)})"
           for mod in sorted(edges) if _under(mod, ("spla",))
           for target, lines in sorted(edges[mod].items()) if _under(target, ("benchmarks",))]
    assert not bad, "\n".join(bad)
