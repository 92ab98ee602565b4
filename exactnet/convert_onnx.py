"""ONNX import and export (the ``onnx`` extra: ``pip install "exactnet[onnx]"``).

Reading (:func:`load_onnx`) accepts graphs that are a single chain from the one
graph input to the one graph output, made of

* ``Gemm(h, B, C)`` with ``transA = 0``: ``y = alpha * h @ op(B) + beta * C`` where
  ``op(B) = B^T`` when ``transB = 1`` (then ``B`` is ``n_l x n_(l-1)``, the exactnet
  layout) and ``B`` itself when ``transB = 0`` (``B`` is ``n_(l-1) x n_l`` and is
  transposed). ``alpha`` and ``beta`` (float attributes) are converted with the same
  float mode and multiplied in exactly; ``C`` may be missing, a scalar, ``(n_l,)``
  or ``(1, n_l)``;
* ``MatMul(h, B)`` (``B`` is ``n_(l-1) x n_l``) optionally followed by
  ``Add(., C)`` (either argument order);
* ``Relu`` between affine layers, ``Identity`` anywhere (a no-op).

Weights come from graph initializers or ``Constant`` nodes. Any other operator is
refused with a :class:`~exactnet.errors.FormatError` that names it; so is a graph
that branches or uses a weight as the moving signal. Floats need ``float_mode``.

Writing (:func:`onnx_bytes`) produces ``x -> Gemm(transB=1) -> Relu -> ... -> Gemm -> y``
with float64 (``DOUBLE``) initializers, input ``x`` of shape ``[N, n_0]``. ONNX
stores floats, so an exact rational network is **rounded** to the nearest
float64 weights. For dyadic weights of moderate size (``p / 2^k`` that fit a
double) the round trip ``load_onnx(onnx_bytes(net), "exact") == net`` is exact;
``onnx_bytes(net, require_exact=True)`` refuses any weight that would be rounded,
:func:`count_rounded` says how many are, and :func:`rounding_note` words it as a
one-line note for the command line.

Reading ``bfloat16``, ``float8_*`` (and the other small ``ml_dtypes`` formats)
initializers widens them to ``float32`` first, which is exact; like every float
they need a ``float_mode``.
"""

from __future__ import annotations

import os
from typing import Any

from flint import fmpq

from .convert_numpy import array_to_q
from .fileio import existing_file
from .errors import DependencyError, ExactnetError, FormatError, ShapeError, ValueRangeError
from .network import Layer, Network
from .qq import FloatMode, check_float_mode, Q0, from_float, q_str, q_to_float

__all__ = [
    "load_onnx",
    "onnx_bytes",
    "count_rounded",
    "rounding_note",
    "network_from_onnx_model",
    "require_onnx",
    "OPSET",
]

_INSTALL = 'pip install "exactnet[onnx]"'

#: The ONNX operator set version written by :func:`onnx_bytes`.
OPSET = 17


def require_onnx():
    """Import onnx or raise :class:`DependencyError` saying how to install it."""
    try:
        import onnx  # noqa: F401
    except ImportError:
        raise DependencyError(f"reading or writing ONNX files needs onnx: {_INSTALL}") from None
    return onnx


class _Pending:
    """An affine layer being assembled: rows ``W`` (n_out x n_in) and biases ``b``."""

    def __init__(self, W: list[list[fmpq]], b: list[fmpq]):
        self.W = W
        self.b = b


def _attr(node: Any, name: str, default: Any) -> Any:
    onnx = require_onnx()
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _to_array(numpy_helper: Any, tensor: Any, what: str) -> Any:
    try:
        return numpy_helper.to_array(tensor)
    except Exception as e:  # unsupported element type, missing external data, ...
        raise FormatError(f"{what}: cannot read the tensor ({type(e).__name__}: {e})") from None


def _scalar_attr(node: Any, name: str, float_mode: FloatMode | None, label: str) -> fmpq | None:
    """A float attribute (stored as float32) as an exact rational, or None when it is 1."""
    import numpy as np

    v = _attr(node, name, 1.0)
    if isinstance(v, int) and not isinstance(v, bool):
        v = float(v)
    if not isinstance(v, float):
        raise FormatError(f"{label}: attribute {name} must be a float, got {type(v).__name__}")
    if v == 1.0:
        return None
    if float_mode is None:
        raise FormatError(f"{label} has {name} = {v!r}: pass --float-mode exact or decimal")
    return array_to_q(np.array(v, dtype=np.float32), float_mode, f"{label} {name}")


