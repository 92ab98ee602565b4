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
# issue-6 architecture (3,4,3,2,1) was judged worth these lines; "well under 1,000" is further away.
LINE_BUDGET = 1218


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
