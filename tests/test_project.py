"""Project rules that can be checked: the README's test command is what CI runs; public APIs are explicit."""

import importlib
import pkgutil
import re
from pathlib import Path

from hypothesis import find

import exactnet
from exactnet.strategies import networks, rationals

ROOT = Path(__file__).resolve().parents[1]


def test_ci_runs_exactly_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```\n(.*?)\n```", readme, flags=re.S)
    commands = [b.strip() for b in blocks if "pytest" in b and "\n" not in b.strip()]
    assert commands, "README has no one-line test command"
    ci = [l.strip() for l in (ROOT / ".ci" / "run").read_text().splitlines()
          if l.strip() and not l.startswith("#") and not l.startswith(("set ", "cd "))]
    assert ci == [commands[0]]


def test_every_module_has_a_docstring_and_all():
    for mod in pkgutil.walk_packages(exactnet.__path__, "exactnet."):
        if mod.name.endswith("__main__"):
            continue
        m = importlib.import_module(mod.name)
        assert m.__doc__ and m.__doc__.strip(), f"{mod.name} has no module docstring"
        assert hasattr(m, "__all__"), f"{mod.name} has no __all__"
        for name in m.__all__:
            assert hasattr(m, name), f"{mod.name}.__all__ names missing {name}"


def test_strategies_shrink_towards_small_numbers():
    q = find(rationals(), lambda v: v > 2)
    assert q.q == 1 and q.p == 3  # smallest integer above 2
    net = find(networks(arch=(1, 2, 1)), lambda n: n.weights(1)[0][0] != 0)
    assert abs(net.weights(1)[0][0]) == 1
    assert sum(v != 0 for v in net.flatten()) == 1
