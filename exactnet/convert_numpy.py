"""Reading networks from NumPy ``.npz`` archives (and ``.npy`` files), exactly.

This is the border between float arrays and exact rationals for NumPy files. Two
layouts are read:

* **Named arrays** ``W1, b1, W2, b2, ...`` (exactly ``W<l>`` and ``b<l>``, ``l``
  from 1 without gaps; other spellings are not guessed). ``W<l>`` is
  ``n_l x n_(l-1)`` (rows are neurons, ``z = W h + b``), the exactnet convention.
* **Positional object arrays** ``arr_0`` (a list of weight matrices) and ``arr_1``
  (a list of bias vectors), as written by ``np.savez(path, ws, bs)`` in extraction
  repositories. Two conventions are in use there:

  - AI-Lab-Y/NN_cryptanalytic_extraction (``nets.py``) stores ``ws[l]`` as
    ``n_l x n_(l-1)`` and biases as ``n_l x 1`` columns: the exactnet layout;
  - Carlini, Jagielski and Mironov's cryptanalytic-model-extraction code computes
    ``x = x @ A[l] + B[l]``, so ``A[l]`` is ``n_(l-1) x n_l`` (its train script saves
    ``[A, B]`` with ``np.save``; ``np.savez(path, A, B)`` gives ``arr_0``/``arr_1``).
    Such matrices are **transposed** on reading.

  ``layout="auto"`` (the default) decides from the shapes: the bias lengths give
  ``n_1 .. n_L``, and only one orientation chains unless every matrix is square.
  For named arrays an all-square network is read in the documented ``rows``
  layout; for ``arr_0``/``arr_1`` it is ambiguous and refused (pass
  ``layout="rows"`` or ``"columns"``). The layout used is recorded in the network's
  ``metadata["source"]``. A single object array of shape ``(2, L)`` (from
  ``np.save(path, [A, B])`` with old NumPy) is read as ``[A, B]`` too.

Numbers: integer arrays convert exactly without a float mode. Float arrays need an
explicit ``float_mode``: ``"exact"`` (the binary value of each float) or
``"decimal"`` (the shortest decimal that round-trips *in the array's own precision*,
so a float32 ``0.1`` becomes ``1/10``). NaN or infinity raises
:class:`~exactnet.errors.ValueRangeError` naming the array and the index. The
small formats of ``ml_dtypes`` (what ONNX gives for ``bfloat16``, ``float8_*``,
``float6_*``, ``float4_*``, ``int4``, ``uint4``, ...) are first widened to
``float32`` / ``int64``, which holds each of their values exactly; the float ones
still need a ``float_mode``, and ``"decimal"`` then means the shortest decimal in
``float32`` precision (as for PyTorch ``bfloat16`` tensors).

Object arrays (the ``arr_0``/``arr_1`` lists) are stored with pickle, and a full
unpickler can run code from the file. exactnet therefore reads them with a
*restricted* unpickler that only rebuilds NumPy arrays and dtypes (the globals
``numpy.core.multiarray._reconstruct`` / ``numpy._core.multiarray._reconstruct``,
``numpy.ndarray``, ``numpy.dtype``, ``numpy.core.multiarray.scalar`` and
``_codecs.encode`` for old protocol-2 files) and refuses any other global by name.
``allow_pickle=True`` (CLI: ``exactnet convert --allow-pickle``) switches to NumPy's
full unpickler, for trusted files holding something else. Plain numeric arrays
never use pickle.
"""

from __future__ import annotations

import os
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any, Literal, Sequence

import numpy as np
from flint import fmpq

from .fileio import existing_file
from .qq import check_float_mode
from .errors import ExactnetError, FormatError, ShapeError, ValueRangeError
from .network import Layer, Network
from .qq import FloatMode, from_float, parse_q

__all__ = ["load_npz", "array_to_q", "layers_from_arrays", "Layout"]

Layout = Literal["auto", "rows", "columns"]

_NAMED = re.compile(r"([Wb])([1-9][0-9]*)\Z")


_check_mode = check_float_mode


