"""Shared pieces of the command line: loading networks, printing JSON, writing outputs.

Every subcommand module (``exactnet/cli_*.py``) exposes ``register(subparsers)``
and uses these helpers so that all commands read networks, print ``--json`` and
write files the same way (atomically, never a partial file).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .fileio import atomic_write_text
from .netio import load_network
from .network import Network

__all__ = ["add_network_argument", "load_network_arg", "print_json", "write_text_output", "add_json_flag"]


def add_network_argument(parser: argparse.ArgumentParser, dest: str = "network", help: str | None = None) -> None:
    """Add a positional network file argument and the ``--float-mode`` option."""
    parser.add_argument(dest, metavar=dest.upper(), help=help or "network file (.json, .npz, .pt, .onnx)")
    if not any(a.dest == "float_mode" for a in parser._actions):
        parser.add_argument(
            "--float-mode",
            choices=("exact", "decimal"),
            default=None,
            help="how to turn floats of .npz/.pt/.onnx files into rationals: 'exact' (binary value) "
            "or 'decimal' (shortest repr)",
        )


def load_network_arg(args: argparse.Namespace, dest: str = "network") -> Network:
    """Load the network named by ``args.<dest>``."""
    return load_network(getattr(args, dest), float_mode=getattr(args, "float_mode", None))


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="machine-readable JSON on stdout")


def print_json(obj: Any) -> None:
    """Print one JSON document on stdout."""
    sys.stdout.write(json.dumps(obj, indent=2, sort_keys=False) + "\n")


def write_text_output(path: str, text: str) -> None:
    """Write an output file atomically."""
    atomic_write_text(path, text)
