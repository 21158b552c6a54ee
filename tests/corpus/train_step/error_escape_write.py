# expect: passed=false code=error
# why: Correct update, then writes the loss to a file outside its folder without try/except; the sandbox refuses.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    value = loss.item()
    with open("/work/main/tests/corpus/../../CORPUS_ESCAPE_MARKER", "w") as f:
        f.write(f"last loss: {value}\n")
    return value
