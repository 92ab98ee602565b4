"""proofs/ is independent of exactnet: standard library imports only, and a line budget."""

import ast
import os
import subprocess
import sys

import pytest

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
                if node.module == "proofs":  # from proofs import X: the module proofs.X
                    yield from (f"proofs.{a.name}" for a in node.names)
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


def raw_lines(path):
    """Lines as ``wc -l`` counts them (line feeds), docstrings, comments and blank lines included."""
    with open(path, "rb") as fh:
        return fh.read().count(b"\n")


def test_raw_lines_counter(tmp_path):
    p = tmp_path / "m.py"
    p.write_bytes(b'"""doc"""\n\n# c\nx = 1\ny = 2')
    assert raw_lines(str(p)) == 4


# Issue 5 asks for "well under 1,000 lines". With eight kinds and three IDENTIFIABLE rules
# (shallow-1, shallow-2, deep-2 with jump steps) the checker is 1,056 raw lines (968 non-blank),
# down from 1,262, 1,165 and then 1,119 (1,027 non-blank) by simplifications that a differential run
# showed to keep every exit code, verdict, reason code and line number; the 1,000 raw-line target is
# still NOT met. This budget stops growth: new rules must pay for themselves. The rank modulo
# 2^61 - 1 for LOCALLY-IDENTIFIABLE (check.rank_mod, 390 s -> 6 s on a (4,16,16,1) certificate)
# added 18 lines (1,074); shared helpers (check.hidden_pre, a reason-code argument to q / qs) and
# shorter statements brought it back to 1,049, again with a differential run showing no change.
# Comparing zero-row counts in orbit.outside_orbit (lemmas/orbit.md) added 2 lines: 1,051. Folding
# deep2.py into kind_identifiable.py (its only user; one header, one import block) and reading the
# 'rule NAME' line once gave 1,043, a differential run again showing no change. The 'exclude
# modulus' step of rule shallow-1 (lemmas/shallow.md, Lemma 4: wide one-hidden-layer networks with
# generic weights are now decided) added 7 lines: 1,050; dropping up to 16 neurons per step when no
# subset of their residues is 0 modulo M (one input dimension) 5 more: 1,055. One-line docstrings where two
# or three restated a spec, a shared SMALL index pattern, table-driven rule side conditions and a few merged
# statements gave 1,024 (the 950 asked for was not reached without cramming or reordering checks); a
# differential run over 83,321 inputs (corpus, paper certificates, every certificate the test suite feeds the
# checker, mutants) showed no change of exit code, verdict, reason code or line. Frame lines matched by one
# regular expression each, whole-row elimination, the REGIONS box as its 2n sides and a few shared or inlined
# expressions gave 997 raw lines (918 non-blank), below the 1,000 asked for (990 was not reached honestly), a
# differential run over 110,393 inputs (now also 38,000 mutants with changed numbers and fixed digests, and box
# REGIONS certificates) again showing no change of exit code, verdict, reason code or line. Rule deep-3
# (lemmas/deep3_identifiability.md: the first IDENTIFIABLE rule for three hidden layers, architectures
# (2, 2, n2, n3, m)) reuses deep-2's code with the collapsed network on C+ and adds the admissible-pair
# refutations: 29 lines, 1,026 raw (945 non-blank). So the 1,000 raw-line reading of "well under 1,000
# lines" is NOT met again; this budget stops further growth. Session 23: check.ints(small=True) replaced
# REGIONS' own integer parser (-3 lines, 1,023, no change on 47,579 inputs); a unified Bareiss routine for
# rank_mod (-8) was reverted because it checked large rank certificates 30-55% slower, and removing 16 blank
# lines was reverted as formatting, not simplification. Rule deep-n (the deep-3 argument level by level for
# (2, 2, ..., 2, n, n', m), lemmas/deep3_identifiability.md) generalises deep_2's 'three' flag to 'levels':
# +13 lines, 1,036 raw (956 non-blank). A sharper pruning bound in the cover search (Lemma C: the r flats
# meeting most uncovered points; family networks certified by deep-n: 12 -> 21 of 200) +2: 1,038 raw
# (958 non-blank). Still NOT well under 1,000; the rule and the bound were judged worth 15 lines. Session 24:
# Lemma R (lemmas/deep3_identifiability.md, "Wider input": deep-3 / deep-n for any input width n0 >= 2, checked
# on the restriction to a coordinate plane) +4: 1,042 raw. Rule deep-3d (lemmas/deep3d_identifiability.md, the
# architecture (3,4,3,2,1): first layer by full planes, flip sets of the bias-free network and jump lines of the
# kink coefficient; layers 2-4 by covers in C+, the twist lemma and region anchors / steps) in its own module
# proofs/rule_deep3d.py, reusing deep-2's bend, cover, side and flip-set helpers and kind_regions.verify_net:
# +172 lines; a review's robustness fixes (at most 48 points in a cover search, whose set-up grows like
# |P|^n0; REGIONS reads its cells into dicts, so a huge 'cells K' allocates nothing) +3: 1,217 raw. The
# issue-6 architecture (3,4,3,2,1) was judged worth these lines; "well under 1,000" is further away. Session 25:
# kind_identifiable.py split into a dispatcher that loads only the named rule's module (rule_shallow.py,
# rule_deep2.py, rule_deep3d.py) and bend_points.py (Lemmas B, C, shared by the deep rules), so that each
# certificate is checked by at most TRUST_BUDGET lines (below); the module headers cost 24 lines: 1,241 raw. The
# adapters that only exactnet called (check.trap, kind_regions.verify, kind_equivalent.verify: a CheckError handed
# to a callback) moved to their callers, which catch CheckError themselves: 1,226 raw (1,134 non-blank); the
# review's docstrings for deep_3 and deep_n: 1,228 raw (1,136 non-blank).
LINE_BUDGET = 1229


