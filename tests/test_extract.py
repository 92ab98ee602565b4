"""Tests of exact parameter extraction (exactnet.extract) and of the oracles (exactnet.oracle).

Independent oracles: the victim's weights (true kink positions along a line, canonical
forms) and the region-based equivalence decision of exactnet.equivalence; the extractor
itself only ever sees evaluations, which a test enforces by making weight access raise.
"""

from __future__ import annotations

import json
import random
import sys
import textwrap
from fractions import Fraction

import pytest
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from exactnet.cli import main as cli_main
from exactnet.equivalence import equivalent
from exactnet.errors import LimitError, OracleError, ShapeError, UndecidedError
from exactnet.examples import example
from exactnet.extract import compare_with_victim, extract, find_kinks, simplest_between
from exactnet.netio import load_network, save_network
from exactnet.network import Network
from exactnet.oracle import CallableOracle, CommandOracle, FloatOracle, NetworkOracle
from exactnet.strategies import networks
from exactnet.symmetry import canonical_form


def dyadic_network(arch, seed):
    """Victims with no zero weight (every neuron visible, generic position)."""
    rng = random.Random(seed)

    def q():
        p = 0
        while p == 0:
            p = rng.randint(-9, 9)
        return fmpq(p, 2 ** rng.randint(0, 3))

    return Network.from_lists(
        [([[q() for _ in range(arch[l - 1])] for _ in range(arch[l])], [q() for _ in range(arch[l])])
         for l in range(1, len(arch))]
    )


@pytest.mark.parametrize("arch,seed", [((3, 4, 1), 1), ((5, 3, 2), 2), ((8, 6, 1), 3), ((4, 5, 3), 4), ((12, 7, 1), 5)])
def test_generic_shallow_victims_are_recovered_up_to_orbit(arch, seed):
    victim = dyadic_network(arch, seed)
    oracle = NetworkOracle(victim)
    res = extract(oracle, arch, seed=seed)
    assert res.network.architecture == arch
    assert res.status == "identified"
    assert canonical_form(res.network) == canonical_form(victim)
    assert res.queries == oracle.queries > 0
    assert res.checks["agree"] is True


def test_more_neurons_than_inputs_uses_the_subset_sum_path():
    victim = dyadic_network((2, 5, 1), 7)
    res = extract(NetworkOracle(victim), (2, 5, 1), seed=1)
    assert equivalent(res.network, victim).equivalent
    if res.status == "identified":
        assert canonical_form(res.network) == canonical_form(victim)
    else:
        assert res.sign_solutions > 1


def test_extractor_never_reads_weights(monkeypatch):
    """Every parameter accessor of Network raises unless called from inside the oracle's evaluation."""
    victim = dyadic_network((6, 4, 1), 11)
    oracle = NetworkOracle(victim)
    inside = [False]
    evaluate = oracle._evaluate

    def guarded_evaluate(points):
        inside[0] = True
        try:
            return evaluate(points)
        finally:
            inside[0] = False

    monkeypatch.setattr(oracle, "_evaluate", guarded_evaluate)

    def guard(name, orig, is_property):
        def check(self, *a, **k):
            if not inside[0] and self is victim:
                raise AssertionError(f"the extractor read the victim's parameters ({name})")
            return orig.fget(self) if is_property else orig(self, *a, **k)

        return property(check) if is_property else check

    for name in ("layers", "weights", "biases", "weight_matrix", "flatten", "local_affine", "gradient",
                 "preactivations", "parameter_jacobian", "signs", "pattern", "evaluate", "evaluate_batch"):
        orig = Network.__dict__[name]
        monkeypatch.setattr(Network, name, guard(name, orig, isinstance(orig, property)))
    assert not any(isinstance(v, Network) for v in vars(oracle).values())
    with pytest.raises(AssertionError):
        victim.weights(1)  # the guard is live
    res = extract(oracle, (6, 4, 1), seed=0)
    monkeypatch.undo()
    assert canonical_form(res.network) == canonical_form(victim)


def test_callable_oracle_of_fractions():
    victim = dyadic_network((4, 3, 1), 5)

    def fn(x):  # a plain function of Fractions, no exactnet inside
        xs = [Fraction(int(v.p), int(v.q)) for v in x]
        out = Fraction(int(victim.biases(2)[0].p), int(victim.biases(2)[0].q))
        for w, b, v in zip(victim.weights(1), victim.biases(1), victim.weights(2)[0]):
            z = sum(Fraction(int(a.p), int(a.q)) * c for a, c in zip(w, xs)) + Fraction(int(b.p), int(b.q))
            out += Fraction(int(v.p), int(v.q)) * max(z, Fraction(0))
        return [out]

    res = extract(CallableOracle(fn, 4, 1), (4, 3, 1))
    assert canonical_form(res.network) == canonical_form(victim)


