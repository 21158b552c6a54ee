# expect: passed=true code=ok
# source: elicutler/nysparcs/eval_no_grad.py (EvalNoGrad context manager)
# adapted: the class kept as written; predict is `with EvalNoGrad(model): return model(x)`.
# why: eval mode and grad off inside the block, previous train/eval and grad modes restored in __exit__, which also runs when the forward raises; __exit__ returns None so the exception reaches the caller.
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


def predict(model, x):
    with EvalNoGrad(model):
        return model(x)
