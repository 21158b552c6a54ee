# expect: passed=false code=builds_graph
# why: Calls eval() but not no_grad: the forward pass still builds a graph.
def predict(model, x):
    was_training = model.training
    model.eval()
    try:
        return model(x)
    finally:
        model.train(was_training)
