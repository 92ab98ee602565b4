"""The checker corpus tests/certs/{valid,invalid,malformed}: each file's expected verdict and code.

``corpus_failures(check)`` runs the corpus assertions against any checker function
``check(bytes) -> (exit_code, verdict_line, diagnostics)``; the stub tests require that an
always-accepting and an always-rejecting checker both fail them.
"""

import os
import re

import pytest

from exactnet.certificate import load_checker

CORPUS = os.path.join(os.path.dirname(__file__), "certs")
# the NOT-LOCALLY-IDENTIFIABLE corpus has its own generator (tests/certs_nli/generate.py)
CORPORA = (CORPUS, os.path.join(os.path.dirname(__file__), "certs_nli"))
EXIT = {"valid": 0, "invalid": 1, "malformed": 2}


def corpus():
    out = []
    for folder in EXIT:
        for name in sorted(n for c in CORPORA for n in os.listdir(os.path.join(c, folder))):
            if name.endswith(".cert"):
                m = re.search(r"__(E_[A-Z_]+)\.cert$", name)
                out.append((folder, name, m.group(1) if m else None))
    return out


def _path(folder, name):
    return next(p for p in (os.path.join(c, folder, name) for c in CORPORA) if os.path.exists(p))


def _read(folder, name):
    with open(_path(folder, name), "rb") as fh:
        return fh.read()


def corpus_failures(check):
    """Every corpus file where ``check`` disagrees with the expected exit code or reason code."""
    bad = []
    for folder, name, code in corpus():
        data = _read(folder, name)
        rc, verdict, diags = check(data)
        if folder == "valid":
            kind = re.search(rb"^kind (\S+)$", data, re.M).group(1).decode()
            if rc != 0 or verdict != f"s VERIFIED {kind}":
                bad.append(f"{name}: {verdict} {diags}")
        elif rc != EXIT[folder] or verdict != "s NOT VERIFIED" or not any(f" {code}: " in d for d in diags):
            bad.append(f"{name}: expected {code}, got rc={rc} {diags}")
    return bad


def test_corpus_is_complete():
    files = corpus()
    assert {f for f, _, _ in files} == set(EXIT)
    assert all(code for f, _, code in files if f != "valid")
    kinds = {re.search(rb"^kind (\S+)$", _read(f, n), re.M).group(1) for f, n, _ in files if f == "valid"}
    assert {b"LOCALLY-IDENTIFIABLE", b"NOT-EQUIVALENT"} <= kinds


def test_corpus_verdicts_and_codes():
    chk = load_checker()
    assert corpus_failures(lambda data: chk.check_text(data)) == []


@pytest.mark.parametrize("stub", [
    lambda data: (0, "s VERIFIED " + re.search(rb"^kind (\S+)$", data, re.M).group(1).decode()
                  if re.search(rb"^kind (\S+)$", data, re.M) else "s VERIFIED X", []),
    lambda data: (1, "s NOT VERIFIED", ["c line 0 E_STUB: no"]),
    lambda data: (2, "s NOT VERIFIED", ["c line 0 E_SYNTAX: no"]),
], ids=["always-accept", "always-reject", "always-malformed"])
def test_stub_checkers_fail_the_corpus(stub):
    assert corpus_failures(stub)


def test_cli_script_matches_library(tmp_path):
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for folder, name, code in corpus()[::4]:
        p = subprocess.run([sys.executable, os.path.join(root, "proofs", "check.py"),
                            _path(folder, name)], capture_output=True, text=True, cwd=tmp_path)
        assert p.returncode == EXIT[folder], (name, p.stdout)
        assert p.stdout.splitlines()[0].startswith("s VERIFIED" if folder == "valid" else "s NOT VERIFIED")
        if code:
            assert f" {code}: " in p.stdout
