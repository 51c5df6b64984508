"""The probes under benchmarks/probes/ against the project they measure (CPU only, no GPU, fast).

The probes run on a GPU machine only, so nothing else would notice when a refactor renames what they
use.  For every probe module this test

* imports it (a broken module-level import fails here, and the probes import without CuPy);
* reads it with ``ast`` and resolves every reference it makes into the project: each ``import
  spla...`` / ``from spla... import name`` / ``from benchmarks... import name``, and each attribute
  chain on a name bound to a project module (``gpu._spmv_module``, ``spla.tuning.override``,
  ``betweenness._sample_reach``), through modules and classes, failing with the probe, the line and
  the missing name;
* checks that every keyword given to ``spla.tuning.override(...)`` and every attribute read from
  ``spla.tuning.current()`` is a field of ``spla.tuning.Tuning``, and that no probe assigns a module
  global named after a tunable (tunables change only through ``override``).

It also checks that benchmarks/probes/README.md indexes every probe and nothing else.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from pathlib import Path

import pytest

import spla.tuning

REPO = Path(__file__).resolve().parents[1]
PROBES = REPO / "benchmarks" / "probes"
NAMES = sorted(p.stem for p in PROBES.glob("*.py") if p.name != "__init__.py")
PROJECT = ("spla", "benchmarks")
FIELDS = {f.name for f in dataclasses.fields(spla.tuning.Tuning)}


def test_probes_found():
    assert len(NAMES) > 10, NAMES


@pytest.mark.parametrize("name", NAMES)
def test_probe_imports(name):
    importlib.import_module(f"benchmarks.probes.{name}")


def _import(dotted):
    try:
        return importlib.import_module(dotted)
    except ImportError:
        return None


def _member(obj, attr):
    """obj.attr for a module (a submodule imported when needed) or a class; None when missing."""
    if hasattr(obj, attr):
        return getattr(obj, attr)
    if inspect.ismodule(obj):
        return _import(f"{obj.__name__}.{attr}")
    return None


def _chain(node):
    """(root Name, [attr, ...]) of ``a.b.c``, or (None, None) when the chain is not rooted at a name."""
    attrs = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    return (node, attrs[::-1]) if isinstance(node, ast.Name) else (None, None)


class _Probe:
    """One probe's references into the project and the problems found with them."""

    def __init__(self, name, source=None):
        self.file = f"benchmarks/probes/{name}.py"
        if source is None:
            source = (PROBES / f"{name}.py").read_text()
        self.tree = ast.parse(source, filename=self.file)
        self.bound = {}  # name -> project object it is bound to by an import
        self.errors = []

    def error(self, node, what):
        message = f"{self.file}:{node.lineno}: {what}"
        if message not in self.errors:
            self.errors.append(message)

    def bind(self, node, name, obj):
        if name in self.bound and self.bound[name] is not obj:
            self.error(node, f"{name!r} is bound to two different project objects: use distinct names")
        self.bound[name] = obj

    # ---- imports
    def imports(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    top = alias.name.split(".")[0]
                    if top == "algorithms":
                        self.error(node, f"import {alias.name}: write 'from spla import algorithms'")
                    if top not in PROJECT:
                        continue
                    module = _import(alias.name)
                    if module is None:
                        self.error(node, f"no module {alias.name}")
                    elif alias.asname:
                        self.bind(node, alias.asname, module)
                    else:
                        self.bind(node, top, importlib.import_module(top))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    self.error(node, "relative import: import from benchmarks.probes...")
                    continue
                top = (node.module or "").split(".")[0]
                if top == "algorithms":
                    self.error(node, f"from {node.module} import ...: write 'from spla.algorithms import ...'")
                if top not in PROJECT:
                    continue
                module = _import(node.module)
                if module is None:
                    self.error(node, f"no module {node.module}")
                    continue
                for alias in node.names:
                    obj = _member(module, alias.name)
                    if obj is None:
                        self.error(node, f"{node.module}.{alias.name} does not exist")
                    else:
                        self.bind(node, alias.asname or alias.name, obj)

    def rebound(self):
        """Names bound to a project object by an import and also by something else (ambiguous)."""
        for node in ast.walk(self.tree):
            names = []
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names = [node.id]
            elif isinstance(node, ast.arg):
                names = [node.arg]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.ExceptHandler) and node.name:
                names = [node.name]
            for n in names:
                if n in self.bound:
                    self.error(node, f"{n!r} names a project import and is rebound here: use distinct names")

    # ---- attribute chains, calls into spla.tuning, assignments of tunables
    def resolve(self, node):
        """The project object ``node`` (a Name or an attribute chain on one) refers to, or None when it
        is not rooted at a project import or leaves modules and classes; records a missing name."""
        root, attrs = _chain(node)
        if root is None or root.id not in self.bound:
            return None
        obj, path = self.bound[root.id], root.id
        for attr in attrs:
            if not (inspect.ismodule(obj) or inspect.isclass(obj)):
                return None  # an attribute of a value: not checked
            nxt = _member(obj, attr)
            path += "." + attr
            if nxt is None:
                self.error(node, f"{path} does not exist ({_qualname(obj)} has no {attr!r})")
                return None
            obj = nxt
        return obj

    def references(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "_parent", None), ast.Attribute):
                self.resolve(node)
            if isinstance(node, ast.Call):
                func = self.resolve(node.func) if isinstance(node.func, (ast.Name, ast.Attribute)) else None
                if func is spla.tuning.override:
                    for kw in node.keywords:
                        if kw.arg is not None and kw.arg not in FIELDS:
                            self.error(node, f"spla.tuning.override({kw.arg}=...): no such field of spla.tuning.Tuning")
                if isinstance(node.func, ast.Name) and node.func.id == "setattr" and len(node.args) >= 2:
                    target = self.resolve(node.args[0]) if isinstance(node.args[0], (ast.Name, ast.Attribute)) else None
                    key = node.args[1]
                    if inspect.ismodule(target) and isinstance(key, ast.Constant) and str(key.value).lower() in FIELDS:
                        self.error(node, f"setattr of the tunable {key.value}: use spla.tuning.override")
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, (ast.Name, ast.Attribute))
                    and self.resolve(node.value.func) is spla.tuning.current
                    and not hasattr(spla.tuning.Tuning, node.attr)):
                self.error(node, f"spla.tuning.current().{node.attr}: no such field of spla.tuning.Tuning")
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for t in ast.walk(target):
                        if (isinstance(t, ast.Attribute) and t.attr.lower() in FIELDS
                                and inspect.ismodule(self.resolve(t.value) if isinstance(t.value, (ast.Name, ast.Attribute)) else None)):
                            self.error(t, f"assigns the module global {t.attr}: change tunables with "
                                          f"spla.tuning.override({t.attr.lower()}=...)")

    def check(self):
        for parent in ast.walk(self.tree):
            for child in ast.iter_child_nodes(parent):
                child._parent = parent
        self.imports()
        self.rebound()
        self.references()
        return self.errors


