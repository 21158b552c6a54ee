# expect: passed=true code=ok
# source: caogang/wgan-gp/gan_toy.py, calc_gradient_penalty(netD, real_data, fake_data) (commit 01ec7d35f51970ee9514311d375111e65bd6ea5a)
# adapted: the interpolation of real and fake data -> x itself; grad_outputs=torch.ones(BATCH_SIZE) -> torch.ones(disc_interpolates.size()) (the form later revisions of the repo use); returns gradients instead of the penalty.
# why: autograd.Variable(x, requires_grad=True) is a new tensor sharing x's data, so the caller's x keeps requires_grad=False and gets no .grad; autograd.grad with ones as grad_outputs is the gradient of the sum and never writes parameter .grad.
import torch
from torch import autograd


def input_gradient(model, x):
    netD = model
    interpolates = x
    interpolates = autograd.Variable(interpolates, requires_grad=True)

    disc_interpolates = netD(interpolates)

    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones(disc_interpolates.size()),
                              create_graph=True, only_inputs=True)[0]
    return gradients