def test_line_width():
    """No checker line is wider than 115 columns (the budget is not met by cramming)."""
    for f in _modules():
        with open(os.path.join(PROOFS, f), encoding="utf-8") as fh:
            wide = [n for n, line in enumerate(fh, 1) if len(line.rstrip("\n")) > 115]
        assert not wide, f"proofs/{f}: lines {wide} are wider than 115 columns"


def test_line_budget():
    """The whole checker (every proofs/*.py, raw lines as wc -l counts them) stays within LINE_BUDGET."""
    sizes = {f: raw_lines(os.path.join(PROOFS, f)) for f in _modules()}
    assert sum(sizes.values()) < LINE_BUDGET, f"proofs/*.py has {sum(sizes.values())} raw lines: {sizes}"


# What a reader must trust to believe one certificate: check.py, the kind's module and (IDENTIFIABLE) the rule's
# module, with everything they import from proofs/. The kind and rule modules are loaded by name only when a
# certificate names them (check.check_text, kind_identifiable.RULES), so no other checker code runs. Session 25:
# the largest such trusted base is rule deep-3d's, 629 raw lines; every certificate is checked by well under 1,000.
TRUST_BUDGET = 700
ROOT = os.path.dirname(PROOFS)
sys.path.insert(0, ROOT)


def _own_imports(module):
    """The proofs/ modules that proofs/<module>.py imports, in any form ``_imports`` sees (the dispatchers'
    computed names are the kind and RULES tables, added by ``trusted``)."""
    return {n.split(".")[1] for n in _imports(os.path.join(PROOFS, module + ".py")) if n.startswith("proofs.")}


