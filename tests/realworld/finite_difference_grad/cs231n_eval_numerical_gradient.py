# expect: passed=true code=ok
# source: harshalmittal4/cs231n_assignment_solns/cs231n/gradient_check.py, eval_numerical_gradient (the CS231n starter code) (commit a9777b37ae76d34a5209402db1037b0da2815485)
# adapted: numpy -> torch: np.zeros_like -> torch.zeros_like, np.nditer multi_index -> itertools.product over x.shape; `oldval = x[ix]` -> x[ix].item() (a numpy scalar is a copy, a torch index is a view); h -> eps; verbose off.
# why: for each element, x[ix] = old ± h, f evaluated, x[ix] restored exactly, grad = (f(x+h) - f(x-h)) / (2h): the central difference, no autograd, same shape, x ends unchanged. Keeps the unused fx = f(x) call.
import itertools

import torch


def finite_difference_grad(f, x, eps=1e-4):
    h = eps
    verbose = False
    fx = f(x) # evaluate function value at original point
    grad = torch.zeros_like(x)
    # iterate over all indexes in x
    for ix in itertools.product(*[range(n) for n in x.shape]):
        # evaluate function at x+h
        oldval = x[ix].item()
        x[ix] = oldval + h # increment by h
        fxph = f(x) # evalute f(x + h)
        x[ix] = oldval - h
        fxmh = f(x) # evaluate f(x - h)
        x[ix] = oldval # restore

        # compute the partial derivative with centered formula
        grad[ix] = (fxph - fxmh) / (2 * h) # the slope
        if verbose:
            print(ix, grad[ix])
    return grad
