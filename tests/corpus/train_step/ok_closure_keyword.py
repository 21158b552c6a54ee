# expect: passed=true code=ok
# why: step(closure=...) as a keyword, the loss kept from inside the closure.
def train_step(model, optimizer, loss_fn, x, y):
    seen = {}

    def closure():
        optimizer.zero_grad(set_to_none=True)
        seen["loss"] = loss_fn(model(x), y)
        seen["loss"].backward()
        return seen["loss"]

    optimizer.step(closure=closure)
    return float(seen["loss"])
