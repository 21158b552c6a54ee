# expect: passed=false code=mode_not_restored
# source: karpathy/nanoGPT/train.py, estimate_loss() (commit 005475c4cfb801a872e72603140e0cc638435e64)
# adapted: the eval_iters random get_batch(split) draws -> the given batches; `logits, loss = model(X, Y)` -> loss_fn(model(X), Y); one split; returns losses.mean() as the original stores it.
# why: @torch.no_grad and eval mode are right, but it ends with an unconditional model.train() (wrong when the caller's model was in eval) and returns a 0-d tensor, not a float.
import torch


@torch.no_grad()
def evaluate(model, loss_fn, batches):
    model.eval()
    losses = torch.zeros(len(batches))
    for k, (X, Y) in enumerate(batches):
        logits = model(X)
        loss = loss_fn(logits, Y)
        losses[k] = loss.item()
    out = losses.mean()
    model.train()
    return out
