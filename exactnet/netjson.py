"""The network file format ``exactnet-network/1`` (JSON).

::

    {"format": "exactnet-network/1",
     "name": "optional", "metadata": {...optional...},
     "layers": [{"weights": [[...], ...], "biases": [...]}, ...]}

``weights`` of layer ``l`` has shape ``n_l x n_(l-1)``. Each number is a JSON
integer or a string holding an integer, ``p/q`` or a plain decimal. A JSON float
such as ``0.1`` is refused with a message that says how to write it (``"0.1"``
or ``"1/10"``): a float in a file has already lost the number the user meant.
The message quotes the number as the file spells it, so ``1e400`` (which
overflows a float) and ``1e-400`` (which underflows to 0) get a correct exact
spelling too; exponents are not part of the string syntax.
Written files use the canonical spelling (strings ``"p/q"``, reduced).
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from .errors import FormatError, ShapeError, ValueRangeError
from .network import Layer, Network
from .qq import MAX_DIGITS, SHOW_CHARS, exact_spelling, parse_q, q_str, to_q

__all__ = ["FORMAT", "network_to_json", "network_from_json", "dumps_network", "loads_network"]

FORMAT = "exactnet-network/1"


def _num(v: Any, where: str):
    if isinstance(v, bool):
        raise FormatError(f"{where}: true/false is not a number")
    if isinstance(v, int):
        return to_q(v)
    if isinstance(v, float):
        raise FormatError(f"{where}: {_float_advice(v)}")
    if isinstance(v, str):
        if len(v) > MAX_DIGITS + 2:  # sign, '/' or '.', digits: longer never parses; refuse before scanning it
            raise ValueRangeError(f"{where}: a number of {len(v)} characters exceeds the limit of {MAX_DIGITS} digits")
        try:
            return parse_q(v)
        except FormatError as e:
            raise FormatError(f"{where}: {e}") from None
    raise FormatError(f"{where}: expected a number, got {type(v).__name__}")


class _FloatLiteral(float):
    """A JSON number with a fraction or exponent, remembering how the file spelled it."""

    text: str

    def __new__(cls, text: str) -> "_FloatLiteral":
        obj = super().__new__(cls, text)
        obj.text = text
        return obj


def _float_advice(v: float) -> str:
    """Why the JSON float ``v`` is refused and how to write it exactly (a spelling :func:`parse_q` reads)."""
    text = getattr(v, "text", None)
    if text is None:  # a float from Python, not from JSON text
        if not math.isfinite(v):
            return f"the float {v!r} is not a number exactnet accepts; write the exact value as a string"
        text = repr(v)
    shown = text if len(text) <= SHOW_CHARS else f"{text[:20]}... ({len(text)} characters)"
    example = exact_spelling(text)
    if example is None:
        d = Decimal(text)
        n_digits = len("".join(map(str, d.as_tuple().digits)).lstrip("0")) + abs(int(d.as_tuple().exponent))
        return (
            f"JSON number {shown} is {'too large' if d.adjusted() >= 0 else 'too small'} for exactnet "
            f"(written exactly it has about {n_digits} digits; the limit is {MAX_DIGITS})"
        )
    if math.isinf(float(v)):
        head = f"JSON number {shown} overflows a float"
    elif float(v) == 0.0 and Decimal(text) != 0:
        head = f"JSON number {shown} underflows a float (it would be read as 0)"
    else:
        head = f"JSON float {shown} is refused (floats are not exact)"
    return (
        f"{head}; write it as a string holding an integer, p/q or a plain decimal "
        f"(no exponent), e.g. {example}"
    )


def network_from_json(obj: Any) -> Network:
    """Build a network from the parsed JSON object of an ``exactnet-network/1`` file."""
    if not isinstance(obj, dict):
        raise FormatError("a network file must hold a JSON object")
    fmt = obj.get("format")
    if fmt != FORMAT:
        raise FormatError(f"unknown format {fmt!r}: expected {FORMAT!r}")
    layers = obj.get("layers")
    if not isinstance(layers, list) or not layers:
        raise ShapeError("'layers' must be a non-empty list (a network needs at least one layer)")
    out = []
    for k, layer in enumerate(layers, start=1):
        if not isinstance(layer, dict) or "weights" not in layer or "biases" not in layer:
            raise FormatError(f"layer {k} must be an object with 'weights' and 'biases'")
        w, b = layer["weights"], layer["biases"]
        if not isinstance(w, list) or not all(isinstance(r, list) for r in w):
            raise ShapeError(f"layer {k}: 'weights' must be a list of rows")
        if not isinstance(b, list):
            raise ShapeError(f"layer {k}: 'biases' must be a list")
        widths = {len(r) for r in w}
        if len(widths) > 1:
            raise ShapeError(f"layer {k}: ragged weight rows (lengths {sorted(widths)})")
        rows = tuple(
            tuple(_num(v, f"layer {k} weight [{i + 1}][{j + 1}]") for j, v in enumerate(r))
            for i, r in enumerate(w)
        )
        bias = tuple(_num(v, f"layer {k} bias [{i + 1}]") for i, v in enumerate(b))
        if len(rows) != len(bias):
            raise ShapeError(f"layer {k}: {len(rows)} weight rows but {len(bias)} biases")
        if rows and len(rows[0]) == 0:
            raise ShapeError(f"layer {k}: weight rows are empty")
        out.append(Layer(rows, bias))
    name = obj.get("name")
    meta = obj.get("metadata")
    if name is not None and not isinstance(name, str):
        raise FormatError("'name' must be a string")
    if meta is not None and not isinstance(meta, dict):
        raise FormatError("'metadata' must be an object")
    for key, value in (("name", name), ("metadata", meta)):
        _check_text(key, value)
    return Network(out, name=name, metadata=meta)


def _check_text(key: str, value: Any) -> None:
    """Refuse a ``name`` or ``metadata`` that holds text no output can carry: a lone surrogate
    (JSON's ``"\\ud800"``) is valid JSON but not Unicode text, so printing or writing it as UTF-8
    failed later, far from the file that held it."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise FormatError(f"'{key}' holds a lone UTF-16 surrogate (an escape such as \\ud800 without its pair), "
                          "which is not Unicode text") from None
    except (ValueError, RecursionError) as e:  # nesting too deep to write back
        raise FormatError(f"'{key}' cannot be written back as JSON: {e}") from None


