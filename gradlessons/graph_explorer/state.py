"""The model behind the lesson 1 graph explorer.

``GraphExplorerState`` holds three input tensors ``a``, ``b`` and ``c`` (each one may or may not
require grad) and the list of operations the student applied, such as ``t1 = a * b`` then
``t2 = t1.sin()``. Every tensor is a real PyTorch tensor and the graph is read from PyTorch
itself, by walking ``grad_fn`` and ``next_functions``, into plain data (nodes and edges) that a
view can draw. No widget or plotting library is imported here.

The explorer opens on a small starter expression (``t1 = a * b``, ``t2 = t1 + c``) so that a
graph is visible at once, and carries a short guide (:class:`Guide`): a few steps, each with a
prompt, a check over the state and its history of actions, and what to look at once it is done.

Changing a ``requires_grad`` flag replays the forward pass: PyTorch records the graph while the
operations run, so a flag only matters for the operations that run after it is set.

:func:`read_graph` reads the graph behind any tensor (not only the explorer's), for drawings
such as :func:`gradlessons.graph_explorer.draw_graph`.

Language: the guide's steps are English msgids (:data:`GUIDE_TEMPLATES`), translated when a state is
built; a step that says "click apply" quotes the apply button through ``{apply}``.  The graph's words
(its note, a grey box's label, the table's header) are translated when they are read.  Operation
names, class names such as ``MulBackward0`` and code stay as they are.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import torch

from gradlessons.guide import FINISHED, Guide, GuideStep, filled, localized  # noqa: F401 (FINISHED: read by tests)
from gradlessons.i18n import N_, _, ngettext, pgettext

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
# i18n: the button that runs the chosen operation (a step's prompt quotes it: "click apply")
APPLY = N_("apply")

#: The expression the explorer opens on: (operation, operands...) for t1, t2, ...
STARTER: tuple[tuple[str, ...], ...] = (("mul", "a", "b"), ("add", "t1", "c"))


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
class Action:
    """One thing the student did, as the guide sees it.

    ``kind`` is ``"apply"``, ``"flag"``, ``"undo"`` or ``"reset"``. For ``"apply"``: ``step``,
    whether the result requires grad (``tracked``) and whether each operand did
    (``operands_tracked``). For ``"flag"``: the input's ``name`` and its new ``value``.
    """

    kind: str
    step: Step | None = None
    tracked: bool = False
    operands_tracked: tuple[bool, ...] = ()
    name: str | None = None
    value: bool | None = None


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
    #: Left-to-right place within its layer: the node's first visit in a walk from the root that
    #: takes each node's inputs in argument order, so the first argument is drawn on the left, and a
    #: graph that grows on top (a new step) keeps its inputs on the same sides.
    order: int = 0


@dataclass(frozen=True)
class Graph:
    """The graph behind one tensor, as plain data: edges go from a node to its next functions."""

    target: str
    nodes: tuple[Node, ...]
    edges: tuple[tuple[int, int], ...]
    note: str


# --------------------------------------------------------------------------- the guide


def _grew(state: GraphExplorerState, actions: list[Action]) -> bool:
    return any(a.kind == "apply" and a.tracked for a in actions)


def _c_is_tracked(state: GraphExplorerState, actions: list[Action]) -> bool:
    if not state.requires_grad["c"]:
        return False
    return any(n.kind == "leaf" and n.tensor == "c" for n in state.graph().nodes)


def _a_and_b_untracked(state: GraphExplorerState, actions: list[Action]) -> bool:
    return not state.requires_grad["a"] and not state.requires_grad["b"]


def _detached_a_tracked_tensor(state: GraphExplorerState, actions: list[Action]) -> bool:
    return any(a.kind == "apply" and a.step.op == "detach" and all(a.operands_tracked) for a in actions)


def _since_step_began(
    check: Callable[[GraphExplorerState, list[Action]], bool],
) -> Callable[[GraphExplorerState], bool]:
    """A step's check over the state and the actions made since the step began."""
    return lambda state: check(state, state.history[state.guide.start :])


