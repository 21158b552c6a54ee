# expect: passed=false code=weighted_by_examples
# source: https://huggingface.co/docs/transformers/main/grad_accumulation ("Loss scaling": compute_loss(outputs, labels, num_items_in_batch) = F.cross_entropy(..., reduction="sum") / num_items_in_batch)
# adapted: the Trainer's num_items_in_batch = number of examples over all micro-batches of one update; with a mean-reduced loss_fn the per-micro-batch sum is loss * len(x). Clears before the loop and after each step.
# why: every micro-batch is weighted by its share of the examples (a per-example mean over the whole group), not by 1/accum_steps; with micro-batches of different sizes that is not the mean of the micro-batch gradients.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    optimizer.zero_grad()
    for start in range(0, len(micro_batches), accum_steps):
        group = micro_batches[start:start + accum_steps]
        num_items_in_batch = sum(len(x) for x, _ in group)
        for x, y in group:
            outputs = model(x)
            loss = loss_fn(outputs, y)
            losses.append(loss.item())
            # reduction="sum" / num_items_in_batch, as in the docs' compute_loss
            loss = loss * len(x) / num_items_in_batch
            loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return losses
