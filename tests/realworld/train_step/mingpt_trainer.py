# expect: passed=false code=clips_gradients
# source: karpathy/minGPT/mingpt/trainer.py (commit 00aa9cb2edfd85f4bd80d256838ed7eec3088921)
# adapted: `logits, self.loss = model(x, y)` -> logits = model(x); loss = loss_fn(logits, y); config.grad_norm_clip -> its default 1.0; returns loss.item().
# why: clearing (model.zero_grad(set_to_none=True)) is before backward, but clip_grad_norm_ runs between backward and step, so the update does not use the raw batch gradient whenever the norm exceeds 1.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    grad_norm_clip = 1.0
    # forward the model
    logits = model(x)
    loss = loss_fn(logits, y)

    # backprop and update the parameters
    model.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), grad_norm_clip)
    optimizer.step()
    return loss.item()
