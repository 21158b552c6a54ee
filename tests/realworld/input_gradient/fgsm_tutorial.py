# expect: passed=false code=touches_param_grad
# source: pytorch/tutorials/beginner_source/fgsm_tutorial.py, test(model, device, test_loader, epsilon) (commit 03cd4915be50f10014722c35b8b04736c145d199)
# adapted: F.nll_loss(output, target) -> output.sum() (the exercise's objective); returns data_grad instead of building the perturbed image.
# why: model.zero_grad() wipes the parameters' .grad (stale grads lost) and loss.backward() then fills them with this input's gradient; it also sets requires_grad on the caller's x and leaves x.grad behind (modifies_input).
import torch


def input_gradient(model, x):
    data = x
    # Set requires_grad attribute of tensor. Important for Attack
    data.requires_grad = True

    # Forward pass the data through the model
    output = model(data)

    # Calculate the loss
    loss = output.sum()

    # Zero all existing gradients
    model.zero_grad()

    # Calculate gradients of model in backward pass
    loss.backward()

    # Collect datagrad
    data_grad = data.grad.data
    return data_grad