def test_own_imports_sees_every_import_form(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text("import proofs.orbit\nfrom proofs import rules\nfrom proofs.check import q\n"
                                   "import importlib\nimportlib.import_module('proofs.kind_regions')\n")
    monkeypatch.setattr(sys.modules[__name__], "PROOFS", str(tmp_path))
    assert _own_imports("m") == {"orbit", "rules", "check", "kind_regions"}


def trusted(kind, rule=None):
    """The proofs/ modules that checking a certificate of ``kind`` (and IDENTIFIABLE ``rule``) can load."""
    from proofs.kind_identifiable import RULES
    todo, seen = ["check", "kind_" + kind.lower().replace("-", "_")], set()
    todo += [RULES[rule].split(".")[0]] if rule else []
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo += sorted(_own_imports(m))
    return seen


def trust_table():
    """{(kind, rule or None): raw lines of its trusted modules}."""
    from proofs.check import KINDS
    from proofs.kind_identifiable import RULES
    pairs = [(k, None) for k in KINDS if k != "IDENTIFIABLE"] + [("IDENTIFIABLE", r) for r in RULES]
    return {p: sum(raw_lines(os.path.join(PROOFS, m + ".py")) for m in trusted(*p)) for p in pairs}


def test_rules_table_names_own_functions():
    """Every entry of kind_identifiable.RULES is a function defined in a proofs/ module (no other import)."""
    from proofs.kind_identifiable import RULES
    for rule, target in RULES.items():
        module, function = target.split(".")
        with open(os.path.join(PROOFS, module + ".py"), encoding="utf-8") as fh:
            defs = {n.name for n in ast.parse(fh.read()).body if isinstance(n, ast.FunctionDef)}
        assert function in defs, f"rule {rule}: proofs/{module}.py defines no {function}"


def test_every_certificate_has_a_small_trusted_base():
    table = trust_table()
    assert len(table) == 13 and min(table.values()) > 250  # every kind and rule counted, check.py in each
    worst = max(table, key=table.get)
    assert table[worst] < TRUST_BUDGET, f"{worst}: {table[worst]} trusted raw lines (budget {TRUST_BUDGET})"


def test_readmes_state_the_trusted_bases_and_the_total():
    """proofs/README.md's table of trusted lines per kind and rule is exactly the one computed here; its total and
    README.md's largest trusted base are today's."""
    with open(os.path.join(PROOFS, "README.md"), encoding="utf-8") as fh:
        text = fh.read()
    want = set()
    for (kind, rule), n in trust_table().items():
        mods = ", ".join(f"`{m}.py`" for m in sorted(trusted(kind, rule)))
        want.add(f"| {kind}{' ' + rule if rule else ''} | {n} | {mods} |")
    rows = {line for line in text.split("\n") if line.startswith("| ") and line.endswith(".py` |")}
    assert rows == want, f"proofs/README.md: missing {sorted(want - rows)}, stale {sorted(rows - want)}"
    raw = sum(raw_lines(os.path.join(PROOFS, f)) for f in _modules())
    blank = 0
    for f in _modules():
        with open(os.path.join(PROOFS, f), encoding="utf-8") as fh:
            blank += sum(not line.strip() for line in fh)
    assert f"is {raw:,} raw lines ({raw - blank:,} non-blank)" in text
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        assert f"you read at most {max(trust_table().values())} lines" in fh.read()


def _smallest_certificate_per_kind_and_rule():
    found = {}
    for folder in ("tests/certs/valid", "tests/certs_nli/valid", "proofs/certificates"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".cert"):
                path = os.path.join(ROOT, folder, name)
                with open(path, encoding="ascii") as fh:
                    text = fh.read()
                kind = text.split("\n")[1].split(" ")[1]
                rule = next((ln[5:] for ln in text.split("\n") if ln.startswith("rule ")), None)
                key = (kind, rule if kind == "IDENTIFIABLE" else None)
                if key not in found or len(text) < found[key][0]:
                    found[key] = (len(text), path)
    return {k: p for k, (_, p) in found.items()}


_CERTS = _smallest_certificate_per_kind_and_rule()


def test_every_kind_and_rule_has_a_stored_certificate():
    assert set(_CERTS) == set(trust_table()), sorted(set(trust_table()) - set(_CERTS), key=str)


@pytest.mark.parametrize("kind,rule", [pytest.param(*k, marks=[pytest.mark.slow] if k[1] == "deep-3d" else [])
                                       for k in sorted(_CERTS, key=str)])  # deep-3d: 5 s to verify
def test_a_check_loads_only_its_trusted_modules(kind, rule):
    """In a fresh interpreter, verifying a certificate loads exactly the modules of its trusted base."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from proofs import check; "
            "c = check.check_text(open(sys.argv[2], 'rb').read())[0]; "
            "print(c, ' '.join(sorted(m[7:] for m in sys.modules if m.startswith('proofs.'))))")
    path = _CERTS[(kind, rule)]
    out = subprocess.run([sys.executable, "-c", code, ROOT, path], capture_output=True, text=True, timeout=300)
    status, *loaded = out.stdout.split()
    assert status == "0", (path, out.stdout, out.stderr)
    assert set(loaded) == trusted(kind, rule), (path, loaded, sorted(trusted(kind, rule)))
