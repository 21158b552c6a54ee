# expect: passed=true code=ok
# why: breadth-first one level at a time, skipping nodes already seen
def graph_ops(t):
    level = [t.grad_fn] if t.grad_fn is not None else []
    seen = list(level)
    result = []
    while level:
        result += [type(n).__name__ for n in level]
        nxt = []
        for node in level:
            for child, _ in node.next_functions:
                if child is None or any(child is s for s in seen):
                    continue
                seen.append(child)
                nxt.append(child)
        level = nxt
    return result
