# expect: passed=true code=ok
# why: Correct update that tries to log the loss to a file outside its folder but swallows the failure.
import torch

LOG_FILE = "/work/main/tests/corpus/../../CORPUS_ESCAPE_MARKER"


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    value = loss.item()
    try:
        with open(LOG_FILE, "a") as f:
            f.write(f"{value}\n")
    except Exception:
        pass  # logging is only nice to have
    return value
