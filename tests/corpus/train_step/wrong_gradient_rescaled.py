# expect: passed=false code=wrong_gradient
# why: Halves every gradient after backward ("smaller steps are safer"): step() does not see the gradient backward() computed.
def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for p in model.parameters():
        p.grad *= 0.5
    optimizer.step()
    return loss.item()
