# expect: passed=false code=none_grad_crash
# source: fastai/fastbook/04_mnist_basics.ipynb, "Creating an Optimizer" (BasicOptim) (commit d920d35d2d1b552121d47ad6b90318113bae8f17)
# adapted: the BasicOptim class kept verbatim; the exercise builds one over params and calls opt.step(); opt.zero_grad() as train_epoch does.
# why: step() reads p.grad.data for every parameter, so the tensor whose .grad is None raises AttributeError; otherwise the update (.data, in place) and the clear (p.grad = None) are right.
import torch


class BasicOptim:
    def __init__(self,params,lr): self.params,self.lr = list(params),lr

    def step(self, *args, **kwargs):
        for p in self.params: p.data -= p.grad.data * self.lr

    def zero_grad(self, *args, **kwargs):
        for p in self.params: p.grad = None


def manual_sgd_step(params, lr):
    opt = BasicOptim(params, lr)
    opt.step()
    opt.zero_grad()
