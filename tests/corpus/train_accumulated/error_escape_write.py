# expect: passed=false code=error
# why: Correct accumulation that writes the losses to a file outside its folder without try/except; the sandbox refuses.
import torch

OUT = "/work/main/tests/corpus/../../CORPUS_ESCAPE_MARKER"


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
    with open(OUT, "w") as f:
        f.write(",".join(str(v) for v in losses))
    return losses
