"""The mechanism ``certify`` names for a hidden symmetry is the same for the whole orbit (of a
network without zero incoming rows; see :func:`exactnet.certify._rule_symmetry` for why zero rows
can still give two proved names).

When several structural rules apply (say neuron (2,0) is dead by structure and (2,1) stably
active), certify used to report the first one ``find_rules`` yields, in the neuron order the user
happened to give, so a permuted copy of the same network was told ``stably-active-neuron`` and
the original ``dead-neuron``. The rule stage now orders the candidates by an orbit-invariant key
(mechanism preference, layer, neuron indices in the canonical form) and still applies the chosen
rule to the network as given, so each certificate is about the user's own coordinates.
"""

from __future__ import annotations

import random

import pytest
from flint import fmpq

from exactnet.certificate import check_certificate_text
from exactnet.certify import certify
from exactnet.network import Network
from exactnet.randnet import random_network
from exactnet.symmetry import canonical_map, permute_layer, same_orbit, scale_layer
from exactnet.symmetry_rules import apply_rule, find_rules

# random_network((2, 1, 2, 1), seed=9, max_num=4, max_den=3): rules dead 2 0 and active 2 1
_DEAD_AND_ACTIVE = Network.from_lists([([[1, "1/2"]], [-2]), ([[-2], [2]], ["-3/2", "4/3"]),
                                       ([["-4/3", 2]], [1])])


def _copy(net: Network, rng: random.Random) -> Network:
    """A random member of ``net``'s orbit: every hidden layer permuted and positively rescaled."""
    for l in range(1, net.depth):
        n = net.architecture[l]
        perm = list(range(n))
        rng.shuffle(perm)
        net = permute_layer(net, l, perm)
        net = scale_layer(net, l, [fmpq(rng.randint(1, 5), rng.randint(1, 5)) for _ in range(n)])
    return net


def test_a_swapped_copy_is_told_the_same_mechanism():
    swapped = scale_layer(permute_layer(_DEAD_AND_ACTIVE, 2, [1, 0]), 2, [3, "1/2"])
    assert [r.mechanism for r in find_rules(swapped)][0] == "stably-active-neuron"  # user order differs
    results = [certify(net) for net in (_DEAD_AND_ACTIVE, swapped)]
    for net, res in zip((_DEAD_AND_ACTIVE, swapped), results):
        assert (res.verdict, res.mechanism) == ("HIDDEN-SYMMETRY", "dead-neuron"), res.reason
        # the certificate is about the network as given: its rule line names the user's neuron
        assert check_certificate_text(res.certificate, network=net).verified
        assert res.other == apply_rule(net, find_rules(net)[[r.name for r in find_rules(net)].index("dead")])
        assert not same_orbit(net, res.other)
    assert "rule dead 2 0 " in results[0].reason and "rule dead 2 1 " in results[1].reason
    assert results[0].details["canonical_rule"] == results[1].details["canonical_rule"] == "rule dead 2 0"
    assert results[1].to_json()["canonical_rule"] == "rule dead 2 0"


_ARCHS = [(2, 1, 1, 1), (2, 2, 1, 1), (2, 1, 2, 1), (2, 2, 2, 1), (3, 2, 2, 1)]


@pytest.mark.parametrize("arch", _ARCHS)
def test_every_orbit_member_gets_the_same_verdict_and_mechanism(arch):
    """Seeded scan: networks where at least two structural rules apply, each certified with three
    random orbit copies. The scan must contain orbits whose members list their rules in different
    orders (else it would not test anything); the old code told the members of 57 of these 251
    orbits different mechanisms."""
    multi = reordered = 0
    for kind, (max_num, max_den) in (("rational", (4, 3)), ("integer", (2, 1))):
        for seed in range(60):
            net = random_network(arch, seed=seed, max_num=max_num, max_den=max_den)
            if len(find_rules(net)) < 2:
                continue
            multi += 1
            rng = random.Random(1000 * seed + max_den)
            members = [net] + [_copy(net, rng) for _ in range(3)]
            if len({find_rules(m)[0].mechanism for m in members}) > 1:
                reordered += 1
            results = [certify(m) for m in members]
            assert len({(r.verdict, r.mechanism) for r in results}) == 1, \
                (kind, seed, [(r.verdict, r.mechanism, r.reason) for r in results])
            if all(canonical_map(m) is not None for m in members):
                # then even the rule, read in the canonical form, is the same for the orbit
                assert len({r.details.get("canonical_rule") for r in results}) == 1, (kind, seed)
    assert multi >= 10, multi
    if max(arch[1:-1]) > 1:  # width-1 layers cannot be permuted: there the order never changes
        assert reordered >= 1, reordered
