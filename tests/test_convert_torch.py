"""PyTorch import/export: exact round trips for dyadic weights, agreement with torch's forward, bad input."""

import json
import sys

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from flint import fmpq  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from exactnet.cli import main  # noqa: E402
from exactnet.convert_torch import load_torch, network_from_module, network_to_torch  # noqa: E402
from exactnet.errors import DependencyError, ExactnetError, FormatError, ShapeError, ValueRangeError  # noqa: E402
from exactnet.netio import load_network  # noqa: E402
from exactnet.network import Network  # noqa: E402
from exactnet.qq import from_float, q_to_float  # noqa: E402
from exactnet.strategies import architectures  # noqa: E402


def dyadic(draw, max_exp=8, max_num=200):
    return fmpq(draw(st.integers(-max_num, max_num)), 2 ** draw(st.integers(0, max_exp)))


@st.composite
def dyadic_networks(draw, max_exp=8, max_num=200):
    arch = draw(architectures(max_input=3, max_width=3, max_output=2))
    layers = []
    for l in range(1, len(arch)):
        W = [[dyadic(draw, max_exp, max_num) for _ in range(arch[l - 1])] for _ in range(arch[l])]
        b = [dyadic(draw, max_exp, max_num) for _ in range(arch[l])]
        layers.append((W, b))
    return Network.from_lists(layers)


def small_net():
    return Network.from_lists([([[1, "1/2"], ["-3/4", 2], [0, 1]], [0, "1/8", -1]), ([[1, 2, "-1/16"]], ["5/2"])])


def test_state_dict_and_sequential_round_trip(tmp_path):
    net = small_net()
    model = network_to_torch(net)
    assert all(p.dtype == torch.float64 for p in model.parameters())
    torch.save(model.state_dict(), tmp_path / "sd.pt")
    torch.save(model, tmp_path / "m.pt")
    for f in ("sd.pt", "m.pt"):
        for mode in ("exact", "decimal"):
            got = load_torch(tmp_path / f, mode)
            assert got == net
            assert got.metadata["source"]["float_mode"] == mode
    assert load_network(tmp_path / "m.pt", float_mode="exact") == net


def test_float_modes_on_float32_point_one(tmp_path):
    lin = nn.Linear(1, 1)
    with torch.no_grad():
        lin.weight.fill_(0.1)
        lin.bias.fill_(0.5)
    torch.save(lin.state_dict(), tmp_path / "f.pt")
    assert load_torch(tmp_path / "f.pt", "decimal").weights(1)[0][0] == fmpq(1, 10)
    ex = load_torch(tmp_path / "f.pt", "exact").weights(1)[0][0]
    assert ex == from_float(float(torch.tensor(0.1, dtype=torch.float32)), "exact") and ex.q == 2 ** 27
    with pytest.raises(FormatError, match="--float-mode"):
        load_torch(tmp_path / "f.pt")


def test_float64_point_one_exact_vs_decimal(tmp_path):
    model = nn.Sequential(nn.Linear(1, 1, dtype=torch.float64))
    with torch.no_grad():
        model[0].weight.fill_(0.1)
        model[0].bias.fill_(0)
    torch.save(model.state_dict(), tmp_path / "f.pt")
    assert load_torch(tmp_path / "f.pt", "exact").weights(1)[0][0] == fmpq(3602879701896397, 36028797018963968)
    assert load_torch(tmp_path / "f.pt", "decimal").weights(1)[0][0] == fmpq(1, 10)


@given(dyadic_networks(max_exp=4, max_num=20),
       st.lists(st.tuples(st.integers(-64, 64), st.integers(0, 6)), min_size=3, max_size=3))
def test_exact_evaluation_equals_torch_forward_on_dyadic_inputs(net, coords):
    model = network_to_torch(net)
    x = [fmpq(p, 2 ** k) for p, k in coords[: net.input_dim]]
    while len(x) < net.input_dim:
        x.append(fmpq(1, 2))
    with torch.no_grad():
        y = model(torch.tensor([[q_to_float(v) for v in x]], dtype=torch.float64))[0].tolist()
    # |values| < 2^25 with denominators dividing 2^18 need < 44 bits: every float64 operation is exact
    assert [from_float(v, "exact") for v in y] == net.evaluate(x)


@given(dyadic_networks())
def test_round_trip_property(tmp_path_factory, net):
    d = tmp_path_factory.mktemp("t")
    torch.save(network_to_torch(net).state_dict(), d / "n.pt")
    assert load_torch(d / "n.pt", "exact") == net


def test_nested_sequential_bias_free_and_checkpoint_dict(tmp_path):
    inner = nn.Sequential(nn.Linear(2, 2, bias=False), nn.ReLU())
    model = nn.Sequential(inner, nn.Dropout(0.1), nn.Linear(2, 1), nn.Identity())
    with torch.no_grad():
        inner[0].weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        model[2].weight.copy_(torch.tensor([[0.5, -1.0]]))
        model[2].bias.fill_(0.25)
    net = network_from_module(model, "exact")
    assert net == Network.from_lists([([[1, 2], [3, 4]], [0, 0]), ([["1/2", -1]], ["1/4"])])
    torch.save({"epoch": 3, "state_dict": model.state_dict()}, tmp_path / "ckpt.pt")
    # the state dict keys are 0.0.weight, 2.weight, 2.bias: the bias-free layer gets zeros
    assert load_torch(tmp_path / "ckpt.pt", "exact") == net


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_nan_inf_refused(tmp_path, bad):
    lin = nn.Linear(2, 1)
    with torch.no_grad():
        lin.weight[0, 1] = bad
    torch.save(lin.state_dict(), tmp_path / "bad.pt")
    with pytest.raises(ValueRangeError, match=r"weight at index \[0, 1\]"):
        load_torch(tmp_path / "bad.pt", "exact")


