# expect: passed=true code=ok
# source: skorch-dev/skorch/skorch/net.py, NeuralNet.train_step / train_step_single / _zero_grad_optimizer / _step_optimizer (commit b5e280030ccbeffd526c7d34703ac9d15c262987)
# adapted: the NeuralNet methods become local functions over model/optimizer/loss_fn; batch = (x, y); self.infer -> model(x); self.get_loss -> loss_fn(y_pred, y); the step accumulator (first value stored) kept as a list; the 'on_grad_computed' notification dropped; one optimizer; returns step['loss'] as a float.
# why: the optimizer is stepped with a closure that clears (zero_grad), forwards, computes the loss and calls backward(), which is the torch.optim closure form: each step sees exactly this batch's gradient, dirty start or not.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    batch = (x, y)
    steps = []  # FirstStepAccumulator

    def train_step_single(batch):
        model.train()  # self._set_training(True)
        Xi, yi = batch
        y_pred = model(Xi)
        loss = loss_fn(y_pred, yi)
        loss.backward()
        return {
            'loss': loss,
            'y_pred': y_pred,
        }

    def _zero_grad_optimizer(set_to_none=None):
        if set_to_none is None:
            optimizer.zero_grad()
        else:
            optimizer.zero_grad(set_to_none=set_to_none)

    def step_fn():
        _zero_grad_optimizer()
        step = train_step_single(batch)
        steps.append(step)
        return step['loss']

    def _step_optimizer(step_fn):
        if step_fn is None:
            optimizer.step()
        else:
            optimizer.step(step_fn)

    _step_optimizer(step_fn)
    return steps[0]['loss'].item()
