"""The checker's rule replay (proofs/rules.py) agrees with exactnet's rules, and refuses bad side conditions."""

from fractions import Fraction

import pytest
from hypothesis import given

from exactnet.qq import q_to_fraction
from exactnet.strategies import architectures, networks
from exactnet.symmetry_rules import apply_rule, find_rules
from proofs.rules import RuleError, replay


def as_fracs(net):
    return ([[[q_to_fraction(v) for v in row] for row in L.weights] for L in net.layers],
            [[q_to_fraction(v) for v in L.biases] for L in net.layers])


@given(networks(architectures(max_input=2, max_width=3, max_hidden_layers=3, max_output=2), max_num=2, max_den=2))
def test_replay_matches_producer(net):
    Ws, bs = as_fracs(net)
    for rule in find_rules(net):
        assert replay(Ws, bs, rule.line().split()[1:]) == as_fracs(apply_rule(net, rule))


def test_replay_rejects():
    from exactnet.examples import example

    Ws, bs = as_fracs(example("A"))
    for tokens, code in [(["flip", "1", "0", "1"], "E_RULE_CONDITION"), (["flip", "2", "0"], "E_RULE_INDEX"),
                         (["flip", "1", "7"], "E_RULE_INDEX"), (["spin", "1"], "E_RULE_UNKNOWN"),
                         (["flip", "x"], "E_RULE_SYNTAX"), (["flip", "1", "00"], "E_RULE_SYNTAX"),
                         (["flip", "01", "0"], "E_RULE_SYNTAX"), (["flip", "1", "\u0661"], "E_RULE_SYNTAX"), (["reflect", "1"], "E_RULE_CONDITION"),
                         (["active", "1", "0"], "E_RULE_CONDITION"), (["dead", "1", "0"], "E_RULE_CONDITION")]:
        with pytest.raises(RuleError) as e:
            replay(Ws, bs, tokens)
        assert e.value.code == code
    assert replay(Ws, bs, ["flip", "1", "0", "1", "2"])[1] == [[0, 0, -1], [Fraction(1)]]
