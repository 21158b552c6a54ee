# expect: passed=false code=builds_graph
# why: Uses .item() but forgets no_grad: every batch still builds a graph.
def evaluate(model, loss_fn, batches):
    was_training = model.training
    model.eval()
    total = 0.0
    for x, y in batches:
        total += loss_fn(model(x), y).item()
    model.train(was_training)
    return total / len(batches)
