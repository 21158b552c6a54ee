# expect: passed=false code=clips_gradients
# why: The old DQN-tutorial habit: clamp each .grad.data in place (which does not even bump the version counter).
def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    for param in model.parameters():
        param.grad.data.clamp_(-0.01, 0.01)
    optimizer.step()
    return loss.item()
