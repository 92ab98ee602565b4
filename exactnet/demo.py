"""``exactnet demo``: the main job on the built-in examples, in seconds.

It shows, for theory.md's examples A and C: the architecture and counts, exact
evaluation, the canonical form, and every analysis that is installed (functional
dimension, certification and the independent check of each certificate,
pictures). Each step prints one short human line.
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
from pathlib import Path

from .examples import example, example_description
from .netjson import dumps_network
from .qq import q_str
from .symmetry import canonical_form, same_orbit

__all__ = ["run_demo"]


def _have(mod: str) -> bool:
    return importlib.util.find_spec(f"exactnet.{mod}") is not None


def run_demo(args: argparse.Namespace) -> int:
    out_dir = Path(args.output_dir) if args.output_dir else Path(tempfile.mkdtemp(prefix="exactnet-demo-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in ("A", "C"):
        net = example(name)
        print(f"== example {name}: {example_description(name)}")
        print(f"   architecture {','.join(map(str, net.architecture))}: D = {net.num_parameters} parameters, "
              f"N = {net.num_hidden} hidden neurons, bound D - N = {net.num_parameters - net.num_hidden}")
        x = ["1/2", "-3"]
        print(f"   f(1/2,-3) = {','.join(q_str(v) for v in net.evaluate(x))} (exact)")
        canon = canonical_form(net)
        print(f"   canonical form: first layer rows "
              + "; ".join(",".join(q_str(v) for v in row) for row in canon.weights(1)))
        (out_dir / f"example_{name.lower()}.json").write_text(dumps_network(net), encoding="utf-8")
    a = example("A")
    from .network import Network

    flipped = Network.from_lists([([[-1, 0], [0, -1], [1, 1]], [0, 0, -1]), ([[1, 1, 1]], [1])])
    same_fn = all(a.evaluate(p) == flipped.evaluate(p) for p in [[0, 0], [1, 2], ["-1/3", "5/7"], [3, -4]])
    print(f"== example A flipped: same outputs at sample points: {same_fn}; same orbit: {same_orbit(a, flipped)}"
          " (a hidden symmetry; 'exactnet certify' proves it when installed)")
    if _have("demo_extra"):
        from .demo_extra import run_extra

        return run_extra(out_dir)
    print(f"files written to {out_dir}")
    return 0
