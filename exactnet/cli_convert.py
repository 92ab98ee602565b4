"""The ``exactnet convert`` subcommand: NumPy / PyTorch / ONNX / JSON in, JSON or ONNX out.

``exactnet convert INPUT -o OUT.json [--float-mode exact|decimal]``

There is **no default float mode**. Float weights (every PyTorch and ONNX file, and
float ``.npz`` arrays) are refused until the user says how to read them: ``exact``
keeps each float's binary value (``0.1 -> 3602879701896397/36028797018963968``),
``decimal`` keeps its shortest decimal (``0.1 -> 1/10``). The two give different
networks with different answers, so exactnet does not choose silently; integer
``.npz`` arrays and JSON files need no mode. The mode and the source file are
recorded in the output's ``metadata.source``.

The output is written atomically with :func:`exactnet.netio.save_network`
(``.json``, or ``.onnx`` which rounds to float64).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .cli_common import check_outputs, print_json, refuse_stdio
from .errors import FileAccessError, FormatError
from .netio import load_network, save_network
from .network import Network

__all__ = ["register", "convert_file"]

_OUT_EXT = (".json", ".onnx")


def convert_file(
    src: str | Path,
    dst: str | Path,
    float_mode: str | None = None,
    allow_pickle: bool = False,
    npz_layout: str = "auto",
) -> Network:
    """Read ``src`` (any supported format), write ``dst`` (``.json`` / ``.onnx``); returns the network."""
    src, dst = Path(src), Path(dst)
    if dst.suffix.lower() not in _OUT_EXT:
        raise FormatError(f"{dst}: the output must end in .json or .onnx")
    ext = src.suffix.lower()
    if not src.exists():
        raise FileAccessError(f"file not found: {src}")
    if ext in (".npz", ".npy"):
        from .convert_numpy import load_npz

        net = load_npz(src, float_mode=float_mode, allow_pickle=allow_pickle, layout=npz_layout)  # type: ignore[arg-type]
    elif ext in (".pt", ".pth"):
        from .convert_torch import load_torch

        net = load_torch(src, float_mode=float_mode, allow_pickle=allow_pickle)  # type: ignore[arg-type]
    else:
        net = load_network(src, float_mode=float_mode)  # type: ignore[arg-type]
    meta = dict(net.metadata)
    earlier = meta.get("source")
    # a JSON input's own "source" may be any JSON value (a string naming a paper): kept, not a crash
    src_meta = dict(earlier) if isinstance(earlier, dict) else ({} if earlier is None else {"original": earlier})
    src_meta.setdefault("file", src.name)
    src_meta["float_mode"] = float_mode
    meta["source"] = src_meta
    out = Network(net.layers, name=net.name or src.stem, metadata=meta)
    save_network(out, dst)
    return out


def _cmd_convert(args: argparse.Namespace) -> int:
    refuse_stdio(args.input, "convert's input (a .json, .npz, .pt or .onnx file)")
    check_outputs([args.output], [args.input])
    net = convert_file(args.input, args.output, args.float_mode, args.allow_pickle, args.npz_layout)
    if Path(args.output).suffix.lower() == ".onnx":  # ONNX stores float64: say what was rounded
        from .convert_onnx import rounding_note

        note = rounding_note(net)
        if note:
            print(f"exactnet: note: {note}", file=sys.stderr)
    info = {
        "input": args.input,
        "output": args.output,
        "architecture": list(net.architecture),
        "parameters": net.num_parameters,
        "float_mode": args.float_mode,
        "source": net.metadata.get("source"),
    }
    if args.json:
        print_json(info)
    else:
        mode = args.float_mode or "none needed"
        print(f"wrote {args.output}: architecture {','.join(map(str, net.architecture))}, "
              f"{net.num_parameters} parameters (float mode: {mode})")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``convert`` to the ``exactnet`` command line."""
    p = subparsers.add_parser(
        "convert",
        help="convert a NumPy .npz, PyTorch .pt or ONNX network to exactnet JSON (or ONNX)",
        description="Convert a network file. Floats are never turned into rationals silently: "
        "float sources (.pt, .onnx, float .npz) need --float-mode.",
    )
    p.add_argument("input", metavar="INPUT", help="network file: .npz/.npy, .pt/.pth, .onnx or .json")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="output file, .json (exact) or .onnx (float64)")
    p.add_argument(
        "--float-mode",
        choices=("exact", "decimal"),
        default=None,
        help="required for float weights: 'exact' = each float's binary value (0.1 -> "
        "3602879701896397/36028797018963968), 'decimal' = its shortest decimal (0.1 -> 1/10)",
    )
    p.add_argument("--allow-pickle", action="store_true",
                   help="use the full pickle loader for .npz object arrays that hold more than NumPy arrays and "
                   "for PyTorch models with custom classes (pickle can run code: only for files you trust; "
                   "plain arrays, arr_0/arr_1 lists and Sequential models of Linear/ReLU never need it)")
    p.add_argument("--npz-layout", choices=("auto", "rows", "columns"), default="auto",
                   help="orientation of .npz weight matrices: rows = n_l x n_(l-1) (z = W h + b), "
                   "columns = n_(l-1) x n_l (z = h @ A + b, Carlini et al.); auto decides from the shapes")
    p.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")
    p.set_defaults(func=_cmd_convert)
