"""Hidden-symmetry rules: every rule that fires gives a different parameter with the same function."""

import random

import pytest
from flint import fmpq
from hypothesis import given, strategies as st

from exactnet.errors import UndecidedError, ValueRangeError
from exactnet.examples import example
from exactnet.network import Network
from exactnet.strategies import architectures, networks
from exactnet.symmetry import same_orbit
from exactnet.symmetry_rules import Rule, apply_rule, find_rules


def sample_equal(a, b, rng, n=150):
    """Independent oracle: exact evaluation at many rational points (a test, not a proof)."""
    for _ in range(n):
        x = [fmpq(rng.randint(-60, 60), rng.randint(1, 6)) for _ in range(a.input_dim)]
        if a.evaluate(x) != b.evaluate(x):
            return False
    return True


def test_examples():
    assert [r.line() for r in find_rules(example("A"))] == ["rule flip 1 0 1 2"]
    b = apply_rule(example("B"), Rule("reflect", 1))
    assert [str(v) for v in b.flatten()] == ["-1", "-2", "1/2", "-2", "3", "-5", "14"]  # theory.md example B
    assert [r.name for r in find_rules(example("D"))] == ["active"]
    assert find_rules(example("C")) == []


@given(networks(architectures(max_input=2, max_width=3, max_hidden_layers=3, max_output=2), max_num=2, max_den=1),
       st.integers(0, 10**6))
def test_every_found_rule_preserves_the_function(net, seed):
    rng = random.Random(seed)
    for rule in find_rules(net)[:6]:
        other = apply_rule(net, rule)
        assert other != net
        assert other.architecture == net.architecture
        assert sample_equal(net, other, rng), rule.line()


@given(networks(architectures(max_input=2, max_width=3, max_output=2), max_num=2, max_den=2), st.integers(0, 10**6))
def test_side_conditions_are_enforced(net, seed):
    """A rule is applied only when its side condition holds: a random rule either raises or preserves f."""
    rng = random.Random(seed)
    l = rng.randint(1, net.depth - 1)
    w = net.architecture[l]
    name = rng.choice(["flip", "split", "unused", "dead", "active", "hidden", "reflect"])
    args = {"flip": tuple(sorted(rng.sample(range(w), rng.randint(1, w)))),
            "split": tuple(rng.sample(range(w), 2)) if w >= 2 else (0, 0),
            "reflect": ()}.get(name, (rng.randrange(w),))
    try:
        other = apply_rule(net, Rule(name, l, args))
    except (ValueRangeError, Exception) as e:  # noqa: B014 - ShapeError and ValueRangeError
        from exactnet.errors import ExactnetError

        assert isinstance(e, ExactnetError)
        return
    assert sample_equal(net, other, rng)


def test_flip_needs_zero_matrix():
    a = example("A")
    with pytest.raises(ValueRangeError):
        apply_rule(a, Rule("flip", 1, (0, 1)))
    perturbed = a.replace_layer(2, [[1, 2, "3/2"]], [0])
    assert find_rules(perturbed) == []  # theory.md: perturbing W2 destroys the symmetry


def test_found_witnesses_leave_the_orbit_for_regular_networks():
    rng = random.Random(3)
    hits = 0
    for seed in range(60):
        net = Network.from_lists([
            ([[rng.randint(-1, 1) for _ in range(2)] for _ in range(3)], [rng.randint(-1, 1) for _ in range(3)]),
            ([[rng.randint(-1, 1) for _ in range(3)]], [0])])
        for rule in find_rules(net):
            other = apply_rule(net, rule)
            try:
                if not same_orbit(net, other):
                    hits += 1
            except UndecidedError:
                pass
    assert hits > 0