def _flag(node: Any, name: str, label: str) -> bool:
    """An ``int`` attribute that must be 0 or 1 (``transA``, ``transB``), default 0."""
    v = _attr(node, name, 0)
    if isinstance(v, bool) or not isinstance(v, int) or v not in (0, 1):
        raise FormatError(f"{label}: attribute {name} must be the integer 0 or 1, got {_short_attr(v)}")
    return bool(v)


def _short_attr(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else f"a {type(v).__name__}"


def _shape(v: Any) -> tuple[int, ...]:
    """The shape of nested lists as built by :func:`array_to_q` (``()`` for a scalar)."""
    dims: list[int] = []
    while isinstance(v, list):
        dims.append(len(v))
        if not v:
            break
        v = v[0]
    return tuple(dims)


def _bias_vector(C: Any, n_out: int, name: str) -> list[fmpq]:
    shape = _shape(C)
    if len(shape) > 2 or (len(shape) == 2 and shape[0] != 1):
        raise ShapeError(f"bias {name!r} has shape {shape}, expected ({n_out},) or (1, {n_out})")
    if len(shape) == 2:
        C = C[0]
    if not isinstance(C, list):
        return [C] * n_out
    if len(C) == 1 and n_out != 1:
        return [C[0]] * n_out
    if len(C) != n_out:
        raise ShapeError(f"bias {name!r} has {len(C)} entries but the layer has {n_out} neurons")
    return list(C)


def _matrix(v: Any, name: str, label: str) -> list[list[fmpq]]:
    shape = _shape(v)
    if len(shape) != 2 or 0 in shape:
        raise ShapeError(
            f"{label}: weight {name!r} has shape {shape}, expected a matrix (2 dimensions, not empty)"
        )
    return v


def _transpose(M: list[list[fmpq]]) -> list[list[fmpq]]:
    return [list(r) for r in zip(*M)]


def network_from_onnx_model(model: Any, float_mode: FloatMode | None) -> Network:
    """Read the chain of affine/ReLU operators of an ``onnx.ModelProto``."""
    require_onnx()
    from onnx import numpy_helper

    g = model.graph
    consts: dict[str, Any] = {}
    for init in g.initializer:
        consts[init.name] = array_to_q(_to_array(numpy_helper, init, f"initializer {init.name!r}"), float_mode,
                                       f"initializer {init.name!r}")
    inputs = [i.name for i in g.input if i.name not in consts]
    if len(inputs) != 1:
        raise FormatError(f"the graph must have exactly one (non-weight) input, found {len(inputs)}: {inputs}")
    if len(g.output) != 1:
        raise FormatError(f"the graph must have exactly one output, found {len(g.output)}")
    signal = inputs[0]
    layers: list[Layer] = []
    pending: _Pending | None = None

    def close() -> None:
        nonlocal pending
        if pending is None:
            raise FormatError("Relu without an affine layer before it (the pattern is Gemm/MatMul, Relu, ...)")
        layers.append(Layer(tuple(tuple(r) for r in pending.W), tuple(pending.b)))
        pending = None

    def const(name: str, node: Any) -> Any:
        if name not in consts:
            raise FormatError(
                f"node {node.name or node.op_type!r} ({node.op_type}): input {name!r} is neither the signal nor a weight "
                "(exactnet reads single-chain graphs)"
            )
        return consts[name]

    for node in g.node:
        op = node.op_type
        label = f"{op} node {node.name!r}" if node.name else f"{op} node"
        if node.domain not in ("", "ai.onnx"):
            raise FormatError(f"unsupported ONNX operator {node.domain}.{op} ({label})")
        if op == "Constant":
            if len(node.output) != 1 or not node.output[0]:
                raise FormatError(f"{label} has {len(node.output)} outputs, expected 1")
            val = None
            for a in node.attribute:
                if a.name == "value":
                    val = _to_array(numpy_helper, a.t, f"constant {node.output[0]!r}")
            if val is None:
                raise FormatError(f"{label}: only Constant nodes with a tensor 'value' are supported")
            consts[node.output[0]] = array_to_q(val, float_mode, f"constant {node.output[0]!r}")
            continue
        ins = [i for i in node.input]
        if signal not in ins:
            raise FormatError(f"{label} does not act on the signal {signal!r} (exactnet reads single-chain graphs)")
        if len(node.output) != 1:
            raise FormatError(f"{label} has {len(node.output)} outputs, expected 1")
        arity = {"Gemm": (2, 3), "MatMul": (2, 2), "Add": (2, 2)}.get(op)
        if arity is not None and not arity[0] <= len(ins) <= arity[1]:
            want = f"{arity[0]}" if arity[0] == arity[1] else f"{arity[0]} or {arity[1]}"
            raise FormatError(f"{label} has {len(ins)} inputs, expected {want}")
        if op == "Gemm":
            if pending is not None:
                raise FormatError(f"{label} follows an affine layer without Relu in between")
            if ins[0] != signal:
                raise FormatError(f"{label}: the signal must be the first input A")
            if _flag(node, "transA", label):
                raise FormatError(f"{label}: transA = 1 is not supported")
            B = _matrix(const(ins[1], node), ins[1], label)
            alpha = _scalar_attr(node, "alpha", float_mode, label)
            beta = _scalar_attr(node, "beta", float_mode, label)
            W = B if _flag(node, "transB", label) else _transpose(B)
            if alpha is not None:
                W = [[alpha * v for v in r] for r in W]
            n_out = len(W)
            if len(ins) > 2 and ins[2]:
                b = _bias_vector(const(ins[2], node), n_out, ins[2])
                if beta is not None:
                    b = [beta * v for v in b]
            else:
                b = [Q0] * n_out
            pending = _Pending(W, b)
        elif op == "MatMul":
            if pending is not None:
                raise FormatError(f"{label} follows an affine layer without Relu in between")
            if ins[0] != signal:
                raise FormatError(f"{label}: the signal must be the left factor (h @ B)")
            B = _matrix(const(ins[1], node), ins[1], label)
            W = _transpose(B)
            pending = _Pending(W, [Q0] * len(W))
        elif op == "Add":
            if pending is None:
                raise FormatError(f"{label} adds a bias without a MatMul before it")
            other = ins[1] if ins[0] == signal else ins[0]
            c = _bias_vector(const(other, node), len(pending.W), other)
            pending.b = [u + v for u, v in zip(pending.b, c)]
        elif op == "Relu":
            close()
        elif op == "Identity":
            pass
        else:
            raise FormatError(f"unsupported ONNX operator {op} ({label}); exactnet reads Gemm, MatMul, Add, Relu")
        signal = node.output[0]
    if signal != g.output[0].name:
        raise FormatError(f"the graph output {g.output[0].name!r} is not the end of the chain {signal!r}")
    if pending is None:
        raise FormatError("the graph does not end with an affine layer (Gemm or MatMul[+Add])")
    close()
    net = Network(layers)
    x_info = next(i for i in g.input if i.name not in consts)
    for what, info, width in (("input", x_info, net.input_dim), ("output", g.output[0], net.output_dim)):
        declared = _declared_width(info)
        if declared is not None and declared != width:
            raise ShapeError(f"the graph {what} {info.name!r} is declared with width {declared} but the "
                             f"weights give {width}")
    return net


def _declared_width(info: Any) -> int | None:
    """The static last dimension of a graph input/output (None when absent or symbolic)."""
    dims = info.type.tensor_type.shape.dim if info.type.HasField("tensor_type") else []
    if not dims or not dims[-1].HasField("dim_value"):
        return None
    return int(dims[-1].dim_value)


def load_onnx(path: str | os.PathLike, float_mode: FloatMode | None = None) -> Network:
    """Load a network from an ``.onnx`` file (see the module docstring for the graphs read)."""
    check_float_mode(float_mode)
    p = existing_file(path)
    onnx = require_onnx()
    try:
        model = onnx.load(str(p))  # also loads external tensor data stored next to the file
    except Exception as e:  # protobuf decode errors have several types
        raise FormatError(f"{p}: not an ONNX model ({type(e).__name__})") from None
    try:
        net = network_from_onnx_model(model, float_mode)
    except ExactnetError as e:
        raise type(e)(f"{p}: {e}") from None
    meta = {"source": {"file": p.name, "converter": "exactnet.convert_onnx", "float_mode": float_mode}}
    return Network(net.layers, name=net.name, metadata=meta)


def _double(q: fmpq, where: str = "a weight") -> float:
    """Nearest float64 of ``q``; ValueRangeError naming ``where`` when it is beyond the float64 range."""
    try:
        return q_to_float(q)
    except OverflowError:
        raise ValueRangeError(f"{where} = {_short(q)} is too large for float64 (ONNX stores floats)") from None


def _short(q: fmpq) -> str:
    """``q`` spelled out, or its first characters and its length when it is long."""
    text = q_str(q)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def _entries(net: Network):
    """``(label, value)`` for every weight and bias, labels ``W_l[i][j]`` / ``b_l[i]`` (1-based)."""
    for l, layer in enumerate(net.layers, start=1):
        for i, row in enumerate(layer.weights):
            for j, v in enumerate(row):
                yield f"layer {l} weight W_{l}[{i + 1}][{j + 1}]", v
        for i, v in enumerate(layer.biases):
            yield f"layer {l} bias b_{l}[{i + 1}]", v


def count_rounded(net: Network, require_exact: bool = False) -> int:
    """How many weights and biases of ``net`` are not float64 values, i.e. are rounded by :func:`onnx_bytes`.

    0 means the ONNX file holds ``net`` exactly. Raises :class:`ValueRangeError`
    naming the layer and index of a value beyond the float64 range, and, with
    ``require_exact=True``, of the first value that would be rounded.
    """
    rounded = 0
    for where, v in _entries(net):
        if from_float(_double(v, where), "exact") != v:
            if require_exact:
                raise ValueRangeError(f"{where} = {_short(v)} is not exactly a float64")
            rounded += 1
    return rounded


def rounding_note(net: Network) -> str | None:
    """A one-line note for users when writing ``net`` as ONNX rounds values, else None.

    For example ``"3 of 5 weights and biases rounded to float64 (ONNX stores floats); 1 of them
    became 0"``, for the command line to print on stderr after writing an ``.onnx`` file.
    """
    n = count_rounded(net)
    if n == 0:
        return None
    values = [v for _, v in _entries(net)]
    zeros = sum(1 for v in values if v != 0 and q_to_float(v) == 0.0)
    extra = f"; {zeros} of them became 0" if zeros else ""
    return f"{n} of {len(values)} weights and biases rounded to float64 (ONNX stores floats){extra}"


def onnx_bytes(net: Network, require_exact: bool = False) -> bytes:
    """Serialise ``net`` as an ONNX model (Gemm/Relu, float64 initializers).

    ONNX stores floats: every rational is rounded to the nearest float64. Dyadic
    weights that fit a double survive exactly; with ``require_exact=True`` any
    weight that would be rounded raises :class:`ValueRangeError`. How many are
    rounded: :func:`count_rounded` (also stored in the model's metadata property
    ``exactnet_rounded_weights``); a note for users: :func:`rounding_note`.
    """
    onnx = require_onnx()
    from onnx import TensorProto, helper

    rounded = count_rounded(net, require_exact)
    inits, nodes = [], []
    sig = "x"
    for l, layer in enumerate(net.layers, start=1):
        wn, bn = f"W{l}", f"b{l}"
        inits.append(helper.make_tensor(wn, TensorProto.DOUBLE, [layer.n_out, layer.n_in],
                                        [_double(v) for r in layer.weights for v in r]))
        inits.append(helper.make_tensor(bn, TensorProto.DOUBLE, [layer.n_out], [_double(v) for v in layer.biases]))
        out = "y" if l == net.depth else f"z{l}"
        nodes.append(helper.make_node("Gemm", [sig, wn, bn], [out], name=f"layer{l}", transB=1))
        sig = out
        if l < net.depth:
            nodes.append(helper.make_node("Relu", [out], [f"h{l}"], name=f"relu{l}"))
            sig = f"h{l}"
    graph = helper.make_graph(
        nodes,
        net.name or "exactnet",
        [helper.make_tensor_value_info("x", TensorProto.DOUBLE, ["N", net.input_dim])],
        [helper.make_tensor_value_info("y", TensorProto.DOUBLE, ["N", net.output_dim])],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="exactnet")
    model.doc_string = (
        "Written by exactnet. Weights are float64; "
        + ("all weights are exact." if rounded == 0 else f"{rounded} rational weights were rounded to float64.")
    )
    helper.set_model_props(model, {"exactnet_rounded_weights": str(rounded)})
    onnx.checker.check_model(model)
    return model.SerializeToString()