def array_to_q(arr: Any, float_mode: FloatMode | None, name: str) -> list:
    """Convert a numeric array to nested lists of ``fmpq`` (same shape), exactly.

    Integer arrays need no mode. Float arrays need ``float_mode``; NaN/inf raise
    :class:`ValueRangeError` naming ``name`` and the index.
    """
    _check_mode(float_mode)
    a = np.asarray(arr)
    dtype_name = a.dtype.name
    a = _widen_exactly(a)
    kind = a.dtype.kind
    if kind in "iu":
        flat = [fmpq(int(v)) for v in a.reshape(-1).tolist()]
    elif kind == "f":
        bad = ~np.isfinite(a)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueRangeError(f"{name} at index {list(idx)} is {float(a[idx])!r}: NaN and infinity are not numbers exactnet accepts")
        if float_mode is None:
            raise FormatError(
                f"{name} holds {dtype_name} floats: choose how to turn them into rationals with "
                "--float-mode exact (the binary value) or --float-mode decimal (the shortest decimal); "
                "in Python pass float_mode='exact' or 'decimal'"
            )
        flat = _floats_to_q(a.reshape(-1), float_mode)
    elif kind == "b":
        raise FormatError(f"{name} is a boolean array, not numbers")
    elif kind == "c":
        raise FormatError(f"{name} holds complex numbers")
    else:
        raise FormatError(f"{name} has dtype {dtype_name}, expected integers or floats")
    if a.ndim == 0:
        return flat[0]  # type: ignore[return-value]
    return _reshape(flat, a.shape)


def _widen_exactly(a: np.ndarray) -> np.ndarray:
    """``a`` in a NumPy dtype holding the same values, when its dtype is a small ``ml_dtypes`` format.

    Floats with at most float32's precision and exponent range become ``float32``,
    integer formats (``int4``, ``uint2``, ...) ``int64``: both exact (NaN stays NaN).
    Any other array is returned unchanged.
    """
    if not type(a.dtype).__module__.startswith("ml_dtypes") and not type(a.dtype.type).__module__.startswith(
        "ml_dtypes"
    ):
        return a
    import ml_dtypes  # present: the dtype comes from it

    try:
        ml_dtypes.iinfo(a.dtype)
    except (ValueError, TypeError):
        pass
    else:
        return a.astype(np.int64)
    try:
        fi = ml_dtypes.finfo(a.dtype)
    except (ValueError, TypeError):
        return a
    f32 = np.finfo(np.float32)
    # every value is a multiple of tiny * eps with at most f32's mantissa bits and at most f32's max,
    # so it is a float32 (normal, or subnormal: a multiple of 2^-149 below 2^-126)
    quantum = float(fi.tiny) * float(fi.eps)
    if float(fi.eps) >= float(f32.eps) and float(fi.max) <= float(f32.max) and quantum >= float(f32.smallest_subnormal):
        return a.astype(np.float32)
    return a


def _clip(text: str, limit: int = 160) -> str:
    """The first line of ``text``, shortened at a word boundary to about ``limit`` characters."""
    lines = text.strip().splitlines()
    first = lines[0].strip() if lines else ""
    if len(first) <= limit:
        return first
    cut = first[:limit].rsplit(" ", 1)[0].rstrip(" ,;:(")
    return cut + " ..."


def _floats_to_q(flat: np.ndarray, mode: FloatMode) -> list[fmpq]:
    if mode == "exact" and flat.dtype.itemsize > 8:
        # long double: its binary value, not that of the nearest float64
        return [fmpq(*(int(t) for t in v.as_integer_ratio())) for v in flat]
    if mode == "exact" or flat.dtype == np.float64:
        return [from_float(v, mode) for v in flat.astype(np.float64).tolist()]
    # decimal mode in the array's own precision (float16 / float32): shortest repr there
    return [parse_q(np.format_float_positional(v, unique=True, trim="0")) for v in flat]


