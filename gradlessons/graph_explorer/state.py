"""The model behind the lesson 1 graph explorer.

``GraphExplorerState`` holds three input tensors ``a``, ``b`` and ``c`` (each one may or may not
require grad) and the list of operations the student applied, such as ``t1 = a * b`` then
``t2 = t1.sin()``. Every tensor is a real PyTorch tensor and the graph is read from PyTorch
itself, by walking ``grad_fn`` and ``next_functions``, into plain data (nodes and edges) that a
view can draw. No widget or plotting library is imported here.

Changing a ``requires_grad`` flag replays the forward pass: PyTorch records the graph while the
operations run, so a flag only matters for the operations that run after it is set.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import torch

INPUT_NAMES = ("a", "b", "c")
INPUT_VALUES = {"a": (1.0, 2.0), "b": (0.5, -1.0), "c": (3.0, 0.25)}
DEFAULT_REQUIRES_GRAD = {"a": True, "b": True, "c": False}

#: Operation name -> (number of operands, code template).
OPERATIONS: dict[str, tuple[int, str]] = {
    "add": (2, "{x} + {y}"),
    "mul": (2, "{x} * {y}"),
    "sub": (2, "{x} - {y}"),
    "sin": (1, "{x}.sin()"),
    "exp": (1, "{x}.exp()"),
    "pow 2": (1, "{x} ** 2"),
    "sum": (1, "{x}.sum()"),
    "detach": (1, "{x}.detach()"),
}

_FUNCTIONS = {
    "add": lambda x, y: x + y,
    "mul": lambda x, y: x * y,
    "sub": lambda x, y: x - y,
    "sin": lambda x: x.sin(),
    "exp": lambda x: x.exp(),
    "pow 2": lambda x: x**2,
    "sum": lambda x: x.sum(),
    "detach": lambda x: x.detach(),
}

DEFAULT_MAX_STEPS = 12


@dataclass(frozen=True)
class Step:
    """One applied operation: ``result = op(*operands)``."""

    op: str
    operands: tuple[str, ...]
    result: str

    @property
    def code(self) -> str:
        names = dict(zip("xy", self.operands))
        return f"{self.result} = " + OPERATIONS[self.op][1].format(**names)


@dataclass(frozen=True)
class Node:
    """One box of the drawn graph.

    ``kind`` is ``"op"`` (a backward node such as MulBackward0), ``"leaf"`` (AccumulateGrad,
    where the gradient of a leaf that requires grad is stored) or ``"constant"`` (a tensor that
    does not require grad: PyTorch records a ``None`` entry for it in ``next_functions``).
    """

    id: int
    label: str
    kind: str
    tensor: str | None  # the tensor this node belongs to, when known
    depth: int


@dataclass(frozen=True)
class Graph:
    """The graph behind one tensor, as plain data: edges go from a node to its next functions."""

    target: str
    nodes: tuple[Node, ...]
    edges: tuple[tuple[int, int], ...]
    note: str


class GraphExplorerState:
    """Inputs, applied operations and the real tensors they produce.

    Args:
        requires_grad: ``requires_grad`` of each input (defaults: a and b True, c False).
        max_steps: the most operations kept (older ones are never dropped: ``apply`` refuses).
    """

    def __init__(self, requires_grad: dict[str, bool] | None = None, max_steps: int = DEFAULT_MAX_STEPS) -> None:
        self.max_steps = int(max_steps)
        self.requires_grad = dict(DEFAULT_REQUIRES_GRAD)
        if requires_grad:
            self._check_inputs(requires_grad)
            self.requires_grad.update({k: bool(v) for k, v in requires_grad.items()})
        self.steps: list[Step] = []
        self.tensors: dict[str, torch.Tensor] = {}
        self._replay()

    # ------------------------------------------------------------------ reading

    @property
    def names(self) -> list[str]:
        """Every tensor name, inputs first, then the results in order."""
        return list(self.tensors)

    @property
    def last(self) -> str:
        """The newest tensor (the last result, or ``c`` before any operation)."""
        return self.names[-1]

    def rows(self) -> list[dict]:
        """One row per tensor: its name, code, requires_grad, is_leaf and grad_fn class name."""
        codes = {name: f"{name} = torch.tensor({list(INPUT_VALUES[name])})" for name in INPUT_NAMES}
        for name in INPUT_NAMES:
            if self.requires_grad[name]:
                codes[name] = codes[name][:-1] + ", requires_grad=True)"
        codes.update({step.result: step.code for step in self.steps})
        return [
            {
                "name": name,
                "code": codes[name],
                "requires_grad": t.requires_grad,
                "is_leaf": t.is_leaf,
                "grad_fn": None if t.grad_fn is None else type(t.grad_fn).__name__,
            }
            for name, t in self.tensors.items()
        ]

    def table(self) -> str:
        """The rows as an aligned text table."""
        lines = [f"{'tensor':<7}{'requires_grad':<15}{'is_leaf':<9}{'grad_fn':<16}code"]
        for r in self.rows():
            grad_fn = r["grad_fn"] or "None"
            lines.append(f"{r['name']:<7}{str(r['requires_grad']):<15}{str(r['is_leaf']):<9}{grad_fn:<16}{r['code']}")
        return "\n".join(lines)

    def graph(self, target: str | None = None) -> Graph:
        """The graph behind ``target`` (default: the newest tensor), read from ``grad_fn``."""
        target = self.last if target is None else target
        if target not in self.tensors:
            raise ValueError(f"unknown tensor {target!r}; the tensors are {self.names}")
        t = self.tensors[target]
        if t.grad_fn is None:
            kind = "leaf" if t.requires_grad else "constant"
            label = "AccumulateGrad" if t.requires_grad else "constant"
            why = (
                "it is a leaf that requires grad: its gradient will be stored in its .grad"
                if t.requires_grad
                else "it does not require grad, so PyTorch recorded no graph for it"
            )
            return Graph(target, (Node(0, label, kind, target, 0),), (), f"{target}.grad_fn is None: {why}.")
        return self._walk(target, t.grad_fn)

    # ------------------------------------------------------------------ actions

    def set_requires_grad(self, name: str, flag: bool) -> None:
        """Set an input's flag and run the recorded operations again (a new forward pass)."""
        self._check_inputs({name: flag})
        self.requires_grad[name] = bool(flag)
        self._replay()

    def apply(self, op: str, x: str, y: str | None = None) -> Step:
        """Run ``op`` on the tensors named ``x`` (and ``y``) and keep the result as ``t<k>``."""
        if op not in OPERATIONS:
            raise ValueError(f"unknown operation {op!r}; choose from {list(OPERATIONS)}")
        arity = OPERATIONS[op][0]
        operands = (x, y)[:arity]
        for name in operands:
            if name not in self.tensors:
                raise ValueError(f"unknown tensor {name!r}; the tensors are {self.names}")
        if len(self.steps) >= self.max_steps:
            raise ValueError(f"at most {self.max_steps} operations: undo or reset first")
        step = Step(op, operands, f"t{len(self.steps) + 1}")
        self.tensors[step.result] = self._run(step)
        self.steps.append(step)
        return step

    def undo(self) -> Step | None:
        """Forget the newest operation (and its tensor); None when there is nothing to undo."""
        if not self.steps:
            return None
        step = self.steps.pop()
        del self.tensors[step.result]
        return step

    def reset(self) -> None:
        """No operations, and the default flags."""
        self.requires_grad = dict(DEFAULT_REQUIRES_GRAD)
        self.steps = []
        self._replay()

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _check_inputs(flags: dict) -> None:
        unknown = set(flags) - set(INPUT_NAMES)
        if unknown:
            raise ValueError(f"unknown input {sorted(unknown)}; the inputs are {list(INPUT_NAMES)}")

    def _run(self, step: Step) -> torch.Tensor:
        return _FUNCTIONS[step.op](*(self.tensors[n] for n in step.operands))

    def _replay(self) -> None:
        self.tensors = {
            name: torch.tensor(INPUT_VALUES[name], requires_grad=self.requires_grad[name]) for name in INPUT_NAMES
        }
        for step in self.steps:
            self.tensors[step.result] = self._run(step)

    def _owner(self, node) -> tuple[str | None, tuple[str, ...]]:
        """The tensor whose grad_fn is ``node`` and the operands of its step, if any."""
        for step in self.steps:
            t = self.tensors[step.result]
            if t.grad_fn is node:
                return step.result, step.operands
        return None, ()

    def _walk(self, target: str, root) -> Graph:
        ids: dict = {root: 0}
        order, edges, constants = [root], [], []
        queue = deque([root])
        while queue:
            node = queue.popleft()
            _, operands = self._owner(node)
            for i, (child, _) in enumerate(node.next_functions):
                if child is None:
                    operand = operands[i] if i < len(operands) else None
                    constants.append((ids[node], operand))
                    continue
                if child not in ids:
                    ids[child] = len(order)
                    order.append(child)
                    queue.append(child)
                edges.append((ids[node], ids[child]))
        depth = _longest_depths(len(order) + len(constants), edges, constants, len(order))
        nodes = []
        for node, index in ids.items():
            name = type(node).__name__
            if name == "AccumulateGrad":
                leaf = next((n for n in INPUT_NAMES if self.tensors[n] is node.variable), None)
                nodes.append(Node(index, name, "leaf", leaf, depth[index]))
            else:
                nodes.append(Node(index, name, "op", self._owner(node)[0], depth[index]))
        nodes.sort(key=lambda n: n.id)
        for k, (parent, operand) in enumerate(constants):
            index = len(order) + k
            label = f"{operand} (constant)" if operand else "constant"
            nodes.append(Node(index, label, "constant", operand, depth[index]))
            edges.append((parent, index))
        n_const = len(constants)
        note = f"{len(order)} autograd nodes behind {target}"
        if n_const:
            note += f", {n_const} grey input(s) without grad (None in next_functions)"
        return Graph(target, tuple(nodes), tuple(edges), note + ".")


def _longest_depths(n: int, edges: list, constants: list, first_constant: int) -> list[int]:
    """Depth of each node = the longest path from the root, so a shared node sits below all its users."""
    depth = [0] * n
    children: dict[int, list[int]] = {}
    for a, b in edges:
        children.setdefault(a, []).append(b)
    for k, (parent, _) in enumerate(constants):
        children.setdefault(parent, []).append(first_constant + k)
    for _ in range(n):  # relax; the graph is acyclic and tiny
        changed = False
        for a, bs in children.items():
            for b in bs:
                if depth[b] < depth[a] + 1:
                    depth[b] = depth[a] + 1
                    changed = True
        if not changed:
            break
    return depth
