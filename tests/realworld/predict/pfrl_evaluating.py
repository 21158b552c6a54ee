# expect: passed=false code=mode_not_restored
# source: zengxyu/vpp-learning/pfrl/utils/contexts.py, evaluating(net) (a vendored copy of pfnet/pfrl's helper)
# adapted: the context manager kept as written; predict wraps the forward in torch.no_grad() and evaluating(model).
# why: `istrain = net.train` stores the bound method, not net.training, so `if istrain:` is always true and the finally block always calls net.train(): restored on error, but to train mode even when the model was in eval.
from contextlib import contextmanager

import torch


@contextmanager
def evaluating(net):
    """Temporarily switch to evaluation mode."""
    istrain = net.train
    try:
        net.eval()
        yield net
    finally:
        if istrain:
            net.train()


def predict(model, x):
    with torch.no_grad(), evaluating(model):
        return model(x)
