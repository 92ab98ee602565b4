"""Rule deep-3d (proofs/lemmas/deep3d_identifiability.md): IDENTIFIABLE for the architecture (3,4,3,2,1).

* theta_off (examples/identifiable_3-4-3-2-1.json) is certified by the producer, the checker verifies it,
  and ``certify`` says IDENTIFIABLE by this rule;
* mutants are rejected: each kind of witness line removed, a point moved, a wrong rule, the certificate
  with another network (the layers memo's network theta'' with b3_2 - 1, b4 + 1, equal to theta_off on C+
  but not on R^3: it is a different function, so the rule may, and does, certify theta'' too);
* docs/research/theta_3-4-3-2-1_whole_planes.json is not certified (its bend points in C+ lie on two
  planes, so (P+) fails);
* an independent exact fibre search finds nothing outside theta_off's orbit;
* a permuted and rescaled copy of theta_off is certified too.
Each certification takes 15 to 20 s and each check about 5 s, so all but the first, the mutants, the
whole-planes network, the scope and the fibre search run in the slow suite (``pytest -m slow``).
"""

from __future__ import annotations

import functools
import os
import random
from fractions import Fraction

import pytest

from exactnet.certificate import check_certificate_text, write_certificate
from exactnet.certify import certify
from exactnet.deep3d_identifiable import certify_deep3d, deep3d_identifiable_body
from exactnet.fibre_search import search_fibre
from exactnet.netio import load_network
from exactnet.fasteval import evaluate_batch_fast
from exactnet.randnet import random_network
from exactnet.symmetry import random_orbit_element

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "identifiable_3-4-3-2-1.json")
WHOLE = os.path.join(ROOT, "docs", "research", "theta_3-4-3-2-1_whole_planes.json")


@functools.cache
def _body():
    net = load_network(EXAMPLE)
    body, why = deep3d_identifiable_body(net)
    assert body is not None, why
    return net, tuple(body)


def _checked(net, body):
    return check_certificate_text(write_certificate("IDENTIFIABLE", net, list(body)), network=net)


def _shifted(net, delta=1):
    """theta_off with b3_2 - delta and b4 + delta (layers memo, section 4): f is unchanged on C+ only."""
    b3, b4 = list(net.biases(3)), list(net.biases(4))
    b3[1] -= delta
    b4[0] += delta
    return net.replace_layer(3, net.weights(3), b3).replace_layer(4, net.weights(4), b4)


def test_theta_off_is_certified_and_verified():
    net, body = _body()
    assert body[0] == "rule deep-3d"
    chk = _checked(net, body)
    assert chk.verified and chk.conclusion == "IDENTIFIABLE", chk.lines
    kinds = {line.split()[0] for line in body[1:]}
    assert {"plane", "orient", "bend", "jumpline", "obstruct", "twist", "anchor", "step"} <= kinds


@pytest.mark.slow
def test_certify_says_identifiable_by_rule_deep3d():
    net = load_network(EXAMPLE)
    res = certify(net)
    assert res.verdict == "IDENTIFIABLE" and res.details["rule"] == "deep-3d", res.reason
    assert check_certificate_text(res.certificate, network=net).verified


def _move(line, k, by=Fraction(1, 7)):
    toks = line.split()
    toks[k] = str(Fraction(toks[k]) + by)
    return " ".join(toks)


def _mutants(body):
    body = list(body)
    drop = lambda pred: [l for l in body if not pred(l)]  # noqa: E731
    yield "no plane 2", "E_PLANE", drop(lambda l: l.startswith("plane 2 "))
    yield "no orient", "E_ORIENT", drop(lambda l: l.startswith("orient"))
    yield "no bends", "E_COVER", drop(lambda l: l.startswith("bend"))
    yield "no obstructions", "E_COVER", drop(lambda l: l.startswith("obstruct"))
    yield "no jump lines on F_1", "E_JUMPLINE", drop(lambda l: l.startswith("jumpline 1 "))
    yield "no twist for neuron 1", "E_TWIST", drop(lambda l: l.startswith("twist 1 "))
    yield "no steps", "E_INCOMPLETE", drop(lambda l: l.startswith(("step", "jump ")))
    yield "no anchor", "E_SYNTAX", drop(lambda l: l.startswith("anchor"))
    yield "rule deep-2", "E_DEPTH", ["rule deep-2"] + body[1:]
    yield "rule deep-3", "E_DEPTH", ["rule deep-3"] + body[1:]
    for kw, code, k in (("orient", "E_ORIENT", 1), ("jumpline", "E_JUMPLINE", 4), ("obstruct", "E_OBSTRUCT", 2),
                        ("twist", "E_BEND", 2), ("anchor", "E_ANCHOR", 1), ("step", "E_STEP", 2),
                        ("bend", "E_BEND", 1)):
        i = next(i for i, l in enumerate(body) if l.startswith(kw + " "))
        yield f"{kw} point moved", code, body[:i] + [_move(body[i], k)] + body[i + 1:]


