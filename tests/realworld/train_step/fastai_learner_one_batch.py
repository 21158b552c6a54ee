# expect: passed=false code=clears_after_step
# source: fastai/fastai/fastai/learner.py, Learner._do_one_batch (commit 5bc369c27846819edb825253fbb7bec0213cc2cb)
# adapted: the Learner's state (self.xb/self.yb/self.pred/self.loss_grad) -> locals; self.model/self.loss_func/self.opt -> model/loss_fn/optimizer (a torch optimizer, as fastai's OptimWrapper forwards zero_grad to it); the callback events (self('after_pred') ... _with_events(..., 'step', ...)) dropped; returns self.loss as a float.
# why: backward, step, then opt.zero_grad() right after the step: correct from a clean start, but stale gradients held before the first call are added into the first update (clears_after_step).
import torch


def train_step(model, optimizer, loss_fn, x, y):
    xb, yb = (x,), (y,)
    training = True
    pred = model(*xb)
    if len(yb):
        loss_grad = loss_fn(pred, *yb)
        loss = loss_grad.clone()
    if not training or not len(yb): return
    loss_grad.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
