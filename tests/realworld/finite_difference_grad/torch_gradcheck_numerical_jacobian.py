# expect: passed=true code=ok
# source: pytorch/pytorch/torch/autograd/gradcheck.py, the slow-mode numerical Jacobian: get_numerical_jacobian_wrt_specific_input, _iter_tensor (strided branch), _compute_numerical_gradient, _combine_jacobian_cols, read in the torch 2.13.0 wheel the course pins
# adapted: one input x and a scalar output; the `input.requires_grad` assertion dropped (the exercise's x does not require grad); _with_prepare_inputs / _prepare_input reduced to what they do for a dense input (call f on the original x and clone the output); the dtype/shape neighbourhood check, the complex and sparse branches dropped; eps -> the eps argument (gradcheck's default is 1e-3); the (numel, 1) Jacobian column reshaped to x's shape.
# why: for every element (in index order) it writes orig - eps and orig + eps into that element of x.data in place, calls f, and puts the element back with copy_(orig), so x ends bit-identical; each entry is (f(x + eps) - f(x - eps)) / (2 * eps), the central difference with the given eps, computed without autograd.
import functools
from itertools import product

import torch


def _iter_tensor(x_tensor):
    # Use .data here to get around the version check
    x_tensor = x_tensor.data
    for d_idx, x_idx in enumerate(product(*[range(m) for m in x_tensor.size()])):
        yield x_tensor, x_idx, d_idx


def _compute_numerical_gradient(fn, entry, v, norm_v):
    orig = entry.clone()
    entry.copy_(orig - v)
    outa = fn()
    entry.copy_(orig + v)
    outb = fn()
    entry.copy_(orig)

    def compute(a, b):
        ret = (b - a) / (2 * norm_v)  # use central difference approx
        return ret.detach().reshape(-1)

    return tuple(compute(a, b) for (a, b) in zip(outa, outb))


def finite_difference_grad(f, x, eps=1e-4):
    input = x
    outputs = (f(input),)

    def wrapped_fn():
        return tuple(a.clone() for a in (f(input),))

    jacobian_cols = {}
    for xt, idx, d_idx in _iter_tensor(input):
        input_to_perturb = xt[idx]
        jvp_fn = functools.partial(_compute_numerical_gradient, wrapped_fn, input_to_perturb, norm_v=eps)
        jacobian_cols[d_idx] = list(jvp_fn(eps))

    # _combine_jacobian_cols / _allocate_jacobians_with_outputs
    jacobians = [t.new_zeros((input.numel(), t.numel())) for t in outputs]
    for i, jacobian in enumerate(jacobians):
        for k, v in jacobian_cols.items():
            jacobian[k] = v[i]
    return jacobians[0].reshape(input.shape)
