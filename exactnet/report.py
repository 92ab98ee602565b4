"""One self-contained HTML page summarising a network (pictures embedded as PNG data).

Layer: presentation on top of every analysis. A report is a list of *sections*; each
section is produced by a function ``section(net, ctx) -> Section | None`` registered
in :data:`SECTIONS` (later analyses append theirs: identifiability, equivalence, ...).
A section that needs a missing optional dependency says so instead of failing the page, and
so does a picture that cannot be drawn (the exact tables are still written).
Numbers are exact (canonical strings); floats appear only inside pictures.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from typing import Callable

from .errors import DependencyError, ExactnetError
from .fileio import atomic_write_text
from .network import Network
from .qq import q_str

__all__ = ["Section", "SECTIONS", "register_section", "build_report", "write_report"]


@dataclass
class Section:
    """A titled block: ``facts`` (label, value) rows, free ``html`` and PNG ``images``."""

    title: str
    facts: list[tuple[str, str]] = field(default_factory=list)
    html: str = ""
    images: list[tuple[str, bytes]] = field(default_factory=list)


SectionFn = Callable[[Network, dict], "Section | None"]
SECTIONS: list[SectionFn] = []


def register_section(fn: SectionFn) -> SectionFn:
    """Add a section producer (used as a decorator); sections appear in registration order."""
    SECTIONS.append(fn)
    return fn


@register_section
def _architecture(net: Network, ctx: dict) -> Section:
    s = Section("Network")
    s.facts += [("name", net.name or "(unnamed)"), ("architecture", ",".join(map(str, net.architecture))),
                ("parameters D", str(net.num_parameters)), ("hidden neurons N", str(net.num_hidden)),
                ("hidden layers", str(net.depth - 1)), ("bound on functional dimension D - N", str(net.num_parameters - net.num_hidden))]
    rows = []
    for l in range(1, net.depth + 1):
        W = "<br>".join(html.escape(" ".join(q_str(v) for v in row)) for row in net.weights(l))
        b = html.escape(" ".join(q_str(v) for v in net.biases(l)))
        rows.append(f"<tr><td>{l}</td><td><code>{W}</code></td><td><code>{b}</code></td></tr>")
    s.html = "<table class='w'><tr><th>layer</th><th>W</th><th>b</th></tr>" + "".join(rows) + "</table>"
    return s


@register_section
def _regions(net: Network, ctx: dict) -> Section | None:
    from .regions import compute_regions

    s = Section("Regions and breakpoints")
    try:
        rc = compute_regions(net, box=ctx.get("box"), max_cells=ctx.get("max_cells", 5000))
    except ExactnetError as e:
        s.facts.append(("regions", f"not computed: {e}"))
        return s
    bc = rc.breakpoints()
    where = "R^n0" if rc.box is None else f"the box [{q_str(rc.box[0])}, {q_str(rc.box[1])}]^{net.input_dim}"
    s.facts += [("activation regions", f"{len(rc.cells)} in {where}"), ("linear regions of f", str(bc.linear_regions())),
                ("faces (codimension 1)", f"{len(bc.faces)}, of which {len(bc.visible_faces())} visible")]
    return s


@register_section
def _graph(net: Network, ctx: dict) -> Section:
    from .depgraph import apparent_layers, dependency_graph, longest_bending_chain

    G = dependency_graph(net, box=ctx.get("box"))
    ctx["graph"] = G
    s = Section("Breakpoint dependency graph")
    lab = lambda n: f"{n[0]}.{n[1] + 1}"  # noqa: E731
    vis = [lab(n) for n, d in G.nodes(data=True) if d["visible"]]
    inv = [lab(n) for n, d in G.nodes(data=True) if not d["visible"]]
    s.facts += [("visible neurons", ", ".join(vis) or "none"), ("neurons with no visible cell found", ", ".join(inv) or "none"),
                ("longest bending chain", " -> ".join(lab(n) for n in longest_bending_chain(G)) or "none"),
                ("apparent layers", ", ".join(f"{lab(n)}: {v}" for n, v in sorted(apparent_layers(G).items())) or "none")]
    rows = "".join(f"<tr><td>B_{lab(b)} along B_{lab(a)}</td><td><code>{d['bend']}</code></td><td><code>({d['witness']})</code></td></tr>"
                   for a, b, d in G.edges(data=True))
    s.html = ("<table class='w'><tr><th>edge</th><th>bend vector</th><th>witness point</th></tr>" + rows + "</table>") if rows else ""
    return s


@register_section
def _depth(net: Network, ctx: dict) -> Section:
    from .depth import depth_report

    rep = depth_report(net, box=ctx.get("box"))
    s = Section("Depth")
    s.facts += [("proven lower bound (hidden layers)", f"{rep.proven_lower}: {rep.proven_reason}"),
                ("generic lower bound", f"{rep.generic_lower} (only for representations whose bends are all visible)"),
                ("upper bound", f"{rep.upper} hidden layers suffice")]
    if rep.witness is not None:
        s.html = "<p>NOT-SHALLOW certificate body (checked):</p><pre>" + html.escape("\n".join(rep.witness.body_lines())) + "</pre>"
    return s


@register_section
def _pictures(net: Network, ctx: dict) -> Section:
    s = Section("Pictures")
    try:
        from .plotting import plot_arrangement, plot_graph
    except DependencyError as e:
        s.facts.append(("pictures", str(e)))
        return s
    jobs = []
    if net.input_dim <= 2 or ctx.get("slice") is not None:
        jobs.append(("arrangement", lambda: plot_arrangement(net, box=ctx.get("box"), slice_=ctx.get("slice"))))
    if "graph" in ctx:
        jobs.append(("dependency graph", lambda: plot_graph(ctx["graph"])))
    for cap, draw in jobs:
        # a picture that cannot be drawn leaves a note; the exact sections of the page stay
        try:
            s.images.append((cap, draw()))
        except DependencyError as e:
            s.facts.append(("pictures", str(e)))
            break
        except ExactnetError as e:
            s.facts.append((cap, f"not drawn: {e}"))
    return s


def _render(net: Network, sections: list[Section]) -> str:
    title = html.escape(f"exactnet report: {net.name or 'network'} ({','.join(map(str, net.architecture))})")
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title><style>",
           "body{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}"
           "table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;"
           "text-align:left;vertical-align:top}code,pre{font-size:.85em}img{max-width:100%;display:block;margin:.5em 0}",
           f"</style></head><body><h1>{title}</h1>",
           "<p>Every number is exact; every verdict marked proven comes from a certificate rule of "
           "<code>proofs/</code>. Pictures use floats for drawing only.</p>"]
    for sec in sections:
        out.append(f"<h2>{html.escape(sec.title)}</h2>")
        if sec.facts:
            out.append("<table>" + "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in sec.facts) + "</table>")
        out.append(sec.html)
        for cap, png in sec.images:
            data = base64.b64encode(png).decode("ascii")
            out.append(f"<figure><img alt='{html.escape(cap)}' src='data:image/png;base64,{data}'>"
                       f"<figcaption>{html.escape(cap)}</figcaption></figure>")
    out.append("</body></html>\n")
    return "\n".join(out)


def build_report(net: Network, box=None, slice_=None, sections: list[SectionFn] | None = None) -> str:
    """The HTML text of the report."""
    ctx: dict = {"box": box, "slice": slice_}
    done = []
    for fn in (SECTIONS if sections is None else sections):
        sec = fn(net, ctx)
        if sec is not None:
            done.append(sec)
    return _render(net, done)


def write_report(net: Network, path: str, box=None, slice_=None) -> None:
    """Write the report atomically to ``path``."""
    atomic_write_text(path, build_report(net, box=box, slice_=slice_))
