"""Loading and saving networks in every supported format, chosen by file extension.

* ``.json``: the native ``exactnet-network/1`` format (:mod:`exactnet.netjson`).
* ``.npz``: NumPy archives (:mod:`exactnet.convert_numpy`), floats converted by an
  explicit mode.
* ``.pt`` / ``.pth``: PyTorch ``state_dict`` or ``nn.Sequential``
  (:mod:`exactnet.convert_torch`, needs the ``torch`` extra).
* ``.onnx``: ONNX graphs of ``Gemm``/``MatMul``+``Add``/``Relu``
  (:mod:`exactnet.convert_onnx`, needs the ``onnx`` extra).
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import ExactnetError, FileAccessError, FormatError
from .fileio import atomic_write_bytes, atomic_write_text, read_input_bytes
from .netjson import dumps_network, loads_network
from .network import Network
from .qq import FloatMode

__all__ = ["load_network", "save_network", "read_text_file"]


def read_text_file(path: str | os.PathLike) -> str:
    """Read a UTF-8 text file with errors that name the file."""
    p = Path(path)
    data = read_input_bytes(p)  # no endless wait on a pipe, no endless read of a device
    try:
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        raise FormatError(f"{p} is not a UTF-8 text file") from None


def load_network(path: str | os.PathLike, float_mode: FloatMode | None = None) -> Network:
    """Load a network from ``path``; the extension selects the format.

    ``float_mode`` (``"exact"`` or ``"decimal"``) is required for float formats
    (``.npz`` with float arrays, ``.pt``, ``.onnx``); it is ignored for JSON.
    """
    p = Path(path)
    ext = p.suffix.lower()
    if not p.exists():
        raise FileAccessError(f"file not found: {p}")
    if ext == ".json" or ext == "":
        text = read_text_file(p)  # its errors name the file already
        if not text.strip():
            raise FormatError(f"{p} is empty (expected an exactnet-network/1 JSON network)")
        try:
            return loads_network(text)
        except ExactnetError as e:
            raise type(e)(f"{p}: {e}") from None
    if ext in (".npz", ".npy"):
        from .convert_numpy import load_npz

        return load_npz(p, float_mode=float_mode)
    if ext in (".pt", ".pth"):
        from .convert_torch import load_torch

        return load_torch(p, float_mode=float_mode)
    if ext == ".onnx":
        from .convert_onnx import load_onnx

        return load_onnx(p, float_mode=float_mode)
    raise FormatError(f"{p}: unknown network file type {ext!r} (use .json, .npz, .pt, .pth or .onnx)")


def save_network(net: Network, path: str | os.PathLike) -> None:
    """Save ``net`` to ``path`` (``.json`` or ``.onnx``), atomically."""
    p = Path(path)
    ext = p.suffix.lower()
    if ext == ".onnx":
        from .convert_onnx import onnx_bytes

        atomic_write_bytes(p, onnx_bytes(net))
        return
    if ext not in (".json", ""):
        raise FormatError(f"{p}: can only write .json or .onnx networks")
    atomic_write_text(p, dumps_network(net))
