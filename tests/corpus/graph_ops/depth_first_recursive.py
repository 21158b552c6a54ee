# expect: passed=false code=depth_first
# why: a recursive pre-order walk gives depth-first order
def graph_ops(t):
    out, seen = [], set()

    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        out.append(type(node).__name__)
        for child, _ in node.next_functions:
            visit(child)

    visit(t.grad_fn)
    return out
