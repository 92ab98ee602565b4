"""EQUIVALENT certificates with an orbit body (Lemma O of proofs/lemmas/equivalent.md): cheap for
wide networks, refused when the maps do not produce the other network."""

from exactnet.certificate import check_certificate_text, write_certificate
from exactnet.equivalence import equivalent, orbit_body
from exactnet.randnet import random_network
from exactnet.symmetry import random_orbit_element


def test_wide_orbit_pair_gets_a_checked_orbit_certificate():
    a = random_network((5, 16, 16, 16, 1), 3)
    b = random_orbit_element(a, 5)
    res = equivalent(a, b, certificate=True)
    assert res.equivalent and res.certificate_text is not None
    assert "\norbit\n" in res.certificate_text
    chk = check_certificate_text(res.certificate_text, network=a)
    assert chk.verified and chk.conclusion == "EQUIVALENT"


def test_wrong_maps_are_rejected():
    a = random_network((2, 4, 3, 1), 1)
    b = random_orbit_element(a, 2)
    body = orbit_body(a, b)
    assert body is not None
    scale = next(i for i, l in enumerate(body) if l.startswith("scale 1"))
    t = body[scale].split()
    t[2] = t[2] + "1" if "/" not in t[2] else t[2].split("/")[0] + "1/" + t[2].split("/")[1]
    bad = body[:scale] + [" ".join(t)] + body[scale + 1:]
    chk = check_certificate_text(write_certificate("EQUIVALENT", a, bad, other=b), network=a)
    assert not chk.verified and "E_NOT_DERIVED" in chk.lines[1]
    perm = next(i for i, l in enumerate(body) if l.startswith("perm 1"))
    t = body[perm].split()
    t[2] = t[3]
    bad = body[:perm] + [" ".join(t)] + body[perm + 1:]
    chk = check_certificate_text(write_certificate("EQUIVALENT", a, bad, other=b), network=a)
    assert not chk.verified and "E_ORBIT_MAP" in chk.lines[1]
    other = random_network((2, 4, 3, 1), 9)
    assert orbit_body(a, other) is None
    chk = check_certificate_text(write_certificate("EQUIVALENT", a, body, other=other), network=a)
    assert not chk.verified
