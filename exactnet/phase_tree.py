"""The bookkeeping of one activation-phase branch-and-bound proof, shared by its two users.

:func:`exactnet.fdim._neuron_never_positive` (sign, pair, "same activation" and relation facts)
and :func:`exactnet.fdim_columns.prove_column_relation` (column relations) search trees of
activation phases whose node LPs are :class:`exactnet.phase_lp.PhaseLP` models. Both need the
same three things, kept here:

* a :class:`Tree`: the open nodes, the node count, and the leaves the float LPs closed whose exact
  check is deferred to the end of the tree (:func:`confirm_leaves`);
* :func:`next_node`: the next node to solve, or :data:`DONE` when every leaf passed its exact
  check, or None when the node limit or the CPU deadline stops the proof;
* trees kept between the passes of :func:`exactnet.fdim._prove_each` (:data:`TREES`,
  :func:`resume_tree`, :func:`save_tree`), so that a pass at a larger node limit goes on from the
  open nodes instead of solving the first ones again.

Nothing here decides a fact: a proof is complete only when :func:`next_node` returns :data:`DONE`,
after every leaf's exact check (:meth:`exactnet.phase_lp.PhaseLP.confirm`) passed.
"""

from __future__ import annotations

import contextvars
import time
from dataclasses import dataclass, field

__all__ = ["TREES", "Tree", "DONE", "confirm_leaves", "next_node", "resume_tree", "save_tree"]

#: The open branch-and-bound trees of one :func:`exactnet.fdim._prove_each` call, by proof
#: (see :func:`resume_tree`).
TREES: contextvars.ContextVar = contextvars.ContextVar("exactnet_phase_trees", default=None)


@dataclass
class Tree:
    """A branch-and-bound proof in progress: its open nodes (``stack``), the nodes solved, the leaves
    the float LPs closed that still wait for their exact check (``pending``: ``(state, check)``, see
    :meth:`exactnet.phase_lp.PhaseLP.solve`), and the nodes whose exact check failed (``strict``:
    solved again with the exact check at once, and its fallback)."""
    stack: list
    nodes: int = 0
    pending: list = field(default_factory=list)
    strict: set = field(default_factory=set)

    def defers(self, state: dict) -> bool:
        """Whether the node ``state`` may leave its exact check for the end of the tree."""
        return frozenset(state.items()) not in self.strict


def confirm_leaves(plp, tree: Tree, deadline) -> bool:
    """The exact checks of ``tree``'s pending leaves; a leaf that fails goes back on the stack, to be
    solved strictly. False when the CPU ``deadline`` passes first (the rest stay pending).

    Deferring the exact check to the end of a tree spends it only on trees whose every leaf closes
    in floats: a proof left undecided at its node limit costs LP solves only (on the width-15
    depth-6 proofs the exact check is about half of a closed node's CPU time). A proof is reported
    only after every leaf has passed its exact check, so the deferral changes no answer."""
    while tree.pending:
        if deadline is not None and time.process_time() > deadline:
            return False
        state, check = tree.pending[-1]
        if not plp.confirm(check):
            tree.strict.add(frozenset(state.items()))
            tree.stack.append(state)
        tree.pending.pop()
    return True


#: What :func:`next_node` returns when every leaf of the tree is closed and passed its exact check.
DONE = object()


def next_node(plp, tree: Tree, key, max_nodes: int, deadline):
    """The next open node of ``tree`` to solve (popped from its stack); :data:`DONE` when the stack is
    empty and every pending leaf passed its exact check (:func:`confirm_leaves`); None when the node
    limit or the CPU ``deadline`` stops the proof first (the tree is kept for the next pass)."""
    while not tree.stack:
        if not tree.pending:
            return DONE
        if not confirm_leaves(plp, tree, deadline):
            save_tree(key, plp, tree)
            return None
    if tree.nodes >= max_nodes or (deadline is not None and time.process_time() > deadline):
        save_tree(key, plp, tree)
        return None
    tree.nodes += 1
    return tree.stack.pop()


def resume_tree(key, model, root):
    """``(model, tree)``: the :class:`Tree` a proof left open at an earlier pass's node limit, or a new one.

    :func:`exactnet.fdim._prove_each` gives an undecided candidate a second and third pass at
    larger node limits; the proof goes on from its open nodes (the unexplored leaves of the same
    tree: together with the closed ones they still cover the proof's domain) instead of solving
    the first nodes again. ``key`` names the proof (its network, conditions and fixed neurons);
    ``model()`` builds its node LPs, ``root`` is the new tree's stack. Outside
    :func:`exactnet.fdim._prove_each` every tree is new.
    A proof completed at an earlier pass (one of several proofs of its candidate) comes back with
    model None: it is not searched again.
    """
    saved = (TREES.get() or {}).get(key)
    return saved if saved is not None else (model(), Tree(root))


def save_tree(key, model, tree: Tree) -> None:
    """Keep a tree left open for the next pass (:func:`resume_tree`); ``model`` None records a
    completed proof."""
    trees = TREES.get()
    if trees is not None:
        trees[key] = (model, tree)
