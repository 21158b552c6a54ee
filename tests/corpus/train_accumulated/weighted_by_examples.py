# expect: passed=false code=weighted_by_examples
# why: Weights each micro-batch loss by its share of the examples (one big batch's gradient) instead of dividing by accum_steps.
def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    losses = []
    for start in range(0, len(micro_batches), accum_steps):
        group = micro_batches[start:start + accum_steps]
        total = sum(len(x) for x, _ in group)
        optimizer.zero_grad()
        for x, y in group:
            loss = loss_fn(model(x), y)
            (loss * len(x) / total).backward()
            losses.append(loss.item())
        optimizer.step()
    return losses