@pytest.mark.parametrize(
    "module,name",
    [
        (nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Linear(3, 1)), "Sigmoid"),
        (nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Linear(3, 1)), "Conv2d"),
        (nn.Sequential(nn.Linear(2, 3), nn.Tanh()), "Tanh"),
    ],
)
def test_unsupported_modules_are_named(tmp_path, module, name):
    torch.save(module, tmp_path / "m.pt")
    with pytest.raises(FormatError, match=name):
        load_torch(tmp_path / "m.pt", "exact")
    with pytest.raises(FormatError, match=name):  # full pickle path checks the types itself
        load_torch(tmp_path / "m.pt", "exact", allow_pickle=True)


def test_conv_and_batchnorm_state_dicts_refused(tmp_path):
    torch.save(nn.Conv2d(1, 2, 3).state_dict(), tmp_path / "c.pt")
    with pytest.raises(FormatError, match="convolution"):
        load_torch(tmp_path / "c.pt", "exact")
    torch.save(nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)).state_dict(), tmp_path / "bn.pt")
    with pytest.raises(FormatError, match="running_mean"):
        load_torch(tmp_path / "bn.pt", "exact")


def test_structure_errors(tmp_path):
    with pytest.raises(FormatError, match="ReLU between"):
        network_from_module(nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1)), "exact")
    with pytest.raises(FormatError, match="ends with ReLU"):
        network_from_module(nn.Sequential(nn.Linear(2, 2), nn.ReLU()), "exact")
    with pytest.raises(ShapeError):
        network_from_module(nn.Sequential(), "exact")
    sd = {"0.weight": torch.ones(3, 2), "0.bias": torch.zeros(3), "2.weight": torch.ones(1, 4), "2.bias": torch.zeros(1)}
    torch.save(sd, tmp_path / "chain.pt")
    with pytest.raises(ShapeError, match="do not chain"):
        load_torch(tmp_path / "chain.pt", "exact")
    torch.save({}, tmp_path / "empty.pt")
    with pytest.raises(ShapeError, match="no layers"):
        load_torch(tmp_path / "empty.pt", "exact")


def test_not_a_torch_file_and_missing(tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"not a zip, not a pickle")
    with pytest.raises(FormatError):
        load_torch(tmp_path / "junk.pt", "exact")
    with pytest.raises(ExactnetError, match="not found"):
        load_torch(tmp_path / "missing.pt", "exact")


def test_missing_torch_gives_dependency_error(monkeypatch, tmp_path):
    p = tmp_path / "x.pt"
    p.write_bytes(b"x")
    monkeypatch.setitem(sys.modules, "torch", None)  # makes `import torch` raise ImportError
    with pytest.raises(DependencyError, match=r'pip install "exactnet\[torch\]"'):
        load_torch(p, "exact")


def test_cli_convert_torch(tmp_path, capsys):
    torch.save(network_to_torch(small_net()).state_dict(), tmp_path / "m.pt")
    out = tmp_path / "n.json"
    assert main(["convert", str(tmp_path / "m.pt"), "-o", str(out)]) == 2
    assert not out.exists()
    assert main(["convert", str(tmp_path / "m.pt"), "-o", str(out), "--float-mode", "exact", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["source"]["converter"] == "exactnet.convert_torch"
    assert load_network(out) == small_net()


def test_weights_beyond_float64_range_refused():
    with pytest.raises(ValueRangeError, match="too large"):
        network_to_torch(Network.from_lists([([[10 ** 400]], [0])]))


def test_trained_style_model_end_to_end(tmp_path, capsys):
    """The README's trained-network commands: float32 weights (1.1, 1.3, 0.3 are not dyadic), a
    layer-2 neuron dead on all of R^2 with mixed-sign weights; convert, certify (dead-neuron),
    check, reduce (the dead neuron and the one that fed only it) and equiv."""
    m = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))
    with torch.no_grad():
        m[0].weight.copy_(torch.tensor([[1.1, 0.0], [1.1, 0.0], [0.0, 0.7]]))
        m[0].bias.copy_(torch.tensor([0.0, 1.3, 0.0]))
        m[2].weight.copy_(torch.tensor([[1.0, -1.0, 0.0], [-1.0, 0.0, 1.0]]))  # z1 = h1 - h2 - 0.3 < 0
        m[2].bias.copy_(torch.tensor([-0.3, 1.0]))
        m[4].weight.copy_(torch.tensor([[0.5, 2.0]]))
        m[4].bias.copy_(torch.tensor([0.25]))
    torch.save(m, tmp_path / "m.pt")
    p = lambda name: str(tmp_path / name)  # noqa: E731
    assert main(["convert", p("m.pt"), "--float-mode", "exact", "-o", p("m.json")]) == 0
    assert main(["certify", p("m.json"), "-o", p("m.cert"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "HIDDEN-SYMMETRY" in out and "dead-neuron" in out and "(2,1)" in out, out
    assert main(["check", p("m.cert"), "--network", p("m.json")]) == 0
    assert main(["reduce", p("m.json"), "-o", p("small.json")]) == 0
    assert load_network(p("small.json")).architecture == (2, 2, 1, 1)  # (1,2) fed only the dead neuron
    assert main(["equiv", p("m.json"), p("small.json")]) == 0
    assert "EQUIVALENT" in capsys.readouterr().out
