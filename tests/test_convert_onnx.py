"""ONNX import/export: exact round trips for dyadic weights, Gemm/MatMul+Add variants, unsupported operators."""

import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from flint import fmpq  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from exactnet.cli import main  # noqa: E402
from exactnet.convert_onnx import load_onnx, onnx_bytes  # noqa: E402
from exactnet.errors import DependencyError, FormatError, ShapeError, ValueRangeError  # noqa: E402
from exactnet.netio import load_network, save_network  # noqa: E402
from exactnet.network import Network  # noqa: E402
from exactnet.qq import from_float, q_to_float  # noqa: E402
from exactnet.strategies import architectures, networks  # noqa: E402


@st.composite
def dyadic_networks(draw, max_exp=8, max_num=200):
    arch = draw(architectures(max_input=3, max_width=3, max_output=2))

    def q():
        return fmpq(draw(st.integers(-max_num, max_num)), 2 ** draw(st.integers(0, max_exp)))

    return Network.from_lists(
        [([[q() for _ in range(arch[l - 1])] for _ in range(arch[l])], [q() for _ in range(arch[l])])
         for l in range(1, len(arch))]
    )


def small_net():
    return Network.from_lists([([[1, "1/2"], ["-3/4", 2], [0, 1]], [0, "1/8", -1]), ([[1, 2, "-1/16"]], ["5/2"])])


def write(tmp_path, nodes, inits, name="g.onnx", in_dim=2, out_dim=1, dtype=TensorProto.FLOAT):
    g = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", dtype, [1, in_dim])],
        [helper.make_tensor_value_info("y", dtype, [1, out_dim])],
        initializer=[numpy_helper.from_array(a, n) for n, a in inits.items()],
    )
    p = tmp_path / name
    onnx.save(helper.make_model(g), p)
    return p


@given(dyadic_networks())
def test_round_trip_dyadic_exact(tmp_path_factory, net):
    p = tmp_path_factory.mktemp("o") / "n.onnx"
    p.write_bytes(onnx_bytes(net, require_exact=True))
    assert load_onnx(p, "exact") == net


@given(networks(arch=(2, 2, 1), max_den=7))
def test_round_trip_rounds_non_dyadic_to_nearest_float(tmp_path_factory, net):
    p = tmp_path_factory.mktemp("o") / "n.onnx"
    p.write_bytes(onnx_bytes(net))
    back = load_onnx(p, "exact")
    assert [from_float(q_to_float(v), "exact") for v in net.flatten()] == back.flatten()


def test_written_model_checks_and_runs_like_exact_network(tmp_path):
    net = small_net()
    p = tmp_path / "n.onnx"
    save_network(net, p)  # through netio, atomically
    model = onnx.load(p)
    onnx.checker.check_model(model)
    assert [n.op_type for n in model.graph.node] == ["Gemm", "Relu", "Gemm"]
    xs = [[fmpq(1), fmpq(-1, 2)], [fmpq(-3, 4), fmpq(5, 8)], [fmpq(0), fmpq(0)]]
    out = ReferenceEvaluator(model).run(None, {"x": np.array([[q_to_float(v) for v in x] for x in xs])})[0]
    assert [[from_float(float(v), "exact") for v in row] for row in out] == net.evaluate_batch(xs)
    assert load_network(p, float_mode="exact") == net


def test_require_exact_refuses_rounding():
    with pytest.raises(ValueRangeError, match="1/3"):
        onnx_bytes(Network.from_lists([([["1/3"]], [0])]), require_exact=True)


def test_matmul_add_and_gemm_alpha_beta_transb0(tmp_path):
    nodes = [
        helper.make_node("MatMul", ["x", "A"], ["m"]),
        helper.make_node("Add", ["C", "m"], ["a"]),  # bias first: either order is accepted
        helper.make_node("Relu", ["a"], ["h"]),
        helper.make_node("Identity", ["h"], ["h2"]),
        helper.make_node("Gemm", ["h2", "B", "c"], ["y"], alpha=0.5, beta=2.0),
    ]
    inits = {
        "A": np.array([[1, 2], [3, 4]], np.float32),  # n0 x n1: transposed on reading
        "C": np.array([0.1, 0.2], np.float32),
        "B": np.array([[1], [3]], np.float32),  # transB = 0: n1 x n2
        "c": np.array([1], np.float32),
    }
    p = write(tmp_path, nodes, inits)
    net = load_onnx(p, "decimal")
    assert net == Network.from_lists([([[1, 3], [2, 4]], ["1/10", "1/5"]), ([["1/2", "3/2"]], [2])])
    with pytest.raises(FormatError, match="float-mode"):
        load_onnx(p)