def _qualname(obj):
    return getattr(obj, "__name__", None) or type(obj).__name__


@pytest.mark.parametrize("name", NAMES)
def test_probe_references_exist(name):
    errors = _Probe(name).check()
    assert not errors, "\n".join(errors)


def test_the_checker_finds_missing_names():
    """The checker itself: a missing engine name, an unknown tunable and a global assignment fail."""
    source = (
        "import spla\n"
        "from spla.backends import gpu\n"
        "from benchmarks import graphs\n"
        "def main():\n"
        "    gpu.no_such_function()\n"
        "    with spla.tuning.override(no_such_field=1):\n"
        "        graphs.load_edges('x')\n"
        "    gpu.LONG = None\n"
        "    spla.tuning.current().no_such_field\n"
    )
    errors = "\n".join(_Probe("probe_bad", source).check())
    assert "probe_bad.py:5: gpu.no_such_function does not exist" in errors, errors
    assert "override(no_such_field=...)" in errors
    assert "probe_bad.py:8: assigns the module global LONG" in errors
    assert "probe_bad.py:9: spla.tuning.current().no_such_field" in errors
    assert "graphs.load_edges" not in errors


def test_readme_indexes_every_probe():
    rows = re.findall(r"^\| `([A-Za-z0-9_]+)` \|", (PROBES / "README.md").read_text(), flags=re.M)
    assert len(rows) == len(set(rows)), f"listed twice: {sorted(r for r in rows if rows.count(r) > 1)}"
    assert sorted(rows) == NAMES, (f"not in the README: {sorted(set(NAMES) - set(rows))}; "
                                   f"in the README, not a probe: {sorted(set(rows) - set(NAMES))}")