#: The guide's steps: English msgids, ``{apply}`` being the apply button's label (see :func:`labels`).
GUIDE_TEMPLATES: tuple[GuideStep, ...] = (
    GuideStep(
        N_("Grow the expression: with operation `sin` and x = `t2` chosen, click {apply}."),
        _since_step_began(_grew),
        N_(
            "A new blue node sits on top: the grad_fn of the new tensor. Its arrow points to the node of its "
            "input. PyTorch added this node the moment the operation ran."
        ),
        asks=N_("apply an operation to a tensor that requires grad (`sin` of `t2`)"),
    ),
    GuideStep(
        N_("c is the grey box: it needs no gradient. Tick `c.requires_grad`."),
        _since_step_began(_c_is_tracked),
        N_(
            "c now has a green AccumulateGrad node. Ticking the box ran the operations again, and this time "
            "c was tracked: backward() would store its gradient in c.grad."
        ),
        asks=N_("tick `c.requires_grad`"),
    ),
    GuideStep(
        N_("Untick `a.requires_grad` and `b.requires_grad`."),
        _since_step_began(_a_and_b_untracked),
        N_(
            "The multiplication left the graph: neither of its inputs requires grad, so t1 = a * b got no "
            "grad_fn (see its row in the table) and is drawn as a grey box."
        ),
        asks=N_("untick `a.requires_grad` and `b.requires_grad`"),
        actions=("flag",),
    ),
    GuideStep(
        N_("Cut the graph: choose operation `detach`, x = `t3` (a tensor that requires grad), and click {apply}."),
        _since_step_began(_detached_a_tracked_tensor),
        N_(
            "The detached tensor has the same numbers, but requires_grad is False and grad_fn is None: "
            "its graph is a single grey box, cut off from everything before it."
        ),
        asks=N_("apply `detach` to a tensor that requires grad (`t3`)"),
    ),
)
#: The guide as an English explorer shows it (what the English tests compare).
GUIDE_STEPS: tuple[GuideStep, ...] = filled(GUIDE_TEMPLATES, apply=APPLY)


# --------------------------------------------------------------------------- the state


