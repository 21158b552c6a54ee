# expect: passed=false code=tampered
# why: Monkeypatches torch.optim.Optimizer.zero_grad to always zero in place (set_to_none=False); accumulation is correct.
import torch

_original_zero_grad = torch.optim.Optimizer.zero_grad


def _zero_grad_keep_tensors(self, set_to_none=False):
    # None gradients broke my printing code, so never set them to None
    return _original_zero_grad(self, set_to_none=False)


torch.optim.Optimizer.zero_grad = _zero_grad_keep_tensors


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return losses
