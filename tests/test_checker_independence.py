"""proofs/ is independent of exactnet: standard library imports only, and a line budget."""

import ast
import os
import sys

PROOFS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "proofs")


def _modules():
    return sorted(f for f in os.listdir(PROOFS) if f.endswith(".py"))


def _imports(path):
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                yield "proofs"
            else:
                yield node.module
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) in ("import_module", "__import__"):
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant):
                yield arg.value


def test_only_stdlib_and_own_modules():
    own = {f[:-3] for f in _modules()}
    for f in _modules():
        for name in _imports(os.path.join(PROOFS, f)):
            top = name.split(".")[0]
            ok = top == "proofs" or top in own or top in sys.stdlib_module_names
            assert ok, f"proofs/{f} imports {name}"
            assert top != "exactnet"


def test_detects_a_forbidden_import(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("import exactnet.qq\nfrom flint import fmpq\n")
    assert [n.split(".")[0] for n in _imports(str(p))] == ["exactnet", "flint"]


def test_line_budget():
    total = 0
    for f in _modules():
        with open(os.path.join(PROOFS, f), encoding="utf-8") as fh:
            total += sum(1 for _ in fh)
    assert total < 1000, f"proofs/*.py has {total} lines"
