# expect: passed=true code=ok
# why: a plain list used as a queue with an index, nodes remembered by id()
def graph_ops(t):
    order = [] if t.grad_fn is None else [t.grad_fn]
    ids = {id(n) for n in order}
    i = 0
    while i < len(order):
        for child, _ in order[i].next_functions:
            if child is not None and id(child) not in ids:
                ids.add(id(child))
                order.append(child)
        i += 1
    return [n.__class__.__name__ for n in order]
