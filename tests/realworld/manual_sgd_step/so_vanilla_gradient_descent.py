# expect: passed=false code=update_tracked
# source: Stack Overflow answer to "Why do we need to call zero_grad() in PyTorch?" (https://stackoverflow.com/questions/48001598), as mirrored at https://flisks.com/python-why-do-we-need-to-call-zero-grad-in-pytorch ("vanilla gradient descent" snippet)
# adapted: W, b -> every tensor in params; the answer zeroes at the top of the next iteration, here after the update. Kept `W -= learning_rate * W.grad.data` outside torch.no_grad().
# why: an in-place update of a leaf that requires grad outside no_grad raises "a leaf Variable that requires grad is being used in an in-place operation"; it also has no None check (W.grad.data on the None tensor).
import torch


def manual_sgd_step(params, lr):
    learning_rate = lr
    for W in params:
        W -= learning_rate * W.grad.data
    for W in params:
        W.grad.data.zero_()