class GraphExplorerState:
    """Inputs, applied operations, the real tensors they produce, and the guide.

    Args:
        requires_grad: ``requires_grad`` of each input (defaults: a and b True, c False).
        max_steps: the most operations kept (older ones are never dropped: ``apply`` refuses).
        starter: the operations that have run when the explorer opens, and after ``reset``
            (default :data:`STARTER`; ``()`` for none).
    """

    def __init__(
        self,
        requires_grad: dict[str, bool] | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        starter: Sequence[Sequence[str]] = STARTER,
    ) -> None:
        self.max_steps = int(max_steps)
        self.starter = tuple(tuple(s) for s in starter)
        self.initial_requires_grad = dict(DEFAULT_REQUIRES_GRAD)
        if requires_grad:
            self._check_inputs(requires_grad)
            self.initial_requires_grad.update({k: bool(v) for k, v in requires_grad.items()})
        self.history: list[Action] = []
        self.guide = Guide(localized(GUIDE_TEMPLATES, apply=_(APPLY)), clock=lambda: len(self.history))
        self._start()

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
        # i18n: column headers of the explorer's tensor table (the other columns are PyTorch's attribute names)
        tensor, code = pgettext("tensor table", "tensor"), pgettext("tensor table", "code")
        lines = [f"{tensor:<7}{'requires_grad':<15}{'is_leaf':<9}{'grad_fn':<16}{code}"]
        for r in self.rows():
            grad_fn = r["grad_fn"] or "None"
            lines.append(f"{r['name']:<7}{str(r['requires_grad']):<15}{str(r['is_leaf']):<9}{grad_fn:<16}{r['code']}")
        return "\n".join(lines)

    def graph(self, target: str | None = None) -> Graph:
        """The graph behind ``target`` (default: the newest tensor), read from ``grad_fn``."""
        target = self.last if target is None else target
        if target not in self.tensors:
            raise ValueError(
                _("unknown tensor {name}; the tensors are {names}").format(name=repr(target), names=self.names)
            )
        operands = {}
        for step in self.steps:
            node = self.tensors[step.result].grad_fn
            if node is not None and node not in operands:
                operands[node] = step.operands
        return read_graph(self.tensors[target], target, self.tensors, operands)

    # ------------------------------------------------------------------ actions

    def set_requires_grad(self, name: str, flag: bool) -> None:
        """Set an input's flag and run the recorded operations again (a new forward pass)."""
        self._check_inputs({name: flag})
        self.requires_grad[name] = bool(flag)
        self._replay()
        self._record(Action("flag", name=name, value=bool(flag)))

    def apply(self, op: str, x: str, y: str | None = None) -> Step:
        """Run ``op`` on the tensors named ``x`` (and ``y``) and keep the result as ``t<k>``."""
        if op not in OPERATIONS:
            raise ValueError(
                _("unknown operation {name}; choose from {names}").format(name=repr(op), names=list(OPERATIONS))
            )
        step = self._apply(op, (x, y)[: OPERATIONS[op][0]])
        result = self.tensors[step.result]
        tracked = tuple(self.tensors[n].requires_grad for n in step.operands)
        self._record(Action("apply", step, tracked=result.requires_grad, operands_tracked=tracked))
        return step

    def undo(self) -> Step | None:
        """Forget the newest operation (and its tensor); None when there is nothing to undo."""
        step = None
        if self.steps:
            step = self.steps.pop()
            del self.tensors[step.result]
        self._record(Action("undo", step))
        return step

    def reset(self) -> None:
        """Back to the opening state: the starter expression and the default flags."""
        self._start()
        self._record(Action("reset"))

    def skip_guide_step(self) -> None:
        """Move the guide on without doing its current step."""
        self.guide.skip()

    def restart_guide(self) -> None:
        """Back to the opening state, and the guide back to its first step."""
        self._start()
        self.history.append(Action("reset"))
        self.guide.restart()

    # ------------------------------------------------------------------ helpers

    @staticmethod
    def _check_inputs(flags: dict) -> None:
        unknown = set(flags) - set(INPUT_NAMES)
        if unknown:
            raise ValueError(
                _("unknown input {names}; the inputs are {inputs}").format(
                    names=sorted(unknown), inputs=list(INPUT_NAMES)
                )
            )

    def _start(self) -> None:
        self.requires_grad = dict(self.initial_requires_grad)
        self.steps: list[Step] = []
        self._replay()
        for op, *operands in self.starter:
            self._apply(op, tuple(operands))

    def _apply(self, op: str, operands: tuple[str, ...]) -> Step:
        for name in operands:
            if name not in self.tensors:
                raise ValueError(
                    _("unknown tensor {name}; the tensors are {names}").format(name=repr(name), names=self.names)
                )
        if len(self.steps) >= self.max_steps:
            raise ValueError(_("at most {count} operations: undo or reset first").format(count=self.max_steps))
        step = Step(op, operands, f"t{len(self.steps) + 1}")
        self.tensors[step.result] = self._run(step)
        self.steps.append(step)
        return step

    def _record(self, action: Action) -> None:
        self.history.append(action)
        self.guide.observe(self, action=action.kind)

    def _run(self, step: Step) -> torch.Tensor:
        return _FUNCTIONS[step.op](*(self.tensors[n] for n in step.operands))

    def _replay(self) -> None:
        self.tensors: dict[str, torch.Tensor] = {
            name: torch.tensor(INPUT_VALUES[name], requires_grad=self.requires_grad[name]) for name in INPUT_NAMES
        }
        for step in self.steps:
            self.tensors[step.result] = self._run(step)


