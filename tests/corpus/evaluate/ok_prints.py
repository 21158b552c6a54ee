# expect: passed=true code=ok
# why: Correct, printing every batch loss.
import torch


def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    values = []
    with torch.no_grad():
        for i, (x, y) in enumerate(batches):
            values.append(loss_fn(model(x), y).item())
            print(f"batch {i}: {values[-1]:.4f}")
    model.train(was_training)
    return sum(values) / len(values)