def test_example_a_hidden_symmetry_returns_a_fibre_point():
    a = example("A")
    res = extract(NetworkOracle(a), a.architecture, seed=3)
    assert res.status == "fibre"
    assert res.sign_solutions == 2
    assert equivalent(res.network, a).equivalent


def test_invisible_neuron_gives_fibre_with_spare_zero_neuron():
    base = dyadic_network((3, 4, 1), 9)
    W2 = [list(base.weights(2)[0])]
    W2[0][2] = fmpq(0)  # neuron 2 is invisible
    victim = base.replace_layer(2, W2, base.biases(2))
    res = extract(NetworkOracle(victim), (3, 4, 1), seed=2)
    assert res.status == "fibre" and res.hyperplanes == 3
    assert equivalent(res.network, victim).equivalent
    assert any("spare" in n for n in res.notes)


def test_architecture_mismatch_and_non_shallow_oracles_are_refused():
    victim = dyadic_network((3, 5, 1), 4)
    with pytest.raises(UndecidedError, match="architecture mismatch"):
        extract(NetworkOracle(victim), (3, 3, 1))
    deep = dyadic_network((2, 3, 3, 1), 6)
    with pytest.raises(UndecidedError):
        extract(NetworkOracle(deep), (2, 12, 1))
    with pytest.raises(UndecidedError, match="non-expanding"):
        extract(NetworkOracle(deep), (2, 3, 3, 1))
    with pytest.raises(ShapeError):
        extract(NetworkOracle(victim), (4, 5, 1))


@settings(max_examples=25)
@given(networks(arch=st.sampled_from([(2, 2, 1), (2, 3, 1), (3, 2, 2), (1, 3, 1)])), st.integers(0, 3))
def test_never_a_wrong_network(victim, seed):
    """Whatever the victim (zeros, ties, dead neurons; small weights, so every kink lies within the
    search radius): a returned network computes the same function."""
    try:
        res = extract(NetworkOracle(victim), victim.architecture, seed=seed)
    except UndecidedError:
        return
    assert equivalent(res.network, victim).equivalent
    if res.status == "identified":
        assert canonical_form(res.network) == canonical_form(victim)


@settings(max_examples=20)
@given(st.integers(0, 10**6))
def test_kinks_are_exact(seed):
    """Kinks along a line equal the true crossings -(w.p + b)/(w.u) computed from the weights."""
    victim = dyadic_network((3, 4, 1), seed)
    rng = random.Random(seed)
    p = [fmpq(rng.randint(-9, 9), 4) for _ in range(3)]
    u = [fmpq(rng.randint(1, 9)) for _ in range(3)]
    lo, hi = fmpq(-2) ** 12, fmpq(2) ** 12
    kinks, _ = find_kinks(NetworkOracle(victim), p, u, lo, hi, 4)
    true = set()
    for w, b in zip(victim.weights(1), victim.biases(1)):
        s = sum((a * c for a, c in zip(w, u)), fmpq(0))
        if s:
            t = -(sum((a * c for a, c in zip(w, p)), fmpq(0)) + b) / s
            if lo < t < hi:
                true.add(t)
    assert set(kinks) <= true
    assert len(kinks) == len(set(kinks))
    # every true crossing is a kink unless the hyperplanes of two neurons cross the line together
    if len(true) == 4:
        assert set(kinks) == true


def test_query_budget_and_cache():
    victim = dyadic_network((5, 4, 1), 2)
    o = NetworkOracle(victim, max_queries=50)
    x = [fmpq(1)] * 5
    o.query(x)
    o.query(x)
    assert o.queries == 1 and o.cache_hits == 1
    with pytest.raises(LimitError):
        extract(o, (5, 4, 1))


def test_simplest_between():
    assert simplest_between(fmpq(1, 3), fmpq(2, 3)) == fmpq(1, 2)
    assert simplest_between(fmpq(-5, 2), fmpq(7)) == fmpq(-2)
    c = simplest_between(fmpq(1, 1000), fmpq(2, 1000))
    assert fmpq(1, 1000) < c < fmpq(2, 1000) and int(c.q) & (int(c.q) - 1) == 0


def test_float_oracle_is_refused_with_a_reason():
    o = FloatOracle(lambda x: [max(x[0], 0.0) * 0.1], 1, 1)
    assert o.query([fmpq(1)]) == [fmpq(*(0.1).as_integer_ratio())]
    with pytest.raises(UndecidedError, match="float"):
        extract(o, (1, 1, 1))


