# expect: passed=false code=never_clears
# source: IBM/aihwkit/examples/01_simple_layer.py (commit 0582f5fed8807dccf5296dfc9716b7e3b0e421ba); reported in IBM/aihwkit#446
# adapted: AnalogSGD opt -> optimizer, mse_loss -> loss_fn; one epoch of the loop; returns loss.item(). Kept the print.
# why: forward, backward, step with no zero_grad at all; the second call steps on the sum of both batches' gradients (the maintainers confirmed it as a bug in #446).
import torch


def train_step(model, optimizer, loss_fn, x, y):
    # Add the training Tensor to the model (input).
    pred = model(x)
    # Add the expected output Tensor.
    loss = loss_fn(pred, y)
    # Run training (backward propagation).
    loss.backward()

    optimizer.step()
    print('Loss error: {:.16f}'.format(loss))
    return loss.item()