def _reshape(flat: list, shape: Sequence[int]) -> list:
    if len(shape) == 1:
        return list(flat)
    step = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    return [_reshape(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _as_matrix(a: np.ndarray, name: str) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim != 2:
        raise ShapeError(f"{name} must be a matrix, got shape {tuple(a.shape)}")
    if 0 in a.shape:
        raise ShapeError(f"{name} is empty (shape {tuple(a.shape)})")
    return a


def _as_vector(a: np.ndarray, name: str) -> np.ndarray:
    a = np.asarray(a)
    if a.ndim == 2 and 1 in a.shape:
        a = a.reshape(-1)
    if a.ndim != 1:
        raise ShapeError(f"{name} must be a vector (or an n x 1 column), got shape {tuple(a.shape)}")
    if a.shape[0] == 0:
        raise ShapeError(f"{name} is empty")
    return a


def _chains(shapes: list[tuple[int, int]], widths: list[int], transpose: bool) -> bool:
    prev = None
    for (r, c), n in zip(shapes, widths):
        out, inp = (c, r) if transpose else (r, c)
        if out != n or (prev is not None and inp != prev):
            return False
        prev = out
    return True


def layers_from_arrays(
    weights: Sequence[np.ndarray],
    biases: Sequence[np.ndarray],
    float_mode: FloatMode | None,
    layout: Layout = "rows",
    names: Sequence[tuple[str, str]] | None = None,
    ambiguous_ok: bool = True,
) -> tuple[list[Layer], str]:
    """Build exact layers from weight matrices and bias vectors; returns ``(layers, layout_used)``."""
    if len(weights) == 0:
        raise ShapeError("no layers found (a network needs at least one layer)")
    if len(weights) != len(biases):
        raise ShapeError(f"{len(weights)} weight matrices but {len(biases)} bias vectors")
    names = list(names or [(f"weights[{k}]", f"biases[{k}]") for k in range(len(weights))])
    Ws = [_as_matrix(w, nw) for w, (nw, _) in zip(weights, names)]
    bs = [_as_vector(b, nb) for b, (_, nb) in zip(biases, names)]
    shapes = [tuple(int(s) for s in w.shape) for w in Ws]
    widths = [int(b.shape[0]) for b in bs]
    if layout not in ("auto", "rows", "columns"):
        raise ValueRangeError(f"unknown layout {layout!r}: use 'auto', 'rows' or 'columns'")
    if layout == "auto":
        rows_ok = _chains(shapes, widths, False)
        cols_ok = _chains(shapes, widths, True)
        if rows_ok and cols_ok and not ambiguous_ok:
            raise ShapeError(
                "every weight matrix is square, so the layout is ambiguous: pass layout='rows' "
                "(n_l x n_(l-1), z = W h + b) or layout='columns' (n_(l-1) x n_l, z = h @ A + b); "
                "CLI: --npz-layout rows|columns"
            )
        layout = "rows" if rows_ok else ("columns" if cols_ok else "rows")
    transpose = layout == "columns"
    prev = None
    for k, ((r, c), n, (nw, nb)) in enumerate(zip(shapes, widths, names), start=1):
        out, inp = (c, r) if transpose else (r, c)
        if out != n:
            raise ShapeError(
                f"layer {k}: {nw} has shape {r} x {c} ({layout} layout: {out} neurons) but {nb} has {n} entries"
            )
        if prev is not None and inp != prev:
            raise ShapeError(
                f"layer {k}: {nw} takes {inp} inputs but layer {k - 1} has {prev} neurons (shapes do not chain)"
            )
        prev = out
    layers = []
    for W, b, (nw, nb) in zip(Ws, bs, names):
        Wq = array_to_q(W.T if transpose else W, float_mode, nw)
        bq = array_to_q(b, float_mode, nb)
        layers.append(Layer(tuple(tuple(r) for r in Wq), tuple(bq)))
    return layers, layout


def _object_list(a: np.ndarray, name: str) -> list[np.ndarray]:
    """A list of arrays from an object array or a stacked numeric array."""
    if a.dtype == object:
        items = list(a.reshape(-1)) if a.ndim == 1 else list(a)
        out = []
        for k, it in enumerate(items):
            if isinstance(it, (list, tuple)):
                it = np.asarray(it)
            if not isinstance(it, np.ndarray):
                raise FormatError(f"{name}[{k}] is a {type(it).__name__}, expected an array")
            out.append(it)
        return out
    if a.dtype.kind in "iuf" and a.ndim >= 2:
        # all layers had the same shape, so np.savez stacked them into one array
        return [a[k] for k in range(a.shape[0])]
    raise FormatError(f"{name} must be a list of arrays (object array), got dtype {a.dtype} shape {a.shape}")


_SAFE_GLOBALS = {
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("_codecs", "encode"),
}


class _ArrayUnpickler(pickle.Unpickler):
    """An unpickler that can only rebuild NumPy arrays and dtypes."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"global {module}.{name} is not allowed")


def _read_object_npy(fp: Any, what: str) -> np.ndarray:
    """Read one ``.npy`` stream holding an object array with the restricted unpickler."""
    try:
        version = np.lib.format.read_magic(fp)
    except ValueError as e:
        raise FormatError(f"{what}: not a .npy array ({e})") from None
    if version not in ((1, 0), (2, 0)):
        raise FormatError(f"{what}: .npy format version {version} is not supported for object arrays")
    try:
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(fp)
    except Exception as e:  # a corrupt header: NumPy parses it with Python's tokenizer (many error types)
        raise FormatError(f"{what}: not a .npy array (bad header: {type(e).__name__})") from None
    if dtype != object:
        raise FormatError(f"{what}: expected an object array")
    try:
        arr = _ArrayUnpickler(fp, encoding="latin1").load()
    except pickle.UnpicklingError as e:
        raise FormatError(
            f"{what}: the pickled object array holds more than NumPy arrays ({e}); if you trust the file, "
            "pass allow_pickle=True (CLI: exactnet convert --allow-pickle)"
        ) from None
    except Exception as e:  # truncated or corrupt pickle data
        raise FormatError(f"{what}: cannot read the object array ({type(e).__name__}: {e})") from None
    if not isinstance(arr, np.ndarray):
        raise FormatError(f"{what}: the pickled data is a {type(arr).__name__}, not an array")
    return arr.reshape(shape, order="F" if fortran else "C") if arr.shape != tuple(shape) else arr


def load_npz(
    path: str | os.PathLike,
    float_mode: FloatMode | None = None,
    allow_pickle: bool = False,
    layout: Layout = "auto",
) -> Network:
    """Load a network from an ``.npz`` (or ``.npy``) file; see the module docstring for layouts."""
    _check_mode(float_mode)
    p = existing_file(path)
    try:
        data = np.load(p, allow_pickle=allow_pickle)
    except MemoryError:
        raise ValueRangeError(f"{p}: the array's header asks for more memory than there is") from None
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, pickle.UnpicklingError) as e:
        with open(p, "rb") as fh:
            head = fh.read(16)
        is_npy = head.startswith(b"\x93NUMPY")
        if not is_npy and not head.startswith(b"PK"):  # neither a .npy nor a zip (.npz)
            raise FormatError(f"{p}: not a NumPy .npz/.npy file ({_describe_head(head, allow_pickle)})") from None
        if not ("allow_pickle" in str(e) and is_npy):
            raise FormatError(f"{p}: not a NumPy .npz/.npy file ({_clip(str(e)) or type(e).__name__})") from None
        with open(p, "rb") as fh:  # a .npy object array: read it with the restricted unpickler
            data = _read_object_npy(fh, str(p))
    except Exception as e:  # a corrupt .npy header (NumPy parses it with Python's tokenizer) and the like
        raise FormatError(f"{p}: not a NumPy .npz/.npy file ({type(e).__name__}: {_clip(str(e))})") from None
    try:
        if isinstance(data, np.ndarray):  # .npy
            arrays = {"arr_0": data}
        elif not hasattr(data, "files"):  # allow_pickle=True on a plain pickle of something else
            raise FormatError(f"{p}: holds a pickled {type(data).__name__}, not NumPy arrays (.npz/.npy)")
        else:
            arrays = {}
            for key in data.files:
                try:
                    arrays[key] = data[key]
                except ValueError as e:
                    if "allow_pickle" not in str(e):
                        raise FormatError(f"{p}: cannot read array {key!r}: {e}") from None
                    try:
                        with zipfile.ZipFile(p) as zf, zf.open(f"{key}.npy") as fh:
                            arrays[key] = _read_object_npy(fh, f"{p}: array {key!r}")
                    except (KeyError, OSError, zipfile.BadZipFile) as e2:
                        raise FormatError(f"{p}: cannot read array {key!r}: {e2}") from None
                except (OSError, EOFError, zipfile.BadZipFile) as e:
                    raise FormatError(f"{p}: cannot read array {key!r}: {e}") from None
                except MemoryError:
                    raise ValueRangeError(
                        f"{p}: array {key!r} asks for more memory than there is (shape in its header)"
                    ) from None
                except ExactnetError:
                    raise
                except Exception as e:  # a corrupt header (NumPy parses it with Python's tokenizer), ...
                    raise FormatError(f"{p}: cannot read array {key!r} ({type(e).__name__}: {_clip(str(e))})") from None
                if not isinstance(arrays[key], np.ndarray):  # NumPy hands back the raw bytes of a non-.npy member
                    raise FormatError(f"{p}: member {key!r} is not a NumPy array (.npy data)")
    finally:
        if hasattr(data, "close"):
            data.close()
    try:
        return _network_from_arrays(arrays, float_mode, layout, p)
    except ExactnetError as e:
        if str(e).startswith(str(p)):
            raise
        raise type(e)(f"{p}: {e}") from None


def _describe_head(head: bytes, allow_pickle: bool) -> str:
    """Why a file that starts with ``head`` (neither ``\\x93NUMPY`` nor a zip) is not NumPy's."""
    if not head:
        return "the file is empty"
    if head[:1] == b"\x80" and not allow_pickle:
        return (
            "it is a Python pickle, not the NumPy format; if you trust the file, pass allow_pickle=True "
            "(CLI: exactnet convert --allow-pickle)"
        )
    if head[:1] == b"\x80":
        return "it is a Python pickle, not the NumPy format"
    return f"it starts with {head!r}, not with the .npy magic b'\\x93NUMPY' or a zip header"


def _network_from_arrays(arrays: dict[str, np.ndarray], float_mode, layout: Layout, p: Path) -> Network:
    named = {k: v for k, v in arrays.items() if _NAMED.match(k)}
    source: dict[str, Any] = {"file": p.name, "converter": "exactnet.convert_numpy"}
    if named:
        nums = sorted({int(_NAMED.match(k).group(2)) for k in named})  # type: ignore[union-attr]
        if nums != list(range(1, len(nums) + 1)):
            raise ShapeError(f"{p}: layer numbers {nums} have gaps (expected W1, b1, W2, b2, ...)")
        for n in nums:
            for pre in "Wb":
                if f"{pre}{n}" not in named:
                    raise ShapeError(f"{p}: {pre}{n} is missing (every layer needs W<l> and b<l>)")
        Ws = [named[f"W{n}"] for n in nums]
        bs = [named[f"b{n}"] for n in nums]
        for key, a in [(f"W{n}", named[f"W{n}"]) for n in nums] + [(f"b{n}", named[f"b{n}"]) for n in nums]:
            if a.dtype == object:
                raise FormatError(f"{p}: {key} is an object array, expected a numeric array")
        layers, used = layers_from_arrays(
            Ws, bs, float_mode, layout, names=[(f"W{n}", f"b{n}") for n in nums], ambiguous_ok=True
        )
        source["layout"] = f"named W<l>/b<l>, {used}"
    elif "arr_0" in arrays:
        a0 = arrays["arr_0"]
        if "arr_1" in arrays:
            Ws = _object_list(a0, "arr_0")
            bs = _object_list(arrays["arr_1"], "arr_1")
        elif a0.dtype == object and a0.ndim >= 1 and a0.shape[0] == 2:
            Ws = _object_list(np.asarray(a0[0]) if not isinstance(a0[0], np.ndarray) else a0[0], "arr_0[0]")
            bs = _object_list(np.asarray(a0[1]) if not isinstance(a0[1], np.ndarray) else a0[1], "arr_0[1]")
        else:
            raise FormatError(f"{p}: expected arr_0 (weights) and arr_1 (biases), found only arr_0")
        names = [(f"arr_0[{k}]", f"arr_1[{k}]") for k in range(len(Ws))]
        layers, used = layers_from_arrays(Ws, bs, float_mode, layout, names=names, ambiguous_ok=False)
        source["layout"] = f"arr_0/arr_1 lists, {used}" + (" (transposed)" if used == "columns" else "")
    else:
        keys = ", ".join(sorted(arrays)) or "none"
        raise FormatError(
            f"{p}: no network found (arrays: {keys}); expected W1, b1, W2, b2, ... or arr_0/arr_1 lists"
        )
    if float_mode is not None:
        source["float_mode"] = float_mode
    return Network(layers, metadata={"source": source})
