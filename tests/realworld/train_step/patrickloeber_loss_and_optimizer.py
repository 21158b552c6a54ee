# expect: passed=false code=swapped_loss_args
# source: patrickloeber/pytorchTutorial/06_1_loss_and_optimizer.py (commit 7b19836180d13a5726c3f6890a887fef2d0afa26)
# adapted: X/Y -> x/y, nn.MSELoss() instance -> loss_fn; one iteration; returns l.item(). Kept `loss(Y, y_predicted)` (target first) and zero_grad after step.
# why: the loss is called as loss_fn(target, prediction) (harmless for MSE, wrong/crashing for CrossEntropyLoss); it also clears only after step() (clears_after_step on a dirty start), but the spec says a swapped call is always swapped_loss_args.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    # predict = forward pass with our model
    y_predicted = model(x)

    # loss
    l = loss_fn(y, y_predicted)

    # calculate gradients = backward pass
    l.backward()

    # update weights
    optimizer.step()

    # zero the gradients after updating
    optimizer.zero_grad()
    return l.item()
