# expect: passed=true code=ok
# why: The closure form of torch.optim's docs: step(closure) runs the closure (clear, forward, loss, backward) first.
def train_step(model, optimizer, loss_fn, x, y):
    def closure():
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        return loss

    return optimizer.step(closure).item()