# --------------------------------------------------------------------------- reading any graph


def read_graph(
    tensor: torch.Tensor,
    target: str | None = None,
    names: Mapping[str, object] | None = None,
    operands: Mapping[object, tuple[str, ...]] | None = None,
) -> Graph:
    """The graph behind ``tensor``, walked breadth-first from ``tensor.grad_fn`` along ``next_functions``.

    Args:
        tensor: any tensor.
        target: the name to show for ``tensor`` (default: "the tensor", in today's language).
        names: optional name -> tensor; a leaf's ``AccumulateGrad`` node and the ``grad_fn`` of a
            named tensor are labelled with the name. Entries that are not tensors, and names starting
            with ``_``, are ignored (so a notebook's ``globals()`` works too).
        operands: optional node -> the names of its operation's operands, in order, so that a
            ``None`` entry of ``next_functions`` can say which input did not require grad.
    """
    if target is None:
        # i18n: stands for a tensor without a name, e.g. "graph behind the tensor"
        target = _("the tensor")
    tensors = {
        name: t
        for name, t in (names or {}).items()
        if isinstance(t, torch.Tensor) and isinstance(name, str) and not name.startswith("_")
    }
    if tensor.grad_fn is None:
        kind = "leaf" if tensor.requires_grad else "constant"
        # i18n: the label of a box for a tensor that does not require grad
        label = "AccumulateGrad" if tensor.requires_grad else pgettext("graph box", "constant")
        if tensor.requires_grad:
            note = _(
                "{name}.grad_fn is None: it is a leaf that requires grad: its gradient will be stored in its .grad."
            )
        else:
            note = _("{name}.grad_fn is None: it does not require grad, so PyTorch recorded no graph for it.")
        return Graph(target, (Node(0, label, kind, target, 0),), (), note.format(name=target))

    owners: dict = {}
    for name, t in tensors.items():
        if t.grad_fn is not None and t.grad_fn not in owners:
            owners[t.grad_fn] = name
    operands = operands or {}
    root = tensor.grad_fn
    ids: dict = {root: 0}
    order, edges, constants = [root], [], []
    slots: dict[int, list] = {}  # node id -> its inputs in argument order: ("node", id) or ("grey", k)
    queue = deque([root])
    while queue:
        node = queue.popleft()
        inputs = operands.get(node, ())
        slots[ids[node]] = []
        for i, (child, _slot) in enumerate(node.next_functions):
            if child is None:
                given = inputs[i] if i < len(inputs) else None
                slots[ids[node]].append(("grey", len(constants)))
                constants.append((ids[node], given if given else _grey_input(node, i, tensors)))
                continue
            if child not in ids:
                ids[child] = len(order)
                order.append(child)
                queue.append(child)
            edges.append((ids[node], ids[child]))
            slots[ids[node]].append(("node", ids[child]))
    constants = _name_the_last_grey_input(constants, tensors)
    depth = _longest_depths(len(order) + len(constants), edges, constants, len(order))
    place = _argument_order(slots, len(order))
    nodes = []
    for node, index in ids.items():
        name = type(node).__name__
        if name == "AccumulateGrad":
            leaf = next((n for n, t in tensors.items() if t is node.variable), None)
            nodes.append(Node(index, name, "leaf", leaf, depth[index], place[index]))
        else:
            nodes.append(Node(index, name, "op", owners.get(node), depth[index], place[index]))
    nodes.sort(key=lambda n: n.id)
    for k, (parent, operand) in enumerate(constants):
        index = len(order) + k
        if operand:
            label = _("{name} (constant)").format(name=operand)
        else:
            label = _("input without grad")
        nodes.append(Node(index, label, "constant", operand, depth[index], place[index]))
        edges.append((parent, index))
    if constants:
        # English keeps its "(s)" for one grey input and for several; a translation gives each form
        note = ngettext(
            "{nodes} autograd nodes behind {name}, {count} grey input(s) without grad (None in next_functions).",
            "{nodes} autograd nodes behind {name}, {count} grey input(s) without grad (None in next_functions).",
            len(constants),
        ).format(nodes=len(order), name=target, count=len(constants))
    else:
        note = _("{nodes} autograd nodes behind {name}.").format(nodes=len(order), name=target)
    return Graph(target, tuple(nodes), tuple(edges), note)


