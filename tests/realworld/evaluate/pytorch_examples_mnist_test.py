# expect: passed=false code=mode_not_restored
# source: pytorch/examples/mnist/main.py, test(model, device, test_loader) (commit 09654b86fcd7b489840546d9ad0cf9b629dc50d0)
# adapted: F.nll_loss(output, target, reduction='sum') -> loss_fn(output, target).item() * len(data); len(test_loader.dataset) -> total number of examples; dropped accuracy; returns test_loss.
# why: leaves the model in eval mode (never restored); it also averages per example (sum of losses / number of examples), which with unequal batches is weighted_by_examples, not the per-batch mean.
import torch


def evaluate(model, loss_fn, batches):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for data, target in batches:
            output = model(data)
            test_loss += loss_fn(output, target).item() * len(data)  # sum up batch loss
    test_loss /= sum(len(data) for data, _ in batches)
    return test_loss