ORACLE_SCRIPT = textwrap.dedent(
    """
    import sys
    from fractions import Fraction
    W = [[Fraction(1), Fraction(-2)], [Fraction(1, 2), Fraction(3)], [Fraction(-1), Fraction(1, 4)]]
    b = [Fraction(1), Fraction(-1, 3), Fraction(2)]
    v = [Fraction(2), Fraction(-1), Fraction(3, 2)]
    for line in sys.stdin:
        if MODE == "error":
            print("error: refused"); sys.stdout.flush(); continue
        if MODE == "exit":
            sys.exit(3)
        if MODE == "hang":
            import time; time.sleep(30)
        x = [Fraction(s) for s in line.strip().split(",")]
        y = sum((vi * max(sum(a * c for a, c in zip(w, x)) + bi, 0) for w, bi, vi in zip(W, b, v)), Fraction(1, 5))
        print(str(y)); sys.stdout.flush()
    """
)


def _script(tmp_path, mode):
    path = tmp_path / f"oracle_{mode}.py"
    path.write_text(f"MODE = {mode!r}\n" + ORACLE_SCRIPT)
    return f"{sys.executable} {path}"


def test_command_oracle_protocol(tmp_path):
    expect = Network.from_lists([([[1, -2], ["1/2", 3], [-1, "1/4"]], [1, "-1/3", 2]), ([[2, -1, "3/2"]], ["1/5"])])
    with CommandOracle(_script(tmp_path, "ok"), 2, 1) as o:
        res = extract(o, (2, 3, 1), seed=1)
        assert o.queries == res.queries
    assert equivalent(res.network, expect).equivalent
    for mode, kw in (("error", {}), ("exit", {}), ("hang", {"timeout": 0.5})):
        with CommandOracle(_script(tmp_path, mode), 2, 1, **kw) as o:
            with pytest.raises(OracleError):
                o.query([fmpq(1), fmpq(2)])
    with CommandOracle(_script(tmp_path, "ok"), 2, 2) as o:  # wrong output width
        with pytest.raises(OracleError):
            o.query([fmpq(1), fmpq(2)])


def test_cli_extract_json(tmp_path, capsys):
    victim = dyadic_network((4, 3, 1), 8)
    vpath, opath = tmp_path / "victim.json", tmp_path / "stolen.json"
    save_network(victim, str(vpath))
    code = cli_main(["extract", "--oracle", str(vpath), "--arch", "4,3,1", "-o", str(opath), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["status"] == "identified" and out["victim_comparison"]["equivalent"] is True
    assert out["queries"] > 0
    assert canonical_form(load_network(str(opath))) == canonical_form(victim)
    code = cli_main(["extract", "--oracle-cmd", _script(tmp_path, "ok"), "--arch", "2,3,1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["victim_comparison"] is None and out["checks"]["agree"] is True
    # a deeper --arch than the file's: a network of that architecture computing the same function is found
    # (its second layer active everywhere) and the exact comparison decides equivalence across architectures
    deep = tmp_path / "deep.json"
    code = cli_main(["extract", "--oracle", str(vpath), "--arch", "4,3,3,1", "-o", str(deep), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["architecture"] == [4, 3, 3, 1] and out["status"] == "fibre"
    cmp = out["victim_comparison"]
    assert cmp["same_architecture"] is False and cmp["equivalent"] is True and cmp["same_orbit"] is False
    assert load_network(str(deep)).architecture == (4, 3, 3, 1)
    assert equivalent(load_network(str(deep)), victim).equivalent
    assert cli_main(["extract", "--oracle", str(vpath), "--arch", "4,2,1"]) != 0  # too few neurons: never 0


@pytest.mark.parametrize("arch", [(3, 4, 1), (4, 3, 2, 2), (2, 1)])
def test_axis_steps_fast_path_equals_explicit_points(arch):
    net = dyadic_network(arch, 3)
    o = NetworkOracle(net)
    x = [fmpq(k - 1, 3) for k in range(arch[0])]
    d = fmpq(1, 7)
    fast = o.query_axis_steps(x, d)
    assert o.queries == arch[0]
    slow = CallableOracle(net.evaluate, arch[0], arch[-1]).query_axis_steps(x, d)
    assert fast == slow


def test_a_kink_beyond_the_search_radius_is_never_claimed_identified():
    """A black box cannot show a kink farther out than every query: the neuron bending at 10^30 is
    returned as a zero neuron, the status is "fibre" with a note that says the result can differ far
    out, and the exact comparison with the victim finds the difference (review finding, s20)."""
    from exactnet.extract import SEARCH_RADIUS

    far = fmpq(10) ** 30
    assert far > SEARCH_RADIUS * 10**9
    victim = Network.from_lists([([[1], [-2]], [-far, 2]), ([["-1/2", 1]], ["-1/2"])])
    res = extract(NetworkOracle(victim), (1, 2, 1), seed=0)
    assert res.status == "fibre" and res.hyperplanes == 1
    assert any("farther out than the search reaches" in n for n in res.notes)
    assert res.network.evaluate([far + 1]) != victim.evaluate([far + 1])
    cmp = compare_with_victim(res.network, victim)
    assert cmp["equivalent"] is False and cmp["same_orbit"] is False
