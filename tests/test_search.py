"""Counterexample search: every saved hit carries certificates the checker accepts; shrinking keeps the property."""

import json

import pytest

from exactnet.certificate import check_certificate_text
from exactnet.cli import main
from exactnet.errors import UndecidedError
from exactnet.netjson import loads_network
from exactnet.search import holds, search


@pytest.mark.parametrize("prop", ["hidden-symmetry", "full-rank-not-identifiable", "minimal-not-identifiable"])
def test_hits_are_certified_and_shrunk(prop, tmp_path):
    found = search("2,3,1", prop, seed=0, tries=300, output=tmp_path)
    assert found, prop
    rec = found[0]
    net = loads_network(rec["network"])
    assert holds(net, prop) is not None  # the shrunk network still has the property
    certs = [f for f in rec["files"] if f.endswith(".cert")]
    assert certs
    for name in certs:
        res = check_certificate_text((tmp_path / name).read_text(), network=net)
        assert res.verified, name
    if prop == "full-rank-not-identifiable":
        assert any("locally_identifiable" in f for f in certs)
    params = [abs(v.p) + v.q for v in net.flatten()]
    assert max(params) <= 4 + 3  # within the search law, never larger after shrinking


def test_not_locally_identifiable_refused_without_the_kind(monkeypatch):
    from exactnet import certificate
    from exactnet.continuous_symmetry import KIND

    monkeypatch.setattr(certificate, "KINDS", tuple(k for k in certificate.KINDS if k != KIND))
    with pytest.raises(UndecidedError):
        search("2,2,1", "not-locally-identifiable")


@pytest.fixture
def nli_kind(monkeypatch):
    """Register NOT-LOCALLY-IDENTIFIABLE in both KINDS tuples until the framework does."""
    from exactnet import certificate
    from exactnet.continuous_symmetry import KIND

    chk = certificate.load_checker()
    if KIND not in certificate.KINDS:
        monkeypatch.setattr(certificate, "KINDS", certificate.KINDS + (KIND,))
    if KIND not in chk.KINDS:
        monkeypatch.setattr(chk, "KINDS", chk.KINDS + (KIND,))


@pytest.mark.parametrize("arch", ["2,3,1", "2,2,2,1"])
def test_not_locally_identifiable_hits(arch, tmp_path, nli_kind):
    from exactnet.equivalence import equivalent
    from exactnet.symmetry import same_orbit

    found = search(arch, "not-locally-identifiable", seed=0, tries=100, output=tmp_path)
    assert found
    rec = found[0]
    net = loads_network(rec["network"])
    hit = holds(net, "not-locally-identifiable")
    assert hit is not None and hit.family.mechanism == rec["family"]["mechanism"]
    certs = [f for f in rec["files"] if f.endswith(".cert")]
    assert certs == [f"hit_{rec['try']}.not_locally_identifiable.cert"]
    res = check_certificate_text((tmp_path / certs[0]).read_text(), network=net)
    assert res.verified and res.conclusion == "NOT-LOCALLY-IDENTIFIABLE"
    member = hit.family.member(hit.family.T)
    assert equivalent(net, member).equivalent
    half = hit.family.member(hit.family.T / 2)
    assert equivalent(net, half).equivalent
    try:
        assert not (same_orbit(net, member) and same_orbit(net, half))
    except UndecidedError:
        pass
    params = [abs(v.p) + v.q for v in net.flatten()]
    assert max(params) <= 4 + 3


def test_cli_not_locally_identifiable(tmp_path, capsys, nli_kind):
    code = main(["search", "--arch", "2,3,1", "--property", "not-locally-identifiable", "--seed", "0",
                 "-o", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["hits"] and out["hits"][0]["family"]["invariant"].split(" ")[0] in ("preactivation", "contribution", "ratio")
    assert list(tmp_path.glob("*.not_locally_identifiable.cert"))


def test_cli(tmp_path, capsys):
    code = main(["search", "--arch", "2,3,1", "--property", "hidden-symmetry", "-o", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["hits"]


def test_minimal_not_identifiable_among_all_architectures(tmp_path):
    from exactnet.minimality import line_kinks, neurons_needed
    from exactnet.qq import parse_q

    found = search("2,1,1,1", "minimal-not-identifiable", seed=0, tries=100, output=tmp_path)
    assert found
    rec = found[0]
    net = loads_network(rec["network"])
    assert rec["minimality"]["scope"] == "all architectures"
    a, d = ([parse_q(v) for v in x] for x in rec["minimality"]["line"])
    kinks = line_kinks(net, a, d)  # recomputed from the saved evidence
    assert [parse_q(v) for v in rec["minimality"]["kinks"]] == kinks
    assert neurons_needed(len(kinks)) == net.num_hidden == 2
    cert = next(f for f in rec["files"] if f.endswith("hidden_symmetry.cert"))
    assert check_certificate_text((tmp_path / cert).read_text(), network=net).verified


def test_cli_reports_the_tries_it_made(capsys):
    """The search stops at its last hit: the summary counts the candidates drawn, not ``--tries``."""
    code = main(["search", "--arch", "2,2,1", "--property", "hidden-symmetry", "--tries", "99999999999999",
                 "--hits", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["tries"] == out["hits"][-1]["try"] + 1 < 100
    code = main(["search", "--arch", "2,2,1", "--property", "hidden-symmetry", "--tries", "99999999999999",
                 "--hits", "1"])
    assert f"1 hit(s) for hidden-symmetry in {out['tries']} tries" in capsys.readouterr().out