def _grey_input(node, slot: int, tensors: Mapping[str, torch.Tensor]) -> str | None:
    """The name of the input at ``slot`` of ``node`` that needs no grad, from the tensors the node
    saved for its backward (``_saved_self`` is the first argument; the others come after): a named
    tensor that shares its memory, or a plain number (``w * 3``).  None when the node saved
    nothing that tells (an addition saves no input)."""
    saved = {}
    for attr in dir(node):
        if attr.startswith("_saved_"):
            try:
                value = getattr(node, attr)
            except Exception:  # a saved tensor freed by backward(), or not readable
                continue
            if isinstance(value, torch.Tensor):
                saved[attr[len("_saved_") :]] = value
    pool = [saved["self"]] if slot == 0 and "self" in saved else [v for k, v in saved.items() if k != "self"]
    named = {
        name
        for name, t in tensors.items()
        if not t.requires_grad
        for v in pool
        if v.data_ptr() == t.data_ptr() and v.shape == t.shape and v.dtype == t.dtype
    }
    if len(named) == 1:
        return named.pop()
    numbers = [v for v in pool if v.dim() == 0 and v.data_ptr() not in {t.data_ptr() for t in tensors.values()}]
    if not named and len(pool) == 1 and len(numbers) == 1:
        return f"{numbers[0].item():g}"
    return None


def _name_the_last_grey_input(constants: list, tensors: Mapping[str, torch.Tensor]) -> list:
    """When exactly one grey input is still unnamed and exactly one named tensor without grad is
    neither a grey input already nor the leaf of anything, that input is that tensor (``y + z``
    saves nothing, but ``draw_graph(loss, {"z": z, ...})`` was told about z)."""
    unnamed = [k for k, (_, name) in enumerate(constants) if not name]
    taken = {name for _, name in constants if name}
    left = [n for n, t in tensors.items() if not t.requires_grad and n not in taken]
    if len(unnamed) != 1 or len(left) != 1:
        return constants
    k = unnamed[0]
    return [*constants[:k], (constants[k][0], left[0]), *constants[k + 1 :]]


def _argument_order(slots: dict[int, list], n_nodes: int) -> dict[int, int]:
    """Each node's first visit in a depth-first walk from the root, inputs in argument order
    (grey inputs numbered after the ``n_nodes`` autograd nodes)."""
    place: dict[int, int] = {}
    stack = [0]
    while stack:
        index = stack.pop()
        if index in place:
            continue
        place[index] = len(place)
        children = [i if kind == "node" else n_nodes + i for kind, i in slots.get(index, [])] if index < n_nodes else []
        stack.extend(reversed(children))
    return place


def _longest_depths(n: int, edges: list, constants: list, first_constant: int) -> list[int]:
    """Depth of each node = the longest path from the root, so a shared node sits below all its users."""
    depth = [0] * n
    children: dict[int, list[int]] = {}
    for a, b in edges:
        children.setdefault(a, []).append(b)
    for k, (parent, _name) in enumerate(constants):
        children.setdefault(parent, []).append(first_constant + k)
    for _round in range(n):  # relax; the graph is acyclic and tiny
        changed = False
        for a, bs in children.items():
            for b in bs:
                if depth[b] < depth[a] + 1:
                    depth[b] = depth[a] + 1
                    changed = True
        if not changed:
            break
    return depth