def test_mutants_are_rejected():
    net, body = _body()
    for name, code, bad in _mutants(body):
        chk = _checked(net, bad)
        assert not chk.verified and f" {code}: " in chk.lines[1], (name, chk.lines)


@pytest.mark.slow
def test_the_certificate_is_about_its_network():
    net, body = _body()
    other = _shifted(net)
    inside, outside = [[1, 1, 1]], [[59, 7, 58]]  # h_2(59, 7, 58) = -339/2 < 1
    assert evaluate_batch_fast(net, inside) == evaluate_batch_fast(other, inside)
    assert evaluate_batch_fast(net, outside) != evaluate_batch_fast(other, outside)
    assert not _checked(other, body).verified
    assert not _checked(random_network((3, 4, 3, 2, 1), 1), body).verified


@pytest.mark.slow
def test_the_shifted_network_is_certified_in_its_own_right():
    """theta'' (a different function from theta_off's, equal to it on C+ only) has its own certificate."""
    other = _shifted(load_network(EXAMPLE))
    own, why = deep3d_identifiable_body(other)
    assert own is not None and _checked(other, own).verified, why


def test_whole_planes_network_is_not_certified():
    net = load_network(WHOLE)
    body, why = deep3d_identifiable_body(net)
    assert body is None and "(P+)" in why, why
    assert certify_deep3d(net).verdict == "UNDECIDED"


def test_other_architectures_are_out_of_scope():
    body, why = deep3d_identifiable_body(random_network((3, 4, 3, 3, 1), 0))
    assert body is None and "(3,4,3,2,1)" in why


def test_fibre_search_finds_nothing_for_theta_off():
    net = load_network(EXAMPLE)
    assert not search_fibre(net, first_only=False).found


@pytest.mark.slow
def test_an_orbit_copy_is_certified_too():
    net = load_network(EXAMPLE)
    other = random_orbit_element(net, random.Random(3))
    res = certify_deep3d(other)
    assert res.verdict == "IDENTIFIABLE", res.reason
    assert check_certificate_text(res.certificate, network=other).verified


MEMO_LAYERS = [  # the layers memo's anchor, steps and jump step for theta_off (section 7), neurons from 0
    "anchor 231/100 17451/9200 -109/50 119/5 69/4 -213/5",
    "step 0 -21/100 -29/50 9169/3250",
    "step 1 632/35 -29/10 -259/20",
    "step 0 781/180 -2/5 -7/50",
    "jump 157/100 1141/1600 11/20",
]


@pytest.mark.slow
def test_the_memo_plan_with_a_jump_step_verifies_and_needs_its_jump():
    """The memo's anchor region (C_(-3), +++) needs the jump step (beta_(2,2)); without it, E_INCOMPLETE."""
    net, body = _body()
    head = [l for l in body if not l.startswith(("anchor", "step", "jump "))]
    chk = _checked(net, head + MEMO_LAYERS)
    assert chk.verified, chk.lines
    chk = _checked(net, head + MEMO_LAYERS[:-1])
    assert not chk.verified and " E_INCOMPLETE: " in chk.lines[1], chk.lines


def test_the_producer_runs_outside_the_repository(tmp_path):
    """The installed command has no repository on its path: the producer must load proofs/ itself
    (regression: `exactnet certify` from another directory raised ModuleNotFoundError)."""
    import subprocess
    import sys

    code = ("from exactnet.randnet import random_network\n"
            "from exactnet.deep3d_identifiable import deep3d_identifiable_body\n"
            "body, why = deep3d_identifiable_body(random_network((3, 4, 3, 2, 1), 3))\n"
            "print(body is None, why)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert p.returncode == 0 and p.stdout.startswith("True"), p.stderr
