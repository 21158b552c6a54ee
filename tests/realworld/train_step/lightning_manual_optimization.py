# expect: passed=true code=ok
# source: https://lightning.ai/docs/pytorch/latest/common/optimization.html (Manual Optimization minimal example; also Lightning-AI/pytorch-lightning docs/source-pytorch/model/manual_optimization.rst)
# adapted: training_step(self, batch, batch_idx) -> the exercise signature; self.optimizers() -> optimizer; self.compute_loss(batch) -> loss_fn(model(x), y); self.manual_backward(loss) -> loss.backward().
# why: opt.zero_grad() first, then loss, backward, one opt.step(): the update uses only this batch's gradient.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    opt = optimizer
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss.item()
