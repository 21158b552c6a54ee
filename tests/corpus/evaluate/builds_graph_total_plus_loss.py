# expect: passed=false code=builds_graph
# why: The classic bug: total += loss keeps every batch's graph alive until the end.
def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    total = 0
    for x, y in batches:
        total += loss_fn(model(x), y)
    model.train(was_training)
    return float(total) / len(batches)
