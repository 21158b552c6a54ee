# expect: passed=false code=error
# why: an unclosed bracket is a syntax error
def freeze_all_but(model, trainable):
    return sum([p.numel() for p in model.parameters()
