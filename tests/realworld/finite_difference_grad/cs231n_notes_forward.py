# expect: passed=false code=forward_difference
# source: https://cs231n.github.io/optimization-1/ ("Computing the gradient numerically with finite differences"), as reproduced at https://stevengong.co/notes/Numerical-Gradient
# adapted: numpy -> torch as in the starter-code port (itertools.product for nditer, .item() for the saved value); kept the hard-coded h = 0.00001 and np.zeros(x.shape) -> torch.zeros(x.shape).
# why: (f(x+h) - f(x)) / h is the one-sided forward difference, not the central one; it also ignores the eps argument (h is fixed) and always builds a float32 result.
import itertools

import torch


def finite_difference_grad(f, x, eps=1e-4):
    fx = f(x) # evaluate function value at original point
    grad = torch.zeros(x.shape)
    h = 0.00001

    # iterate over all indexes in x
    for ix in itertools.product(*[range(n) for n in x.shape]):
        # evaluate function at x+h
        old_value = x[ix].item()
        x[ix] = old_value + h # increment by h
        fxh = f(x) # evalute f(x + h)
        x[ix] = old_value # restore to previous value (very important!)

        # compute the partial derivative
        grad[ix] = (fxh - fx) / h # the slope
    return grad
