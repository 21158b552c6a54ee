# expect: passed=false code=finite_difference
# why: Central difference with h = 1e-4: two calls of f, no backward.
import torch


def derivative(f, x):
    h = 1e-4
    up = f(torch.tensor(x + h, dtype=torch.float64))
    down = f(torch.tensor(x - h, dtype=torch.float64))
    return ((up - down) / (2 * h)).item()
