"""The exactnet-network/1 file format: round trips and every bad input of issue 2."""

import json

import pytest
from hypothesis import given

from exactnet.errors import ExactnetError, FormatError, ShapeError, ValueRangeError
from exactnet.netio import load_network, save_network
from exactnet.netjson import dumps_network, loads_network, network_to_json
from exactnet.strategies import architectures, networks


@given(networks(architectures(max_output=2), max_den=50))
def test_roundtrip_is_exact_and_canonical(net):
    text = dumps_network(net)
    assert loads_network(text) == net
    obj = json.loads(text)
    assert obj == network_to_json(net)
    from exactnet.qq import is_canonical

    for layer in obj["layers"]:
        for row in layer["weights"]:
            assert all(is_canonical(v) for v in row)


def _net(weights, biases, fmt="exactnet-network/1"):
    return json.dumps({"format": fmt, "layers": [{"weights": weights, "biases": biases}]})


@pytest.mark.parametrize(
    "text,err",
    [
        ("not json", FormatError),
        (json.dumps([1, 2]), FormatError),
        (_net([[1]], [0], fmt="other/1"), FormatError),
        (_net([[0.1]], [0]), FormatError),
        (_net([["1/0"]], [0]), ValueRangeError),
        (_net([["abc"]], [0]), FormatError),
        (_net([["1e400"]], [0]), FormatError),
        (_net([["1" * 100000]], [0]), ValueRangeError),
        ('{"format": "exactnet-network/1", "layers": [{"weights": [[' + "1" * 100000 + ']], "biases": [0]}]}', ValueRangeError),
        (_net([[1, 2], [1]], [0, 0]), ShapeError),
        (json.dumps({"format": "exactnet-network/1", "layers": []}), ShapeError),
        (json.dumps({"format": "exactnet-network/1", "layers": [{"weights": [[1, 2]], "biases": [0]}, {"weights": [[1, 2]], "biases": [0]}]}), ShapeError),
        (_net([[1]], [0, 1]), ShapeError),
        (_net([[True]], [0]), FormatError),
        ('{"format": "exactnet-network/1", "layers": [{"weights": [[NaN]], "biases": [0]}]}', FormatError),
    ],
)
def test_bad_input(text, err):
    with pytest.raises(err):
        loads_network(text)


def test_files(tmp_path):
    from exactnet.examples import example

    p = tmp_path / "a.json"
    save_network(example("A"), p)
    assert load_network(p) == example("A")
    with pytest.raises(ExactnetError):
        load_network(tmp_path / "missing.json")
    (tmp_path / "x.txt").write_text("1")
    with pytest.raises(FormatError):
        load_network(tmp_path / "x.txt")
