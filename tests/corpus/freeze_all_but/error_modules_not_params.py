# expect: passed=false code=error
# why: calls requires_grad_ on module names taken from named_parameters
def freeze_all_but(model, trainable):
    for name, p in model.named_parameters():
        model.get_submodule(name).requires_grad_(name in trainable)
    return 0
