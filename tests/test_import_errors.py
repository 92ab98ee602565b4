"""Importing networks from unusual or wrong files: clear one-line errors, exact reading where possible.

Covers PyTorch tensors that are sparse, on the meta device, float8 or quantized; ONNX
initializers with the wrong rank or in bfloat16 / float8; files named ``.npz`` that are
not NumPy files; JSON floats that overflow or underflow; and the float64 rounding of
an exact network written as ONNX.
"""

import pickle
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

from exactnet.cli import main
from exactnet.convert_numpy import load_npz
from exactnet.errors import FormatError, ShapeError, ValueRangeError
from exactnet.netjson import loads_network
from exactnet.network import Network
from exactnet.qq import parse_q


def _q(x) -> Fraction:
    return Fraction(str(x))


def _state_dict(torch, first_weight):
    return {
        "0.weight": first_weight,
        "0.bias": torch.zeros(3),
        "2.weight": torch.ones(1, 3),
        "2.bias": torch.zeros(1),
    }


def _first_weights(net: Network) -> list[list[Fraction]]:
    return [[_q(v) for v in row] for row in net.layers[0].weights]


# ---------------------------------------------------------------- PyTorch


@pytest.mark.filterwarnings("ignore:Sparse CSR tensor support:UserWarning")
def test_sparse_torch_tensors_load_as_their_dense_values(tmp_path):
    torch = pytest.importorskip("torch")
    from exactnet.convert_torch import load_torch

    dense = torch.tensor([[0.0, 1.5], [-2.0, 0.0], [0.0, 0.25]])
    expect = [[Fraction(float(v)) for v in row] for row in dense.tolist()]
    for k, sparse in enumerate((dense.to_sparse(), dense.to_sparse_csr())):
        p = tmp_path / f"sparse{k}.pt"
        torch.save(_state_dict(torch, sparse), p)
        assert _first_weights(load_torch(p, "exact")) == expect
    out = tmp_path / "o.json"
    assert main(["convert", str(tmp_path / "sparse0.pt"), "-o", str(out), "--float-mode", "decimal"]) == 0
    assert out.exists()


