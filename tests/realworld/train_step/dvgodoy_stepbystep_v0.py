# expect: passed=false code=clears_after_step
# source: dvgodoy/PyTorchStepByStep/model_training/v0.py (commit 2b050857807d8292b466088c3dfc45540d6fa485)
# adapted: x_train_tensor/y_train_tensor -> x/y; one epoch of the loop; returns loss.item(). Kept zero_grad() after step().
# why: gradients are cleared only after the update, so stale gradients already in .grad on a dirty start are added into the first step.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    # Sets model to TRAIN mode
    model.train()
    # Step 1 - Computes model's predicted output - forward pass
    yhat = model(x)
    # Step 2 - Computes the loss
    loss = loss_fn(yhat, y)
    # Step 3 - Computes gradients for both "b" and "w" parameters
    loss.backward()
    # Step 4 - Updates parameters using gradients and the learning rate
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()
