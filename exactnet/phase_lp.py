"""The node LPs of the activation-phase branch and bound (:func:`exactnet.fdim._neuron_never_positive`).

A node of that branch and bound fixes some hidden neurons *active* (``h = y >= 0``) or
*inactive* (``h = 0 >= y``) and relaxes the others to ``h >= 0, h >= y``; it maximises ``t``
under ``e(v) - t >= 0`` for the expressions required positive. Every node has the same
variables and the same constraint rows; only which of them are switched on differs. So one
HiGHS model is built once per proof, with three rows per neuron whose *bounds* encode its
phase::

    h         in [0, inf)   (inactive: [0, 0])
    h - y     in [0, inf)   (active:   [0, 0])
    y         free          (active: [0, inf), inactive: (-inf, 0])

and each node only changes row bounds and re-solves from the previous basis (dual simplex
warm start). The columns are boxed to ``|v_j| <= 1e6`` (:data:`COLUMN_BOX`) in the HiGHS model
only: a node whose relaxation is unbounded then has an optimal point far out along its ray, which
chooses the branching neuron, from one solve (it took a second, bounded solve before: about 1.7x
the CPU time per node on the width-15 depth-6 proofs, with trees of about the same size). A node
whose float optimum leans on that box fails the exact check (no certificate uses it) and goes to
the fallback below, whose columns are free. Against one ``scipy.optimize.linprog`` call per node
the warm-started model is about 3-5 times faster per node (measured on the width-10 depth-6
proofs of ``benchmarks/bench_fdim.py``), so the same CPU budget proves more.

**Floats only propose.** HiGHS returns a primal point, row duals, or a dual ray (for an
infeasible node). The rows with a nonzero dual (or ray entry) and the side their sign names
are handed to :func:`exactnet.fdim._exact_multipliers`, which solves for the multipliers in
``fmpq`` and re-checks the identity and the signs exactly; a node is closed only when that
exact check succeeds. Only sides the node really has (a finite bound on that side of the row)
are used, so the combination is one of the node's own constraints: a float sign that names a
side the node lacks is left out, never trusted. A node that HiGHS leaves in another status after a cold restart
(numerical trouble without presolve, seen with coordinates near ``1e7``) is solved once more by
``scipy.optimize.linprog`` with presolve (:meth:`PhaseLP.fallback`), closed by the same exact
check; so is a node whose HiGHS ray or duals fail the exact check (seen on degenerate nodes whose
warm-started duals carry float noise). Anything else (no ray, inexact support, both solvers
failing) makes the proof undecided, never proved.

The column-relation proofs (:mod:`exactnet.fdim_columns`) use the same model with *margin* rows:
the branched neurons' signs strict by the margin ``t`` and ``t <= 1``.
"""

from __future__ import annotations

from typing import Sequence

from flint import fmpq

__all__ = ["PhaseLP", "COLUMN_BOX"]

#: Bounds ``|v_j| <= COLUMN_BOX`` on the HiGHS model's columns. They are not rows of :attr:`PhaseLP.ex`,
#: so no exact certificate ever uses them: they only keep every node LP bounded, so that an open
#: node's point (which chooses the branching neuron) comes from one solve.
COLUMN_BOX = 1e6


def _new_highs():
    """A silent ``highspy.Highs``. The first one of a process prints HiGHS's banner on file
    descriptor 1 before any option can be set; it is sent to ``/dev/null`` so that standard
    output (``--json``) stays clean."""
    import os
    import sys

    import highspy

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    if fd is None:
        hs = highspy.Highs()
    else:
        sys.stdout.flush()
        saved, null = os.dup(fd), os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
            hs = highspy.Highs()
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            os.close(null)
    hs.setOptionValue("output_flag", False)
    return hs


