"""``exactnet demo``: the main job on the built-in examples, in seconds.

For theory.md's examples A and C it prints the architecture and counts, an exact
evaluation and the canonical form; certifies both (``exactnet certify``), runs the
independent checker on every certificate it wrote, proves that C needs two hidden
layers (``NOT-SHALLOW``) and, when matplotlib is installed, draws C's arrangement and
dependency graph, and certifies IDENTIFIABLE a two-hidden-layer network (rule deep-2), a
three-hidden-layer one (rule deep-3) and a four-hidden-layer one (rule deep-n). Everything it writes goes to ``--output-dir`` (default: a new
temporary folder).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from .certificate import check_certificate_text
from .certify import certify
from .examples import example, example_description
from .fdim import certify_local
from .fileio import make_folder
from .netjson import dumps_network
from .qq import q_str
from .randnet import random_network
from .symmetry import canonical_form

__all__ = ["run_demo"]


def _check(text: str, net, path: Path) -> str:
    path.write_text(text, encoding="ascii")
    res = check_certificate_text(text, network=net)
    return f"checker: {'s VERIFIED ' + str(res.conclusion) if res.verified else 's NOT VERIFIED'}  ({path.name})"


def run_demo(args: argparse.Namespace) -> int:
    out = Path(args.output_dir) if args.output_dir else Path(tempfile.mkdtemp(prefix="exactnet-demo-"))
    make_folder(out)
    ok = True
    for name in ("A", "C"):
        net = example(name)
        stem = f"example_{name.lower()}"
        (out / f"{stem}.json").write_text(dumps_network(net), encoding="utf-8")
        print(f"== example {name}: {example_description(name)}")
        print(f"   architecture {','.join(map(str, net.architecture))}: D = {net.num_parameters} parameters, "
              f"N = {net.num_hidden} hidden neurons, so the functional dimension is at most D - N = "
              f"{net.num_parameters - net.num_hidden}")
        print(f"   f(1/2,-3) = {','.join(q_str(v) for v in net.evaluate(['1/2', '-3']))} (exact)")
        print("   canonical form, first layer: "
              + "; ".join("(" + ",".join(q_str(v) for v in row) + ")" for row in canonical_form(net).weights(1)))
        res = certify(net)
        print(f"   certify: {res.verdict}" + (f" [{res.mechanism}]" if res.mechanism else "") + f": {res.reason}")
        if res.certificate:
            line = _check(res.certificate, net, out / f"{stem}.cert")
            ok &= "s VERIFIED" in line
            print(f"   {line}")
        if res.other is not None:
            (out / f"{stem}_theta_prime.json").write_text(dumps_network(res.other), encoding="utf-8")
            print(f"   theta' (same function, outside the orbit): {stem}_theta_prime.json")
        if res.verdict != "LOCALLY-IDENTIFIABLE":
            loc = certify_local(net)
            print(f"   local: {loc.verdict}: {loc.reason}")
            if loc.certificate:
                line = _check(loc.certificate, net, out / f"{stem}_local.cert")
                ok &= "s VERIFIED" in line
                print(f"   {line}")
    c = example("C")
    try:
        from .cert_depth import not_shallow_certificate

        text = not_shallow_certificate(c)
        line = _check(text, c, out / "example_c_not_shallow.cert")
        ok &= "s VERIFIED" in line
        print(f"== example C needs two hidden layers (NOT-SHALLOW): {line}")
    except Exception as e:  # noqa: BLE001 - the demo reports and goes on
        print(f"== NOT-SHALLOW for example C: not available ({e})")
        ok = False
    from .deep3_identifiable import family_network

    for what, deep, name in (  # the networks of the paper certificates for rules deep-2, deep-3, deep-n
            ("a two-hidden-layer network (exactnet random --arch 2,3,3,1 --seed 0 --max-num 4 --max-den 3)",
             random_network((2, 3, 3, 1), 0, max_num=4, max_den=3), "identifiable_2-3-3-1"),
            ("a three-hidden-layer network (family_network(46), examples/identifiable_2-2-2-2-1.json)",
             family_network(46), "identifiable_2-2-2-2-1"),
            ("a four-hidden-layer network (family_network(20, n3=3, levels=2), "
             "examples/identifiable_2-2-2-2-3-1.json)", family_network(20, n3=3, levels=2),
             "identifiable_2-2-2-2-3-1")):
        res = certify(deep)
        print(f"== {what}: {res.verdict}: {res.reason}")
        ok &= res.certificate is not None
        if res.certificate is not None:
            line = _check(res.certificate, deep, out / f"{name}.cert")
            ok &= "s VERIFIED" in line
            print(f"   {line}")
    try:
        from .plotting import write_example_pictures

        pics = write_example_pictures(c, out, stem="example_c")
        print("== pictures of example C: " + ", ".join(p.name for p in pics))
    except Exception as e:  # noqa: BLE001 - matplotlib is an optional extra
        print(f"== pictures skipped: {e}")
    print(f"files written to {out}")
    return 0 if ok else 1
