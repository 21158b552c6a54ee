# expect: passed=false code=clears_after_step
# source: karpathy/nanoGPT/train.py, training loop (commit 005475c4cfb801a872e72603140e0cc638435e64)
# adapted: `logits, loss = model(X, Y)` -> loss_fn(model(X), Y); get_batch('train') prefetch -> next micro-batch; GradScaler (disabled for fp32) -> plain backward; grad_clip=1.0 (nanoGPT default); collects loss.item() * gradient_accumulation_steps per micro-batch, as its lossf logging does.
# why: loss / gradient_accumulation_steps and one step per group are right, but zero_grad(set_to_none=True) comes only after step(), so stale gradients on a dirty start join the first update; it also clips before step.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    gradient_accumulation_steps = accum_steps
    grad_clip = 1.0
    losses = []
    batches = iter(micro_batches)
    X, Y = next(batches)  # fetch the very first batch
    for _ in range(len(micro_batches) // gradient_accumulation_steps):
        # forward backward update, with optional gradient accumulation to simulate larger batch size
        for micro_step in range(gradient_accumulation_steps):
            logits = model(X)
            loss = loss_fn(logits, Y)
            loss = loss / gradient_accumulation_steps  # scale the loss to account for gradient accumulation
            # immediately async prefetch next batch while model is doing the forward pass on the GPU
            X, Y = next(batches, (None, None))
            # backward pass, with gradient scaling if training in fp16
            loss.backward()
            losses.append(loss.item() * gradient_accumulation_steps)
        # clip the gradient
        if grad_clip != 0.0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        # step the optimizer
        optimizer.step()
        # flush the gradients as soon as we can, no need for this memory anymore
        optimizer.zero_grad(set_to_none=True)
    return losses
