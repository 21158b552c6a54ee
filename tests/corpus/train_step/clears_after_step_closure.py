# expect: passed=false code=clears_after_step
# why: A closure without zero_grad; the gradients are cleared only after the step.
def train_step(model, optimizer, loss_fn, x, y):
    def closure():
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    optimizer.zero_grad()
    return loss.item()
