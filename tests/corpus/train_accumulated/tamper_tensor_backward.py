# expect: passed=false code=tampered
# why: Replaces torch.Tensor.backward with a version that scales by 1/accum_steps, instead of scaling the loss itself.
import torch

_original_backward = torch.Tensor.backward
_SCALE = 1.0


def _scaled_backward(self, *args, **kwargs):
    return _original_backward(self * _SCALE, *args, **kwargs)


torch.Tensor.backward = _scaled_backward


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    global _SCALE
    _SCALE = 1.0 / accum_steps   # every backward() is now automatically a mean
    try:
        losses = []
        optimizer.zero_grad()
        for i, (x, y) in enumerate(micro_batches):
            loss = loss_fn(model(x), y)
            loss.backward()
            losses.append(loss.item())
            if (i + 1) % accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
        return losses
    finally:
        _SCALE = 1.0
