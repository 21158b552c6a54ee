# expect: passed=true code=ok
# source: https://pytorch.org/docs/stable/optim.html ("optimizer.step(closure)" example; also quoted in Lightning-AI/pytorch-lightning docs/source/common/optimizers.rst)
# adapted: the loop body over (input, target) becomes one call; the value returned by step(closure) is returned as a float.
# why: the documented closure form: clear, forward, loss, backward inside the closure, one step(closure) call; correct also from a dirty start.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    def closure():
        optimizer.zero_grad()
        output = model(x)
        loss = loss_fn(output, y)
        loss.backward()
        return loss
    loss = optimizer.step(closure)
    return float(loss)
