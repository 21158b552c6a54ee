# expect: passed=false code=depth_first
# why: a list popped from the end is a stack, not a queue
def graph_ops(t):
    if t.grad_fn is None:
        return []
    stack, seen, out = [t.grad_fn], set(), []
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        out.append(type(node).__name__)
        stack.extend(child for child, _ in node.next_functions if child is not None)
    return out
