"""The references of the lesson 1 exercises, in the judge: walks over ``grad_fn``/``next_functions``
(the right one, and the ones students' usual mistakes produce), and which parameters a list of
prefixes selects."""

from __future__ import annotations

from collections import deque


def _children(node) -> list:
    return [child for child, _ in node.next_functions if child is not None]


def bfs_nodes(root) -> list:
    """Every node reachable from ``root`` once, breadth-first, children in order."""
    if root is None:
        return []
    seen, order, queue = {root}, [], deque([root])
    while queue:
        node = queue.popleft()
        order.append(node)
        for child in _children(node):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    return order


def bfs_names(root) -> list[str]:
    """The reference answer of ``graph_ops``."""
    return [type(node).__name__ for node in bfs_nodes(root)]


def bfs_names_with_repeats(root, limit: int = 500) -> list[str]:
    """Breadth-first without remembering visited nodes: shared nodes come back."""
    if root is None:
        return []
    order, queue = [], deque([root])
    while queue and len(order) < limit:
        node = queue.popleft()
        order.append(type(node).__name__)
        queue.extend(_children(node))
    return order


def bfs_names_dedupe_by_name(root) -> list[str]:
    """Breadth-first that remembers class names instead of nodes (two leaves count once)."""
    if root is None:
        return []
    seen, order, queue = {type(root).__name__}, [], deque([root])
    while queue:
        node = queue.popleft()
        order.append(type(node).__name__)
        for child in _children(node):
            if type(child).__name__ not in seen:
                seen.add(type(child).__name__)
                queue.append(child)
    return order


def dfs_orders(root) -> list[list[str]]:
    """Depth-first orders a student might produce: recursive pre-order, and a stack that pops
    the last child pushed (children in reverse), both visiting every node once."""
    if root is None:
        return [[]]
    recursive: list = []
    seen: set = set()

    def visit(node):
        if node in seen:
            return
        seen.add(node)
        recursive.append(node)
        for child in _children(node):
            visit(child)

    visit(root)
    stack_order, seen2, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node in seen2:
            continue
        seen2.add(node)
        stack_order.append(node)
        stack.extend(_children(node))
    return [[type(n).__name__ for n in order] for order in (recursive, stack_order)]


def expected_flags(names: list[str], prefixes) -> list[bool]:
    return [any(name.startswith(prefix) for prefix in prefixes) for name in names]
