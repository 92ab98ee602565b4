"""certify finds hidden symmetries that no structural rule names, by the exact fibre search,
and proves them with a certified common complex (HIDDEN-SYMMETRY, ``equivalence complex``)."""

import random

from exactnet.certificate import check_certificate_text
from exactnet.certify import certify
from exactnet.qq import to_q
from exactnet.randnet import random_network
from exactnet.symmetry import same_orbit
from exactnet.symmetry_rules import find_rules

# Found by the independent fibre oracle: a flip of neuron (1,2) compensated only where (2,1) is active.
NET = random_network((2, 3, 2, 1), 32, max_num=2, max_den=1)


def test_no_structural_rule_but_a_certified_hidden_symmetry():
    assert not list(find_rules(NET))
    res = certify(NET)
    assert res.verdict == "HIDDEN-SYMMETRY" and res.mechanism.startswith("fibre-")
    chk = check_certificate_text(res.certificate, network=NET)
    assert chk.verified and chk.conclusion == "HIDDEN-SYMMETRY"
    rng = random.Random(0)
    for _ in range(50):
        x = [to_q(rng.randint(-50, 50)) / rng.randint(1, 9) for _ in range(2)]
        assert NET.evaluate(x) == res.other.evaluate(x)
    assert not same_orbit(NET, res.other)


def test_a_box_complex_or_a_wrong_theta_prime_is_rejected():
    from exactnet.certificate import write_certificate

    res = certify(NET)
    body = res.certificate.split("other-digest", 1)[1].splitlines()[1:]
    body = body[:body.index(next(l for l in body if l.startswith("conclusion ")))]
    assert body[1] == "equivalence complex"
    boxed = body[:2] + ["domain box -1 1"] + body[3:]
    chk = check_certificate_text(write_certificate("HIDDEN-SYMMETRY", NET, boxed, other=res.other), network=NET)
    assert not chk.verified and "E_DOMAIN" in chk.lines[1]
    W = [list(r) for r in res.other.weights(1)]
    W[0][0] += 1
    wrong = res.other.replace_layer(1, W, res.other.biases(1))
    chk = check_certificate_text(write_certificate("HIDDEN-SYMMETRY", NET, body, other=wrong), network=NET)
    assert not chk.verified and "E_DIGEST" not in chk.lines[1]
    ok = check_certificate_text(write_certificate("HIDDEN-SYMMETRY", NET, body, other=res.other), network=NET)
    assert ok.verified
