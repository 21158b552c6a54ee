# expect: passed=true code=ok
# why: Correct; warns and writes to stderr, which costs nothing.
import sys
import warnings

import torch


def predict(model, x):
    warnings.warn("predict: switching the model to eval mode")
    sys.stderr.write("predict called\n")
    before = model.training
    model.eval()
    try:
        with torch.set_grad_enabled(False):
            return model(x)
    finally:
        model.train(before)
