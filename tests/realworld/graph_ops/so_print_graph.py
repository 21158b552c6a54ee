# expect: passed=false code=duplicates
# source: https://stackoverflow.com/a/51814367 (print_graph(g, level=0); the same function is pasted, with that link, into many public repos)
# adapted: print(' -' * level*2, g) -> append type(g).__name__ to a list; the recursion is unchanged.
# why: no visited set, so a node reachable along two paths (e.g. the AccumulateGrad of a tensor used twice) is listed twice; it is also depth-first. Handles None and a leaf (grad_fn None -> []) correctly.
import torch


def graph_ops(t):
    out = []

    def print_graph(g, level=0):
        if g == None: return
        out.append(type(g).__name__)
        for subg in g.next_functions:
            print_graph(subg[0], level+1)

    print_graph(t.grad_fn)
    return out
