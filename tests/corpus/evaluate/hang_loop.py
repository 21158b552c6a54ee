# expect: passed=false code=timeout
# why: Loops over the batches forever.
def evaluate(model, loss_fn, batches):
    i = 0
    while i < len(batches):
        i = i % len(batches)