def network_to_json(net: Network) -> dict:
    """The JSON object for ``net``, numbers in canonical spelling."""
    obj: dict[str, Any] = {"format": FORMAT}
    if net.name:
        obj["name"] = net.name
    if net.metadata:
        obj["metadata"] = net.metadata
    obj["layers"] = [
        {
            "weights": [[q_str(v) for v in row] for row in layer.weights],
            "biases": [q_str(v) for v in layer.biases],
        }
        for layer in net.layers
    ]
    return obj


def dumps_network(net: Network) -> str:
    """Serialise to canonical JSON text: one weight row per line, numbers as canonical strings."""
    obj = network_to_json(net)
    head = {k: v for k, v in obj.items() if k != "layers"}
    lines = ["{"]
    for k, v in head.items():
        try:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True, allow_nan=False)},")
        except (TypeError, ValueError) as e:  # metadata changed after construction to what JSON cannot hold
            raise FormatError(f"network {k} cannot be written as JSON: {e}") from None
    lines.append('  "layers": [')
    for n, layer in enumerate(obj["layers"]):
        rows = ",\n".join("      " + json.dumps(r) for r in layer["weights"])
        end = "," if n + 1 < len(obj["layers"]) else ""
        lines.append('    {"weights": [')
        lines.append(rows)
        lines.append(f'     ], "biases": {json.dumps(layer["biases"])}}}{end}')
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def loads_network(text: str) -> Network:
    """Parse JSON text of an ``exactnet-network/1`` file."""
    # Guard huge integers before json converts them (json also has its own int limit).
    try:
        obj = json.loads(text, parse_int=_parse_int, parse_float=_FloatLiteral, parse_constant=_bad_constant,
                         object_pairs_hook=_unique_keys)
    except FormatError:
        raise
    except (ValueError, RecursionError) as e:
        raise FormatError(f"not valid JSON: {e}") from None
    return network_from_json(obj)


def _parse_int(s: str) -> int:
    if len(s.lstrip("-")) > MAX_DIGITS:
        raise ValueRangeError(f"integer with {len(s)} digits exceeds the limit of {MAX_DIGITS} digits")
    return int(s)


def _unique_keys(pairs: list) -> dict:
    """A JSON object as a dict; a key given twice is refused (JSON parsers disagree on which one
    wins, so ``{"layers": [...], "layers": [...]}`` has no one meaning)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise FormatError(f"key {dup[:40]!r} appears twice in one JSON object")
    return obj


def _bad_constant(s: str):
    raise FormatError(f"{s} is not a number exactnet accepts")