def test_gemm_transb1_without_bias_and_matmul_without_add(tmp_path):
    nodes = [helper.make_node("Gemm", ["x", "W"], ["z"], transB=1), helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("MatMul", ["h", "V"], ["y"])]
    inits = {"W": np.array([[1, 2], [3, 4], [5, 6]], np.int64), "V": np.array([[1], [1], [-1]], np.int64)}
    net = load_onnx(write(tmp_path, nodes, inits, dtype=TensorProto.INT64))
    assert net == Network.from_lists([([[1, 2], [3, 4], [5, 6]], [0, 0, 0]), ([[1, 1, -1]], [0])])


@pytest.mark.parametrize("op", ["Sigmoid", "Tanh", "Softmax"])
def test_unsupported_operator_is_named(tmp_path, op):
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["z"], transB=1), helper.make_node(op, ["z"], ["y"])]
    p = write(tmp_path, nodes, {"W": np.ones((1, 2), np.float32), "b": np.zeros(1, np.float32)})
    with pytest.raises(FormatError, match=f"unsupported ONNX operator {op}"):
        load_onnx(p, "exact")


def test_conv_operator_is_named(tmp_path):
    nodes = [helper.make_node("Conv", ["x", "K"], ["y"])]
    p = write(tmp_path, nodes, {"K": np.ones((1, 1, 1), np.float32)})
    with pytest.raises(FormatError, match="Conv"):
        load_onnx(p, "exact")


def test_nan_initializer_refused(tmp_path):
    W = np.array([[1.0, np.nan]], np.float32)
    p = write(tmp_path, [helper.make_node("Gemm", ["x", "W", "b"], ["y"], transB=1)],
              {"W": W, "b": np.zeros(1, np.float32)})
    with pytest.raises(ValueRangeError, match=r"'W' at index \[0, 1\]"):
        load_onnx(p, "exact")


def test_structure_errors(tmp_path):
    # two affine layers without Relu
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["z"], transB=1), helper.make_node("Gemm", ["z", "W", "b"], ["y"], transB=1)]
    inits = {"W": np.ones((2, 2), np.float32), "b": np.zeros(2, np.float32)}
    with pytest.raises(FormatError, match="without Relu"):
        load_onnx(write(tmp_path, nodes, inits, name="a.onnx", out_dim=2), "exact")
    # ends with Relu
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["z"], transB=1), helper.make_node("Relu", ["z"], ["y"])]
    with pytest.raises(FormatError, match="end with an affine"):
        load_onnx(write(tmp_path, nodes, inits, name="b.onnx", out_dim=2), "exact")
    # shapes that do not chain
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["z"], transB=1), helper.make_node("Relu", ["z"], ["h"]),
             helper.make_node("Gemm", ["h", "V", "c"], ["y"], transB=1)]
    inits2 = dict(inits, V=np.ones((1, 3), np.float32), c=np.zeros(1, np.float32))
    with pytest.raises(ShapeError):
        load_onnx(write(tmp_path, nodes, inits2, name="c.onnx"), "exact")
    # bias of the wrong length
    inits3 = {"W": np.ones((2, 2), np.float32), "b": np.zeros(3, np.float32)}
    with pytest.raises(ShapeError, match="3 entries"):
        load_onnx(write(tmp_path, [helper.make_node("Gemm", ["x", "W", "b"], ["y"], transB=1)], inits3,
                        name="d.onnx", out_dim=2), "exact")


def test_not_onnx_and_missing_onnx(tmp_path, monkeypatch):
    p = tmp_path / "junk.onnx"
    p.write_bytes(b"\xff\xfe not protobuf \x00\x01")
    with pytest.raises(FormatError):
        load_onnx(p, "exact")
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(DependencyError, match=r'pip install "exactnet\[onnx\]"'):
        load_onnx(p, "exact")
    with pytest.raises(DependencyError):
        onnx_bytes(small_net())


def test_cli_convert_onnx_both_ways(tmp_path, capsys):
    src = tmp_path / "n.json"
    save_network(small_net(), src)
    out = tmp_path / "n.onnx"
    assert main(["convert", str(src), "-o", str(out)]) == 0
    back = tmp_path / "back.json"
    assert main(["convert", str(out), "-o", str(back)]) == 2  # floats: mode required
    assert not back.exists()
    assert main(["convert", str(out), "-o", str(back), "--float-mode", "exact"]) == 0
    assert load_network(back) == small_net()
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["z"], transB=1), helper.make_node("Sigmoid", ["z"], ["y"])]
    bad = write(tmp_path, nodes, {"W": np.ones((1, 2), np.float32), "b": np.zeros(1, np.float32)}, name="s.onnx")
    assert main(["convert", str(bad), "-o", str(tmp_path / "s.json"), "--float-mode", "exact"]) == 2
    assert "Sigmoid" in capsys.readouterr().err and not (tmp_path / "s.json").exists()


def test_weights_beyond_float64_range_refused():
    huge = Network.from_lists([([[10 ** 400]], [0])])
    with pytest.raises(ValueRangeError, match="too large"):
        onnx_bytes(huge)
