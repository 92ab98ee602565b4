"""Generated mutants of every valid certificate (corpus and proofs/certificates/).

Must-reject operators (the checker may never accept): delete the header or the footer,
truncate at every line, edit a number without fixing the digests, non-canonical spelling,
CR or non-ASCII byte, an index out of range, a point moved onto a breakpoint.
Oracle-decided operators (change one number, delete or swap body lines, digests fixed): if
the checker accepts, an independent oracle built on exactnet (not on proofs/) must agree.
"""

import glob
import hashlib
import os
import random
import re

import pytest
from flint import fmpq_mat

from exactnet.certificate import load_checker
from exactnet.network import Network
from exactnet.qq import parse_q, q_str

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALID = sorted(glob.glob(os.path.join(ROOT, "tests", "certs", "valid", "*.cert"))
               + glob.glob(os.path.join(ROOT, "proofs", "certificates", "*.cert")))
NUM = re.compile(r"^-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?$")
# certificates whose every check takes seconds (rule deep-3d: about 5 s, 1,100 body lines): their
# oracle-decided mutants run in the slow suite, on a sample of LINE_SAMPLE numbers and LINE_SAMPLE body lines
SLOW_CHECK = {"identifiable_3-4-3-2-1_example.cert"}
LINE_SAMPLE = 12


def _read(p):
    with open(p, encoding="ascii") as fh:
        return fh.read()


def _dig(lines):
    return hashlib.sha256("".join(s + "\n" for s in lines).encode()).hexdigest()


def fix(lines):
    lines = list(lines)
    for name in ("network", "other"):
        if f"{name} begin" in lines and f"{name} end" in lines:
            i, j = lines.index(f"{name} begin"), lines.index(f"{name} end")
            if j + 1 < len(lines) and lines[j + 1].startswith(f"{name}-digest "):
                lines[j + 1] = f"{name}-digest {_dig(lines[i:j + 1])}"
    lines[-1] = f"end {_dig(lines[:-1])}"
    return "\n".join(lines) + "\n"


def rc(text):
    return load_checker().check_text(text)[0]


def _body_start(lines):
    return max(i for i, s in enumerate(lines) if s.endswith("-digest " + s.split(" ")[-1])) + 1


def _number_sites(lines, lo=0):
    return [(i, k) for i, s in enumerate(lines) if i >= lo for k, t in enumerate(s.split(" ")) if k and NUM.match(t)]


# ---------------------------------------------------------------- oracle (exactnet only)
def _net(lines, name):
    i, j = lines.index(f"{name} begin"), lines.index(f"{name} end")
    arch = [int(t) for t in lines[i + 1].split()[1:]]
    rows, k, layers = lines[i + 2:j], 0, []
    for n in arch[1:]:
        W = [[parse_q(t) for t in rows[k + r].split()[1:]] for r in range(n)]
        layers.append((W, [parse_q(t) for t in rows[k + n].split()[1:]]))
        k += n + 1
    return Network.from_lists(layers)


def oracle(text):
    """True / False for the kinds it knows (from exactnet), None otherwise."""
    lines = text[:-1].split("\n")
    kind, net = lines[1].split()[1], _net(lines, "network")
    body = [s.split(" ") for s in lines[_body_start(lines):-2]]
    if kind == "NOT-EQUIVALENT":
        g = _net(lines, "other")
        x = [parse_q(t) for t in body[0][1:]]
        return [q_str(v) for v in net.evaluate(x)] == body[1][1:] != body[2][1:] == \
            [q_str(v) for v in g.evaluate(x)]
    if kind == "EQUIVALENT":
        from exactnet.equivalence import equivalent

        if body[0][:2] == ["domain", "all"]:
            return equivalent(net, _net(lines, "other")).equivalent
        return None
    if kind == "LOCALLY-IDENTIFIABLE":
        R, K = int(body[0][1]), int(body[1][1])
        pts = [[parse_q(t) for t in b[1:]] for b in body[2:2 + K]]
        if R != net.num_parameters - net.num_hidden or not all(net.is_generic_point(p) for p in pts):
            return False
        J = [row for p in pts for row in net.parameter_jacobian(p).tolist()]
        if len(body) == 2 + K:
            return fmpq_mat(J).rank() >= R
        rows, cols = [int(t) for t in body[2 + K][1:]], [int(t) for t in body[3 + K][1:]]
        d = fmpq_mat([[J[r][c] for c in cols] for r in rows]).det()
        return len(set(rows)) == len(set(cols)) == R and q_str(d) == body[4 + K][1] and d != 0
    return None


