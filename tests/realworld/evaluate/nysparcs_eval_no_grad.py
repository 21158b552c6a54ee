# expect: passed=true code=ok
# source: elicutler/nysparcs/eval_no_grad.py (EvalNoGrad context manager)
# adapted: the class kept as written; the evaluation loop around it (sum of loss.item() over batches / number of batches) is the exercise's.
# why: records the previous train/eval mode and grad mode, switches to eval with grad off, and restores both on exit, also when an exception passes through; each batch counts once and the result is a float.
import torch


class EvalNoGrad:
    '''
    Context manager to run pytorch model in eval mode without gradient tracking.
    Upon exit, restore whichever train/eval and grad enabled/disabled modes
    were previously set.
    '''

    def __init__(self, model):
        self.model = model  # models are passed by reference
        self.prevModeTrain = self.model.training
        self.prevGradEnabled = torch.is_grad_enabled()

    def __enter__(self) -> None:
        self.model.train(False)
        torch.set_grad_enabled(False)

    def __exit__(self, *args) -> None:
        self.model.train(self.prevModeTrain)
        torch.set_grad_enabled(self.prevGradEnabled)


def evaluate(model, loss_fn, batches):
    total = 0.0
    with EvalNoGrad(model):
        for x, y in batches:
            total += loss_fn(model(x), y).item()
    return total / len(batches)
