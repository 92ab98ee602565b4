"""Pictures, the HTML report and the graph/plot/depth/report commands."""

import builtins
import json

import pytest

pytest.importorskip("matplotlib")

from exactnet.cli import main  # noqa: E402
from exactnet.errors import DependencyError  # noqa: E402
from exactnet.examples import example  # noqa: E402
from exactnet.network import Network  # noqa: E402
from exactnet.plotting import arrangement_box, plot_arrangement, plot_graph, write_example_pictures  # noqa: E402
from exactnet.randnet import random_network  # noqa: E402
from exactnet.regions import compute_regions  # noqa: E402
from exactnet.report import build_report  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def test_box_contains_every_vertex_with_margin():
    for net in (example("C"), random_network((2, 3, 3, 1), seed=1)):
        lo, hi = arrangement_box(net)
        verts = compute_regions(net).vertex_set()
        assert verts
        assert all(lo < c < hi for v in verts for c in v)


def test_pictures_for_each_input_width(tmp_path):
    assert plot_arrangement(example("C"), str(tmp_path / "c.png")).startswith(PNG)
    assert (tmp_path / "c.png").read_bytes().startswith(PNG)
    one = Network.from_lists([([[1], [-1], [2]], [0, 1, -3]), ([[1, -2, 1], [1, 1, 0], [0, 1, -1]], [0, 0, 1]), ([[1, 1, -1]], [0])])
    assert plot_arrangement(one).startswith(PNG)
    three = random_network((3, 3, 2, 1), seed=2)
    assert plot_arrangement(three, slice_=([0, 0, 0], [1, 0, 1], [0, 1, "1/2"])).startswith(PNG)
    assert plot_arrangement(three).startswith(PNG)  # default slice: the x1-x2 plane


def test_example_pictures(tmp_path):
    paths = write_example_pictures(example("C"), tmp_path, stem="example_c")
    assert [p.name for p in paths] == ["example_c_arrangement.png", "example_c_graph.png"]
    assert all(p.read_bytes().startswith(PNG) for p in paths)


def test_missing_matplotlib_is_a_dependency_error(monkeypatch):
    real = builtins.__import__

    def fake(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError("no matplotlib")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    from exactnet.depgraph import dependency_graph

    with pytest.raises(DependencyError):
        plot_graph(dependency_graph(example("C")))


def test_report_is_self_contained():
    text = build_report(example("C"))
    assert text.startswith("<!DOCTYPE html>")
    assert text.count("data:image/png;base64,") == 2
    assert "NOT-SHALLOW" in text and "-46/735,187/735" in text
    assert "src='http" not in text and 'src="http' not in text
    assert "1 1/3<br>-1/2 1" in text  # W_1 rows, one per line


def test_commands(tmp_path, capsys):
    net = tmp_path / "c.json"
    from exactnet.netjson import dumps_network

    net.write_text(dumps_network(example("C")))
    for ext in ("json", "graphml", "dot", "png"):
        assert main(["graph", str(net), "-o", str(tmp_path / f"g.{ext}")]) == 0
        assert (tmp_path / f"g.{ext}").stat().st_size > 0
    capsys.readouterr()
    assert main(["depth", str(net), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["proven_lower_bound_hidden_layers"] == 2 and out["not_shallow"]
    assert main(["plot", str(net), "-o", str(tmp_path / "a.png"), "--box", "-2,2"]) == 0
    assert main(["plot", str(net), "-o", str(tmp_path / "g2.png"), "--graph"]) == 0
    assert main(["report", str(net), "-o", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").read_text().count("base64,") == 2
    assert main(["plot", str(net), "-o", str(tmp_path / "a.jpg")]) == 2
    assert main(["graph", str(net), "-o", str(tmp_path / "g.xyz")]) == 2
    assert main(["plot", str(net), "-o", str(tmp_path / "a.png"), "--box", "2,-2"]) == 2


def test_plot_slice_command(tmp_path):
    from exactnet.netjson import dumps_network

    net = tmp_path / "n3.json"
    net.write_text(dumps_network(random_network((3, 2, 2, 1), seed=4)))
    out = tmp_path / "s.png"
    assert main(["plot", str(net), "--slice", "0,0,0;1,0,0;0,1,1/2", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(PNG)
    assert main(["plot", str(net), "--slice", "0,0,0,1,0,0", "-o", str(out)]) == 2  # too few numbers
    assert main(["plot", str(net), "--slice", "0,0,0,1,0,0,2,0,0", "-o", str(out)]) == 2  # collinear


def test_face_graph_command(tmp_path, capsys):
    from exactnet.netjson import dumps_network

    net = tmp_path / "c.json"
    net.write_text(dumps_network(example("C")))
    assert main(["graph", str(net), "--faces", "--json", "-o", str(tmp_path / "f.graphml")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["faces"] == 12 and out["edges"] > 0  # the 12 faces of example C's complex