# ---------------------------------------------------------------- must-reject operators
def must_reject(text):
    lines = text[:-1].split("\n")
    yield "no header", "\n".join(lines[1:]) + "\n"
    yield "no footer", "\n".join(lines[:-1]) + "\n"
    for k in range(1, len(lines)):
        yield f"truncated at {k}", "\n".join(lines[:k]) + "\n"
    yield "no final newline", text[:-1]
    for i, k in random.Random(0).sample(_number_sites(lines), min(12, len(_number_sites(lines)))):
        t = lines[i].split(" ")
        t[k] = q_str(parse_q(t[k]) + 1)
        yield f"number edited, digest kept (line {i + 1})", "\n".join(lines[:i] + [" ".join(t)] + lines[i + 1:]) + "\n"
        t = lines[i].split(" ")
        for bad in (t[k] + "/1", "+" + t[k], t[k] + ".0", "0" + t[k].lstrip("-")):
            u = t[:k] + [bad] + t[k + 1:]
            yield f"non-canonical {bad}", fix(lines[:i] + [" ".join(u)] + lines[i + 1:])
    for i in range(_body_start(lines), len(lines) - 1):  # a body line cut to its keyword: a syntax error
        yield f"line {i + 1} without arguments", fix(lines[:i] + [lines[i].split(" ")[0]] + lines[i + 1:])
    yield "CR", text.replace("\n", "\r\n", 1)
    yield "CR in body", fix(lines[:-2] + [lines[-2] + "\r"] + lines[-1:])
    yield "non-ASCII", fix(lines[:3] + [lines[3][:-1] + "\u0661"] + lines[4:]).encode("utf-8")
    yield "tab", fix([s.replace(" ", "\t", 1) if s.startswith("w ") else s for s in lines])
    for i, s in enumerate(lines):
        if s.startswith(("rows ", "cols ")):
            yield "index out of range", fix(lines[:i] + [s.rsplit(" ", 1)[0] + " 100000"] + lines[i + 1:])
    if lines[1] == "kind LOCALLY-IDENTIFIABLE":
        net = _net(lines, "network")
        for i, s in enumerate(lines):
            if s.startswith("point "):
                W, b = net.weights(1), net.biases(1)
                x = [parse_q(t) for t in s.split()[1:]]
                j = next(j for j, w in enumerate(W[0]) if w)
                x[j] -= (sum(w * v for w, v in zip(W[0], x)) + b[0]) / W[0][j]  # onto neuron 1.1's hyperplane
                yield "point on a breakpoint", fix(lines[:i] + ["point " + " ".join(q_str(v) for v in x)] + lines[i + 1:])
                break


@pytest.mark.parametrize("path", VALID, ids=os.path.basename)
def test_valid_certificate_verifies(path):
    assert rc(_read(path)) == 0


@pytest.mark.parametrize("path", VALID, ids=os.path.basename)
def test_must_reject_mutants(path):
    n = 0
    for what, text in must_reject(_read(path)):
        assert rc(text) != 0, what
        n += 1
    assert n > 10


# ---------------------------------------------------------------- oracle-decided operators
def oracle_mutants(text, rng, line_sample=None):
    lines = text[:-1].split("\n")
    lo = _body_start(lines)
    sites = _number_sites(lines, 2)
    for i, k in rng.sample(sites, min(25 if line_sample is None else line_sample, len(sites))):
        t = lines[i].split(" ")
        t[k] = q_str(parse_q(t[k]) + rng.choice([1, -1, parse_q("1/2")]))
        yield fix(lines[:i] + [" ".join(t)] + lines[i + 1:])
    body = range(lo, len(lines) - 2)
    for i in (body if line_sample is None else sorted(rng.sample(body, min(line_sample, len(body))))):
        yield fix(lines[:i] + lines[i + 1:])
        if i + 1 < len(lines) - 2:
            yield fix(lines[:i] + [lines[i + 1], lines[i]] + lines[i + 2:])


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if os.path.basename(p) in SLOW_CHECK else p
                                  for p in VALID], ids=os.path.basename)
def test_oracle_decided_mutants(path):
    """Kinds without an oracle here (REGIONS, NOT-SHALLOW, boxed EQUIVALENT) get only the
    must-reject operators from this file; their own test files carry their oracles."""
    rng = random.Random(os.path.basename(path))
    rejected = 0
    sample = LINE_SAMPLE if os.path.basename(path) in SLOW_CHECK else None
    for text in oracle_mutants(_read(path), rng, sample):
        if rc(text) == 0:
            assert oracle(text) is not False, text
        else:
            rejected += 1
    assert rejected > 0  # the operators do bite


def test_oracle_knows_the_truth():
    """The oracle itself is not a stub: it accepts the valid corpus and refuses a wrong value."""
    for path in VALID:
        text = _read(path)
        assert oracle(text) in (True, None)
        if "\nkind NOT-EQUIVALENT\n" in text:
            lines = text[:-1].split("\n")
            i = next(i for i, s in enumerate(lines) if s.startswith("value "))
            lines[i] = "value " + " ".join(q_str(parse_q(t) + 1) for t in lines[i].split()[1:])
            assert oracle(fix(lines)) is False


# ---------------------------------------------------------------- Hypothesis: random tiny networks
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from exactnet.certificate import locally_identifiable_body, write_certificate  # noqa: E402
from exactnet.strategies import architectures, networks, rationals  # noqa: E402


@settings(max_examples=30, deadline=None)
@given(networks(arch=architectures(max_input=2, max_width=2, max_output=2)), st.data())
def test_random_networks_checker_agrees_with_oracle(net, data):
    """Certificates of random networks at random points: the checker accepts exactly when the
    exactnet oracle (fmpq rank, signs) says the hypotheses hold; a mutated number is then
    rejected or still true for the oracle."""
    K = net.num_parameters
    pts = [[data.draw(rationals(max_num=5, max_den=3)) for _ in range(net.input_dim)] for _ in range(K)]
    text = write_certificate("LOCALLY-IDENTIFIABLE", net, locally_identifiable_body(net, pts))
    zero_row = any(not any(w) and not b for L in net.layers[:-1] for w, b in zip(L.weights, L.biases))
    truth = bool(oracle(text)) and not zero_row
    assert (rc(text) == 0) == truth
    lines = text[:-1].split("\n")
    i, k = data.draw(st.sampled_from(_number_sites(lines, 2)))
    t = lines[i].split(" ")
    t[k] = q_str(parse_q(t[k]) + 1)
    mutant = fix(lines[:i] + [" ".join(t)] + lines[i + 1:])
    if rc(mutant) == 0:
        assert oracle(mutant)