class PhaseLP:
    """One persistent HiGHS model for the nodes of one branch-and-bound proof.

    ``Y``: ``{neuron: (a, b)}``, the pre-activation ``y = a.v + b`` of each branchable neuron
    over the variables ``v`` (``nv`` of them, ``t`` not included); ``hcol``: the column of each
    neuron's ``h``; ``targets``: the expressions ``(a, b)`` required positive. The variable ``t``
    is column ``nv``. ``margin``: neurons whose fixed phase is required *strictly*, with the same
    margin ``t`` (``y - t >= 0`` active, ``-y - t >= 0`` inactive; two more rows each, switched on
    by their bounds); ``t_max``: an upper bound on ``t`` (a row ``t <= t_max``), which keeps every
    node bounded.
    """

    def __init__(self, Y: dict, hcol: dict, targets: Sequence[tuple[list, fmpq]], nv: int,
                 margin: Sequence = (), t_max: fmpq | None = None) -> None:
        import highspy
        import numpy as np
        from scipy.sparse import csc_matrix

        self.hp, self.np = highspy, np
        zero = fmpq(0)
        self.keys = list(Y)
        self._pos = {k: q for q, k in enumerate(self.keys)}
        self.nv = nv + 1
        T = nv
        ex = []  # exact (row, const): the model row is row.v, the condition is on row.v + const
        for k in self.keys:
            a, b = Y[k]
            a = list(a) + [zero]
            h = [zero] * self.nv
            h[hcol[k]] = fmpq(1)
            ex.append((h, zero))
            ex.append(([x - y for x, y in zip(h, a)], -b))
            ex.append((a, b))
        for a, b in targets:
            ex.append((list(a) + [fmpq(-1)], b))
        self.mrow = {}
        for k in margin:  # y - t (on when active) and -y - t (on when inactive)
            a, b = Y[k]
            self.mrow[k] = len(ex)
            ex.append((list(a) + [fmpq(-1)], b))
            ex.append(([-x for x in a] + [fmpq(-1)], -b))
        if t_max is not None:  # t - t_max <= 0
            ex.append(([zero] * nv + [fmpq(1)], -t_max))
        self.ex = ex
        self.A = np.array([[float(v) for v in r] for r, _ in ex])
        self.C = np.array([float(c) for _, c in ex])
        self.hcol = hcol
        nr = self.nr = len(ex)
        inf = highspy.kHighsInf
        self.inf = inf
        self.base_lo = np.zeros(nr)
        self.base_up = np.full(nr, inf)
        self.base_lo[2:3 * len(self.keys):3] = -inf
        for r in self.mrow.values():
            self.base_lo[r:r + 2] = -inf
        if t_max is not None:
            self.base_lo[-1], self.base_up[-1] = -inf, 0.0
        hs = _new_highs()
        hs.setOptionValue("presolve", "off")
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = self.nv, nr
        cost = np.zeros(self.nv)
        cost[T] = 1.0
        lp.col_cost_ = cost
        lp.col_lower_ = np.full(self.nv, -COLUMN_BOX)  # for the proposals only (class docstring)
        lp.col_upper_ = np.full(self.nv, COLUMN_BOX)
        lo, up = self._model_bounds(self.base_lo, self.base_up)
        lp.row_lower_, lp.row_upper_ = lo, up
        M = csc_matrix(self.A)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = M.indptr, M.indices, M.data
        lp.sense_ = highspy.ObjSense.kMaximize
        hs.passModel(lp)
        self.hs = hs
        self.rows = np.arange(nr, dtype=np.int32)
        self.obj = [zero] * nv + [fmpq(1)]

    def _model_bounds(self, lo, up):
        np = self.np
        return (np.where(np.isinf(lo), lo, lo - self.C), np.where(np.isinf(up), up, up - self.C))

    def _exact(self, S, infeasible: bool, lo, up, flips=(1, -1)) -> bool:
        """Exact multipliers on the rows ``S`` (``(row, +1)``: lower side, ``(row, -1)``: upper side).

        A side is used only when the node has it (``lo[row] == 0`` for the lower side, ``up[row] == 0``
        for the upper one); the others are left out. The float duals only propose which
        constraints of *this node* to combine, so any exact multipliers found prove the claim."""
        from .fdim import _exact_multipliers

        for flip in flips:  # the side convention of HiGHS's duals, tried both ways; the check is exact
            G, g = [], []
            for q, s in S:
                if (lo[q] if s * flip > 0 else up[q]) != 0.0:
                    continue  # a side this node does not have is not a constraint of it: left out
                r, c = self.ex[q]
                G.append(r if s * flip > 0 else [-x for x in r])
                g.append(c if s * flip > 0 else -c)
            if G and _exact_multipliers(G, g, self.obj, fmpq(0), list(range(len(G))), infeasible) is not None:
                return True
        return False

    def _closes(self, vec, lower_sign: int, infeasible: bool, lo, up, flips=(1, -1)) -> bool:
        """The exact check on the supports that the float vector ``vec`` (a dual ray or the row duals)
        proposes: its entries above ``1e-9``, then above ``1e-9``, ``1e-6`` and ``1e-13`` times its
        largest entry. A float noise entry kept by the first threshold (seen: ``3e-14`` .. ``1e-7``
        beside entries near ``100``) can make the exact solve on that support fail, and the first
        threshold can drop a tiny true entry of a vector with small entries (the last cut keeps it);
        each support is only a proposal, checked exactly. ``lower_sign``: the sign of an entry that names a row's lower side."""
        np = self.np
        big = float(np.abs(vec).max()) if len(vec) else 0.0
        tried = set()
        for cut in (1e-9, 1e-9 * big, 1e-6 * big, 1e-13 * big):
            idx = tuple(np.nonzero(np.abs(vec) > cut)[0])
            if idx in tried:
                continue
            tried.add(idx)
            S = [(q, 1 if vec[q] * lower_sign > 0 else -1) for q in idx]
            if self._exact(S, infeasible, lo, up, flips):
                return True
        return False

    def bounds(self, phase: dict):
        """The rows' bounds on ``row.v + const`` (each ``0`` or infinite) for the phases ``phase``."""
        lo, up = self.base_lo.copy(), self.base_up.copy()
        for q, k in enumerate(self.keys):
            st = phase.get(k)
            if st == "active":
                up[3 * q + 1] = 0.0
                lo[3 * q + 2] = 0.0
            elif st == "dead":
                up[3 * q] = 0.0
                up[3 * q + 2] = 0.0
            if st is not None and k in self.mrow:
                lo[self.mrow[k] + (st == "dead")] = 0.0
        return lo, up

    def solve(self, phase: dict, defer: bool = False):
        """Solve the node whose neurons have the phases ``phase`` (``"active"`` / ``"dead"``; the
        others relaxed). Returns ``("closed", None)`` when exact multipliers prove ``sup t <= 0``
        or emptiness, ``("open", v)`` with the float LP point otherwise, ``(None, None)`` when
        undecided. With ``defer``, a node that the float LP closes comes back as ``("closing",
        check)`` before any exact work: it is closed only once :meth:`confirm` accepts ``check``
        (the branch and bound confirms every such leaf before it reports a proof, and solves a leaf
        that fails again without ``defer``)."""
        hp, np = self.hp, self.np
        lo, up = self.bounds(phase)
        ml, mu = self._model_bounds(lo, up)
        hs = self.hs
        hs.changeRowsBounds(self.nr, self.rows, ml, mu)
        S_ = hp.HighsModelStatus
        ok = (S_.kOptimal, S_.kInfeasible)
        hs.run()
        ms = hs.getModelStatus()
        if ms not in ok:  # a warm start that went wrong: solve again from scratch
            hs.clearSolver()
            hs.run()
            ms = hs.getModelStatus()
        if ms not in ok:  # numerical trouble without presolve (huge coordinates): scipy's linprog
            return self.fallback(lo, up)
        if ms == S_.kInfeasible:
            _st, has, ray = hs.getDualRay()
            if has and defer:
                return "closing", (phase, np.array(ray), 1, True)
            if has and self._closes(np.asarray(ray), 1, True, lo, up):
                return "closed", None
            return self.fallback(lo, up)  # a second solver's proposal, the same exact check
        sol = hs.getSolution()  # optimal (the boxed columns rule out unbounded)
        if hs.getInfo().objective_function_value <= 1e-9:
            if defer:
                return "closing", (phase, np.array(sol.row_dual), -1, False)
            if self._closes(np.asarray(sol.row_dual), -1, False, lo, up):
                return "closed", None
            return self.fallback(lo, up)
        return "open", np.asarray(sol.col_value)

    def confirm(self, check) -> bool:
        """The exact check of a node that :meth:`solve` returned as ``("closing", check)``: True when
        exact multipliers on the rows its float duals (or ray) name prove it closed."""
        phase, vec, lower_sign, infeasible = check
        lo, up = self.bounds(phase)
        return self._closes(vec, lower_sign, infeasible, lo, up)

    def fallback(self, lo, up):
        """The node by one ``scipy.optimize.linprog`` call (presolve on), same exact closing."""
        from .lp import linprog_quiet as linprog

        np = self.np
        sides = [(q, 1) for q in np.nonzero(np.isfinite(lo))[0]] + [(q, -1) for q in np.nonzero(np.isfinite(up))[0]]
        G = np.array([s * self.A[q] for q, s in sides]).reshape(len(sides), self.nv)
        g = np.array([s * self.C[q] for q, s in sides])
        c = np.zeros(self.nv)
        c[-1] = -1.0
        free = [(None, None)] * self.nv
        res = linprog(c, A_ub=-G, b_ub=g, bounds=free, method="highs")
        if res.status == 2:  # infeasible: Farkas multipliers from the slack LP
            r2 = linprog(np.r_[np.zeros(self.nv), 1.0], A_ub=-np.hstack([G, np.ones((len(G), 1))]), b_ub=g,
                         bounds=free + [(0, None)], method="highs")
            if r2.status != 0:
                return None, None
            ok = self._closes(self._per_row(sides, -r2.ineqlin.marginals), 1, True, lo, up, flips=(1,))
            return ("closed", None) if ok else (None, None)
        if res.status == 0:
            if -res.fun <= 1e-9:  # as in solve: closed only by the exact check, else undecided
                ok = self._closes(self._per_row(sides, -res.ineqlin.marginals), 1, False, lo, up, flips=(1,))
                return ("closed", None) if ok else (None, None)
            return "open", res.x
        if res.status == 3:
            r3 = linprog(c, A_ub=-G, b_ub=g, bounds=[(-1e6, 1e6)] * self.nv, method="highs")
            return ("open", r3.x) if r3.status == 0 else (None, None)
        return None, None

    def y_value(self, k, v) -> float:
        """Neuron ``k``'s pre-activation ``y`` at the LP point ``v`` (a float: it only orders the search)."""
        q = self._pos[k]
        return float(self.A[3 * q + 2] @ v + self.C[3 * q + 2])

    def _per_row(self, sides, lam):
        """linprog's multipliers of the sides ``(row, +-1)`` as one signed entry per row (positive: the
        lower side; the cuts are :meth:`_closes`'s). A row with both sides (an equality of the node) gets
        the side of the larger one."""
        vec = self.np.zeros(self.nr)
        for (q, side), x in zip(sides, lam):
            if x > 0:
                vec[q] += side * x
        return vec

    def gap(self, k, v) -> float:
        """How far the LP point ``v`` puts neuron ``k``'s ``h`` above ``relu(y)``."""
        return float(v[self.hcol[k]]) - max(0.0, self.y_value(k, v))