def test_meta_torch_tensor_is_named(tmp_path, capsys):
    torch = pytest.importorskip("torch")
    p = tmp_path / "meta.pt"
    torch.save(_state_dict(torch, torch.zeros(3, 2, device="meta")), p)
    assert main(["convert", str(p), "-o", str(tmp_path / "o.json"), "--float-mode", "decimal"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "meta.pt" in err and "0.weight" in err and "meta" in err and "no data" in err


def test_float8_torch_tensor_is_widened_exactly(tmp_path):
    torch = pytest.importorskip("torch")
    from exactnet.convert_torch import load_torch

    w = torch.tensor([[0.1, -1.5], [3.0, 0.3], [448.0, -0.0078125]]).to(torch.float8_e4m3fn)
    expect = [[Fraction(v) for v in row] for row in w.to(torch.float64).tolist()]
    p = tmp_path / "f8.pt"
    torch.save(_state_dict(torch, w), p)
    assert _first_weights(load_torch(p, "exact")) == expect
    with pytest.raises(FormatError, match="float-mode"):
        load_torch(p)


def test_quantized_torch_tensor_is_refused_by_name(tmp_path):
    torch = pytest.importorskip("torch")
    from exactnet.convert_torch import load_torch

    with warnings.catch_warnings():  # torch may warn that quantized tensors are deprecated
        warnings.simplefilter("ignore")
        q = torch.quantize_per_tensor(torch.ones(3, 2), 0.1, 0, torch.qint8)
    p = tmp_path / "q.pt"
    torch.save(_state_dict(torch, q), p)
    with pytest.raises(FormatError, match=r"q\.pt: 0\.weight is a quantized tensor"):
        load_torch(p, "exact")


def test_unreadable_torch_dtype_is_named():
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "float4_e2m1fn_x2"):
        pytest.skip("this torch has no packed float4 dtype")
    from exactnet.convert_torch import network_from_state_dict

    packed = torch.zeros(3, 2, dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
    with pytest.raises(FormatError, match=r"0\.weight .*float4_e2m1fn_x2"):
        network_from_state_dict(_state_dict(torch, packed), "exact")


# ---------------------------------------------------------------- ONNX


def _onnx_file(tmp_path, W, name="m.onnx"):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    g = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        initializer=[W],
    )
    p = tmp_path / name
    onnx.save(helper.make_model(g), p)
    return p


def test_onnx_weight_of_rank_three_names_initializer_and_shape(tmp_path, capsys):
    pytest.importorskip("onnx")
    from onnx import numpy_helper

    from exactnet.convert_onnx import load_onnx

    p = _onnx_file(tmp_path, numpy_helper.from_array(np.ones((2, 3, 1), np.float32), "W"), "w3.onnx")
    with pytest.raises(ShapeError) as e:
        load_onnx(p, "exact")
    msg = str(e.value)
    assert "w3.onnx" in msg and "'W'" in msg and "(2, 3, 1)" in msg and "matrix" in msg
    assert main(["convert", str(p), "-o", str(tmp_path / "o.json"), "--float-mode", "exact"]) == 2
    assert "cannot read a rational" not in capsys.readouterr().err


@pytest.mark.parametrize("dtype_name", ["BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E5M2"])
def test_onnx_small_float_initializers_are_widened_exactly(tmp_path, dtype_name):
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    from exactnet.convert_onnx import load_onnx

    vals = [0.5, -1.5, 3.0, 0.1, 0.0, -0.25]
    t = helper.make_tensor("W", getattr(TensorProto, dtype_name), [2, 3], vals)
    stored = numpy_helper.to_array(t).astype(np.float64)  # the values the file holds
    p = _onnx_file(tmp_path, t, "small.onnx")
    net = load_onnx(p, "exact")
    assert [[_q(v) for v in row] for row in net.layers[0].weights] == [
        [Fraction(float(stored[i, j])) for i in range(2)] for j in range(3)
    ]
    with pytest.raises(FormatError, match="float-mode"):  # floats still need an explicit mode
        load_onnx(p)


# ---------------------------------------------------------------- NumPy


@pytest.mark.parametrize("content", [b"hello, this is a plain text file\n", b'{"format": "exactnet-network/1"}\n'])
def test_text_named_npz_says_what_it_starts_with(tmp_path, capsys, content):
    p = tmp_path / "t.npz"
    p.write_bytes(content)
    with pytest.raises(FormatError) as e:
        load_npz(p, "exact")
    msg = str(e.value)
    assert "not a NumPy .npz/.npy file" in msg and "starts with" in msg
    assert "pickle" not in msg
    assert main(["convert", str(p), "-o", str(tmp_path / "o.json"), "--float-mode", "exact"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.rstrip().endswith(")")  # the message is whole, not cut mid-word


def test_plain_pickle_named_npz(tmp_path):
    p = tmp_path / "raw.npz"
    p.write_bytes(pickle.dumps([np.eye(2), np.zeros(2)]))
    with pytest.raises(FormatError, match="allow_pickle"):
        load_npz(p, "exact")
    with pytest.raises(FormatError, match="pickled list"):  # trusted, but not NumPy arrays: no AttributeError
        load_npz(p, "exact", allow_pickle=True)


# ---------------------------------------------------------------- JSON floats


def _json_with(literal: str) -> str:
    return '{"format": "exactnet-network/1", "layers": [{"weights": [[%s]], "biases": [0]}]}' % literal


def _suggestion(msg: str) -> str:
    m = re.search(r'e\.g\. "([^"]*)"', msg)
    assert m, msg
    return m.group(1)


@pytest.mark.parametrize("literal", ["1e400", "-1e400", "1e-400"])
def test_json_float_beyond_float_range_gets_advice_that_parses(literal):
    with pytest.raises(FormatError) as e:
        loads_network(_json_with(literal))
    msg = str(e.value)
    assert "weight [1][1]" in msg and literal in msg and "flows a float" in msg
    assert '"inf"' not in msg and '"0.0"' not in msg and "400 zeros" in msg


@pytest.mark.parametrize("literal", ["0.1", "1e-05", "2.5E3", "1e20", "-3.75"])
def test_json_float_suggestion_is_accepted_and_equal(literal):
    with pytest.raises(FormatError) as e:
        loads_network(_json_with(literal))
    suggested = _suggestion(str(e.value))
    assert _q(parse_q(suggested)) == Fraction(literal)  # the suggested spelling is valid and exact
    loads_network(_json_with(f'"{suggested}"'))


# ---------------------------------------------------------------- writing ONNX


def test_rounding_to_float64_is_counted_and_worded():
    pytest.importorskip("onnx")
    from exactnet.convert_onnx import count_rounded, onnx_bytes, rounding_note

    exact = Network.from_lists([([["1/2", 3]], ["-1/4"])])
    assert count_rounded(exact) == 0 and rounding_note(exact) is None
    net = Network.from_lists([([["1/3", "1/2"], ["1/10", f"1/{10 ** 400}"]], [0, "2/3"])])
    assert count_rounded(net) == 4
    note = rounding_note(net)
    assert note is not None and "\n" not in note and "4 of 6" in note and "float64" in note and "became 0" in note
    onnx_bytes(net)  # still written (rounded), as documented


def test_weight_too_large_for_float64_names_its_place(tmp_path, capsys):
    pytest.importorskip("onnx")
    from exactnet.convert_onnx import onnx_bytes

    huge = Network.from_lists([([[1, 10 ** 400]], [0]), ([[1]], [0])])
    with pytest.raises(ValueRangeError) as e:
        onnx_bytes(huge)
    assert "layer 1" in str(e.value) and "W_1[1][2]" in str(e.value) and "too large for float64" in str(e.value)
    src = tmp_path / "huge.json"
    from exactnet.netio import save_network

    save_network(huge, src)
    assert main(["convert", str(src), "-o", str(tmp_path / "h.onnx")]) == 2
    assert "W_1[1][2]" in capsys.readouterr().err



def test_convert_to_onnx_tells_the_user_what_was_rounded(tmp_path, capsys):
    """``exactnet convert net.json -o net.onnx`` rounds to float64: a one-line note on stderr says
    how many values; an exactly representable network gets no note."""
    pytest.importorskip("onnx")
    from exactnet.cli import main
    from exactnet.netjson import dumps_network

    (tmp_path / "third.json").write_text(dumps_network(Network.from_lists([([["1/3", "1/2"]], ["1/10"])])))
    (tmp_path / "half.json").write_text(dumps_network(Network.from_lists([([["1/4", "1/2"]], ["3"])])))
    assert main(["convert", str(tmp_path / "third.json"), "-o", str(tmp_path / "third.onnx")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("exactnet: note: 2 of 3 ") and "float64" in err and err.count("\n") == 1, err
    assert main(["convert", str(tmp_path / "half.json"), "-o", str(tmp_path / "half.onnx")]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("value", [1e-05, 0.1, 1e16, -3.75, 2.5e-07])
def test_a_float_refused_by_to_q_gets_a_spelling_that_parses(value):
    """The library's own refusal of a float (``qq.to_q``) suggests a string that ``parse_q`` reads,
    with the float's shortest decimal value (not "1e-05", which it refuses)."""
    from exactnet.qq import to_q

    with pytest.raises(FormatError) as e:
        to_q(value)
    suggested = re.search(r'string like "([^"]*)"', str(e.value)).group(1)
    assert _q(parse_q(suggested)) == Fraction(repr(value))


def test_numpy_floats_and_arrays_are_refused_with_the_float_message():
    """``numpy.float64`` is a float subclass whose repr is ``np.float64(0.5)`` (NumPy 2): the refusal
    must still be the FormatError with a spelling that parses, and an array one FormatError line."""
    np = pytest.importorskip("numpy")
    from exactnet.qq import to_q

    with pytest.raises(FormatError, match='the float 1e-05 is not exact; write it as a string like "0.00001"'):
        to_q(np.float64(1e-05))
    with pytest.raises(FormatError, match="the float 0.5 is not exact"):
        Network.from_lists([(np.array([[0.5, 1.0]]), np.array([0.0]))])
    with pytest.raises(FormatError, match="cannot read a rational from ndarray"):
        to_q(np.array(0.5))
    assert to_q(np.int64(-3)) == -3


@pytest.mark.parametrize("value", [1e-05, 0.1, 1e16, -3.75, 2.5e-07, 1e-300, 1.7976931348623157e308, 5e-324])
def test_to_q_and_network_files_suggest_the_same_spelling(value):
    """One spelling rule (``qq.exact_spelling``) for a float passed to ``to_q`` and the same float
    written as a JSON number in a network file."""
    import json

    from exactnet.netjson import loads_network
    from exactnet.qq import exact_spelling, to_q

    spelled = exact_spelling(repr(value))
    with pytest.raises(FormatError) as lib:
        to_q(value)
    doc = {"format": "exactnet-network/1", "layers": [{"weights": [["1"]], "biases": ["0"]}]}
    text = json.dumps(doc).replace('"biases": ["0"]', f'"biases": [{value!r}]')
    with pytest.raises(FormatError) as fil:
        loads_network(text)
    assert spelled in str(lib.value) and spelled in str(fil.value)
    if spelled.startswith('"') and spelled.endswith('"'):
        assert _q(parse_q(spelled[1:-1])) == Fraction(repr(value))


@pytest.mark.parametrize("text", ["1e-3999", "1e-3998", "12345e-3999", "1e3999", "9.5e-3990"])
def test_a_spelling_offered_at_the_digit_limit_parses(text):
    """Near MAX_DIGITS the p/q form can be one digit too long while the plain decimal fits; what
    is offered (quoted, or described) must be a string parse_q accepts (review finding)."""
    from decimal import Decimal

    from exactnet.qq import exact_spelling

    spelled = exact_spelling(text)
    assert spelled is not None
    if spelled.startswith("a plain decimal"):
        candidate = format(Decimal(text), "f")
    elif spelled.startswith('"') and "followed by a 1 and" in spelled:
        p, k = re.search(r'"(-?\d+)/" followed by a 1 and (\d+) zeros', spelled).groups()
        candidate = f"{p}/1" + "0" * int(k)
    elif spelled.startswith("the string"):
        p, k = re.search(r'the string "(-?\d+)" with (\d+) zeros', spelled).groups()
        candidate = p + "0" * int(k)
    else:
        candidate = spelled.strip('"')
    assert _q(parse_q(candidate)) == Fraction(Decimal(text))


@pytest.mark.parametrize("text", ["inf", "-Infinity", "nan", "abc", ""])
def test_exact_spelling_refuses_what_is_not_a_finite_decimal(text):
    from exactnet.qq import exact_spelling

    with pytest.raises(FormatError):
        exact_spelling(text)
