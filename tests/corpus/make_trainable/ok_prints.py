# expect: passed=true code=ok
# why: correct, and prints what it made
import torch


def make_trainable(values):
    t = torch.as_tensor(values, dtype=torch.float32).detach().clone().requires_grad_(True)
    print("made", t, "leaf:", t.is_leaf)
    return t
