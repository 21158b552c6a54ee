# expect: passed=false code=swapped_loss_args
# why: loss_fn(y, prediction): harmless with MSE, fails with cross-entropy.
def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(y, model(x))
    loss.backward()
    optimizer.step()
    return loss.item()
