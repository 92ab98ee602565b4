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


def test_not_locally_identifiable_is_refused_honestly():
    with pytest.raises(UndecidedError):
        search("2,2,1", "not-locally-identifiable")


def test_cli(tmp_path, capsys):
    code = main(["search", "--arch", "2,3,1", "--property", "hidden-symmetry", "-o", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["hits"]
