"""PyTorch import and export (the ``torch`` extra: ``pip install "exactnet[torch]"``).

Reading (:func:`load_torch`) accepts a file written by ``torch.save`` holding

* a ``state_dict`` of Linear layers: keys ``<prefix>.weight`` (``n_l x n_(l-1)``,
  PyTorch's own layout, no transpose) and ``<prefix>.bias`` in insertion order;
  a checkpoint dict with the state dict under ``"state_dict"`` or
  ``"model_state_dict"`` is unwrapped; a Linear without bias gets zero biases;
* a whole ``nn.Sequential`` of ``Linear`` and ``ReLU`` (nested ``Sequential``,
  ``Identity`` and ``Dropout`` are accepted as the inference-time no-ops they are).
  The hidden layers must be ``Linear, ReLU`` pairs and the last module a ``Linear``.

Loading is done with ``torch.load(..., weights_only=True)``: PyTorch's restricted
unpickler, which cannot run code from the file. For a whole ``nn.Sequential`` the
classes ``Sequential``, ``Linear``, ``ReLU``, ``Identity`` and ``Dropout`` are
allowlisted for that one call (``torch.serialization.safe_globals``); any other class
in the file (``Conv2d``, ``Sigmoid``, a user's own module) is refused with an error
that names it, without unpickling it. ``allow_pickle=True`` switches to
``weights_only=False`` (full pickle: only for files you trust), which lets
exactnet look at custom modules and still refuses unsupported layers by name.

Floats: tensors are floats, so a ``float_mode`` is required (``"exact"`` or
``"decimal"``, see :mod:`exactnet.convert_numpy`); NaN/inf are refused. Sparse
tensors are read as their dense values; ``bfloat16`` and ``float8_*`` tensors are
widened to ``float32`` (exact: each of their values is a float32), so ``"decimal"``
gives the shortest decimal in float32 precision. Tensors without data (``meta``
device) and quantized tensors are refused with an error naming the tensor.

Writing (:func:`network_to_torch`) builds an ``nn.Sequential`` of float64 Linear and
ReLU layers for users; each rational is rounded to the nearest float64, so the
round trip is exact precisely for dyadic weights (denominators powers of two, of
moderate size).
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Mapping
from typing import Any

from .convert_numpy import _clip, layers_from_arrays
from .fileio import existing_file
from .errors import DependencyError, ExactnetError, FormatError, ShapeError, ValueRangeError
from .network import Network
from .qq import FloatMode, check_float_mode, q_to_float

__all__ = ["load_torch", "network_to_torch", "network_from_module", "network_from_state_dict", "require_torch"]

_INSTALL = 'pip install "exactnet[torch]"'


def require_torch():
    """Import torch or raise :class:`DependencyError` saying how to install it."""
    try:
        import torch  # noqa: F401
    except ImportError:
        raise DependencyError(f"reading or writing PyTorch files needs torch: {_INSTALL}") from None
    return torch


def _tensor_to_numpy(t: Any, name: str):
    """The values of tensor ``t`` (named ``name`` in messages) as a NumPy array, exactly.

    Sparse tensors are made dense; ``bfloat16`` and ``float8_*`` tensors are widened
    to ``float32``, which holds each of their values exactly. A tensor without data
    (meta device), a quantized tensor or anything else that cannot be read raises a
    one-line :class:`FormatError` naming the tensor.
    """
    torch = require_torch()
    if not isinstance(t, torch.Tensor):
        raise FormatError(f"{name} is a {type(t).__name__}, expected a tensor")
    if t.is_meta:
        raise FormatError(f"{name} has no data (a meta-device tensor): save the model after its weights are loaded")
    if t.is_quantized:
        raise FormatError(
            f"{name} is a quantized tensor ({str(t.dtype).removeprefix('torch.')}); "
            "exactnet reads plain float or integer tensors: save the float model"
        )
    try:
        t = t.detach().cpu()
        if t.layout != torch.strided:  # sparse COO / CSR / CSC / BSR / BSC: the same numbers, dense
            t = t.to_dense()
        if t.is_complex():
            raise FormatError(f"{name} holds complex numbers")
        if t.is_floating_point() and t.dtype not in (torch.float16, torch.float32, torch.float64):
            if not _fits_float32(torch, t.dtype):
                raise FormatError(
                    f"{name} has dtype {str(t.dtype).removeprefix('torch.')}, which exactnet cannot read exactly"
                )
            t = t.to(torch.float32)  # exact: bfloat16 and float8 values are all float32 values
        return t.numpy()
    except ExactnetError:
        raise
    except Exception as e:  # an unusual tensor kind or dtype torch cannot hand to NumPy
        raise FormatError(f"{name}: cannot read the tensor ({type(e).__name__}: {_clip(str(e))})") from None


def _fits_float32(torch: Any, dtype: Any) -> bool:
    """Whether every value of the float ``dtype`` is a float32 (so widening is exact)."""
    f32 = torch.finfo(torch.float32)
    try:
        fi = torch.finfo(dtype)
        eps, big, quantum = fi.eps, fi.max, fi.tiny * fi.eps  # every value is a multiple of quantum
    except Exception:  # packed or exotic dtypes (float4_e2m1fn_x2) have no usable finfo
        return False
    return eps >= f32.eps and big <= f32.max and quantum >= f32.smallest_normal * f32.eps


def network_from_state_dict(sd: Mapping[str, Any], float_mode: FloatMode | None, where: str = "state_dict") -> Network:
    """Build a network from a ``state_dict`` of Linear layers (keys ``*.weight``, ``*.bias``)."""
    groups: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for key, val in sd.items():
        if not isinstance(key, str):
            raise FormatError(f"{where}: key {key!r} is not a string")
        prefix, _, leaf = key.rpartition(".")
        if leaf not in ("weight", "bias"):
            raise FormatError(
                f"{where}: unsupported entry {key!r} (only Linear layers' .weight and .bias are supported)"
            )
        if prefix not in groups:
            groups[prefix] = {}
            order.append(prefix)
        groups[prefix][leaf] = val
    if not order:
        raise ShapeError(f"{where}: no layers found (a network needs at least one layer)")
    Ws, bs, names = [], [], []
    import numpy as np

    for prefix in order:
        g = groups[prefix]
        wname = f"{prefix}.weight" if prefix else "weight"
        if "weight" not in g:
            raise FormatError(f"{where}: {prefix}.bias has no matching .weight")
        W = _tensor_to_numpy(g["weight"], wname)
        if W.ndim != 2:
            kind = "a convolution" if W.ndim in (3, 4, 5) else "not a Linear layer"
            raise FormatError(f"{where}: {wname} has shape {tuple(W.shape)} ({kind}); only Linear layers are supported")
        if "bias" in g:
            b = _tensor_to_numpy(g["bias"], f"{prefix}.bias")
        else:
            b = np.zeros(W.shape[0], dtype=W.dtype)
        Ws.append(W)
        bs.append(b)
        names.append((wname, f"{prefix}.bias"))
    layers, _ = layers_from_arrays(Ws, bs, float_mode, "rows", names=names)
    return Network(layers)


def _flatten_modules(mod: Any, torch: Any) -> list[Any]:
    nn = torch.nn
    if isinstance(mod, nn.Sequential):
        out: list[Any] = []
        for child in mod:
            out.extend(_flatten_modules(child, torch))
        return out
    if isinstance(mod, (nn.Identity, nn.Dropout)):
        return []
    return [mod]


def network_from_module(mod: Any, float_mode: FloatMode | None) -> Network:
    """Build a network from an ``nn.Sequential`` (or one ``nn.Linear``) of Linear and ReLU."""
    torch = require_torch()
    nn = torch.nn
    if not isinstance(mod, nn.Module):
        raise FormatError(f"expected an nn.Module, got {type(mod).__name__}")
    mods = _flatten_modules(mod, torch)
    bad = sorted({type(m).__name__ for m in mods if not isinstance(m, (nn.Linear, nn.ReLU))})
    if bad:
        raise FormatError(
            f"unsupported module type(s) {', '.join(bad)}: exactnet reads Sequential models of Linear and ReLU only"
        )
    if not mods:
        raise ShapeError("the model has no layers (a network needs at least one Linear layer)")
    Ws, bs, names = [], [], []
    import numpy as np

    for k, m in enumerate(mods):
        expect_linear = k % 2 == 0
        if expect_linear and not isinstance(m, nn.Linear):
            raise FormatError(f"module {k} is ReLU where a Linear layer is expected (the pattern is Linear, ReLU, ..., Linear)")
        if not expect_linear and not isinstance(m, nn.ReLU):
            raise FormatError(
                f"module {k} is Linear right after a Linear layer; exactnet needs a ReLU between Linear layers"
            )
        if isinstance(m, nn.Linear):
            W = _tensor_to_numpy(m.weight, f"module {k} weight")
            b = _tensor_to_numpy(m.bias, f"module {k} bias") if m.bias is not None else np.zeros(W.shape[0], W.dtype)
            Ws.append(W)
            bs.append(b)
            names.append((f"module {k} weight", f"module {k} bias"))
    if not isinstance(mods[-1], nn.Linear):
        raise FormatError("the model ends with ReLU; exactnet networks end with an affine (Linear) layer")
    layers, _ = layers_from_arrays(Ws, bs, float_mode, "rows", names=names)
    return Network(layers)


_GLOBAL = re.compile(r"Unsupported global: GLOBAL ([\w.]+)")


def load_torch(path: str | os.PathLike, float_mode: FloatMode | None = None, allow_pickle: bool = False) -> Network:
    """Load a network from a ``torch.save`` file (``state_dict`` or ``nn.Sequential``)."""
    check_float_mode(float_mode)
    p = existing_file(path)
    torch = require_torch()
    nn = torch.nn
    safe = [nn.Sequential, nn.Linear, nn.ReLU, nn.Identity, nn.Dropout]
    try:
        with warnings.catch_warnings():  # torch's notes on beta features (sparse CSR, quantized) are not for users
            warnings.simplefilter("ignore", UserWarning)
            if allow_pickle:
                obj = torch.load(p, map_location="cpu", weights_only=False)
            else:
                with torch.serialization.safe_globals(safe):
                    obj = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for a bad file
        msg = str(e)
        m = _GLOBAL.search(msg)
        if m:
            cls = m.group(1).rsplit(".", 1)[-1]
            raise FormatError(
                f"{p}: unsupported module type {cls} ({m.group(1)}): exactnet reads Linear and ReLU layers only "
                "(it was not unpickled)"
            ) from None
        first = _clip(msg, 200) or type(e).__name__
        raise FormatError(f"{p}: not a PyTorch file exactnet can read ({first})") from None
    meta = {"source": {"file": p.name, "converter": "exactnet.convert_torch", "float_mode": float_mode}}
    try:
        if isinstance(obj, nn.Module):
            net = network_from_module(obj, float_mode)
        elif isinstance(obj, Mapping):
            for k in ("state_dict", "model_state_dict"):
                if k in obj and isinstance(obj[k], Mapping):
                    obj = obj[k]
                    break
            net = network_from_state_dict(obj, float_mode)
        else:
            raise FormatError(f"holds a {type(obj).__name__}, expected a state_dict or an nn.Sequential")
    except ExactnetError as e:
        raise type(e)(f"{p}: {e}") from None
    return Network(net.layers, metadata=meta)


def _double(q: Any) -> float:
    try:
        return q_to_float(q)
    except OverflowError:
        raise ValueRangeError(f"a weight of {len(str(q))} characters is too large for float64") from None


def network_to_torch(net: Network):
    """An ``nn.Sequential`` (float64) of Linear and ReLU computing ``net``.

    Each weight is rounded to the nearest float64: exact for dyadic rationals of
    moderate size, an approximation otherwise.
    """
    torch = require_torch()
    nn = torch.nn
    mods: list[Any] = []
    for k, layer in enumerate(net.layers, start=1):
        lin = nn.Linear(layer.n_in, layer.n_out, bias=True, dtype=torch.float64)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[_double(v) for v in row] for row in layer.weights], dtype=torch.float64))
            lin.bias.copy_(torch.tensor([_double(v) for v in layer.biases], dtype=torch.float64))
        mods.append(lin)
        if k < net.depth:
            mods.append(nn.ReLU())
    return nn.Sequential(*mods)
