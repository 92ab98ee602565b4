"""proofs/ is independent of exactnet: standard library imports only, and a line budget."""

import ast
import io
import os
import sys
import tokenize

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


def code_lines(src):
    """Lines carrying code: not blank, not only a comment, not part of a docstring."""
    doc = set()
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            d = node.body[0]
            if isinstance(d, ast.Expr) and isinstance(d.value, ast.Constant) and isinstance(d.value.value, str):
                doc.update(range(d.lineno, d.end_lineno + 1))
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)
    out = set()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type not in skip:
            out.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in doc)
    return len(out)


def test_code_lines_counter():
    assert code_lines('"""doc\nmore"""\n# c\n\nx = 1\ny = """a\nb"""\n') == 3


def test_line_budget():
    """The checker's code (docstrings and comments not counted) stays under 1,000 lines."""
    total = 0
    for f in _modules():
        with open(os.path.join(PROOFS, f), encoding="utf-8") as fh:
            total += code_lines(fh.read())
    assert total < 1000, f"proofs/*.py has {total} lines of code"
