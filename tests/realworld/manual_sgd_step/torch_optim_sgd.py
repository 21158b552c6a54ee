# expect: passed=false code=no_clear
# source: pytorch/pytorch/torch/optim/sgd.py, SGD.step / _init_group / _single_tensor_sgd (commit 0316fdce3d7cd6b72508ea175f38e4ad19ed5072)
# adapted: momentum/weight decay/maximize (all off by default) removed; @_use_grad_for_differentiable -> torch.no_grad(); the list of params plays one param group.
# why: skips tensors whose .grad is None and updates in place without recording, exactly like torch.optim.SGD, but an optimizer step never clears .grad (that is zero_grad's job), and the exercise asks for the clear.
import torch


def manual_sgd_step(params, lr):
    with torch.no_grad():
        params_with_grad = []
        grads = []
        for p in params:
            if p.grad is not None:
                params_with_grad.append(p)
                grads.append(p.grad)
        for i, param in enumerate(params_with_grad):
            grad = grads[i]
            param.add_(grad, alpha=-lr)
