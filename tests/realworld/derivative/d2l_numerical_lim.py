# expect: passed=false code=finite_difference
# source: d2l-ai/d2l-zh/chapter_preliminaries/calculus.md, numerical_lim(f, x, h) (commit 41aebb785679033f303037d38fc603164fdc3a64)
# adapted: the section shrinks h from 0.1 five times by 10x; the last h (1e-5) is used; x is wrapped in a tensor so f gets a tensor; the result is converted with float().
# why: a forward difference (f(x + h) - f(x)) / h with two calls of f and no autograd, instead of one call on a tensor that requires grad plus backward.
import torch


def numerical_lim(f, x, h):
    return (f(x + h) - f(x)) / h


def derivative(f, x):
    h = 1e-5
    return float(numerical_lim(f, torch.tensor(x), h))
