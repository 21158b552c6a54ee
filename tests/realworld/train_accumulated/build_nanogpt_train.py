# expect: passed=false code=clips_gradients
# source: karpathy/build-nanogpt/train_gpt2.py, "one optimization step" (commit ec39245425b2c82a38c0787f27e5f9d7082c973b)
# adapted: train_loader.next_batch() -> the next micro-batch of the group; `_, loss = model(x, y)` -> loss_fn(model(x), y); dropped autocast/DDP/lr schedule; records the unscaled loss per micro-batch.
# why: clears once per update before the micro-batches and divides each loss by grad_accum_steps (a correct mean), but clip_grad_norm_(…, 1.0) runs before optimizer.step().
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    grad_accum_steps = accum_steps
    losses = []
    for start in range(0, len(micro_batches), grad_accum_steps):
        # one optimization step
        model.train()
        optimizer.zero_grad()
        loss_accum = 0.0
        for micro_step in range(grad_accum_steps):
            x, y = micro_batches[start + micro_step]
            logits = model(x)
            loss = loss_fn(logits, y)
            losses.append(loss.item())
            # we have to scale the loss to account for gradient accumulation,
            # because the gradients just add on each successive backward().
            # addition of gradients corresponds to a SUM in the objective, but
            # instead of a SUM we want MEAN. Scale the loss here so it comes out right
            loss = loss / grad_accum_steps
            loss_accum += loss.detach()
            loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
    return losses
