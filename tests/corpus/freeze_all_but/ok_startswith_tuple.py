# expect: passed=true code=ok
# why: str.startswith with a tuple, and a second pass for the count
def freeze_all_but(model, trainable):
    for name, p in model.named_parameters():
        p.requires_grad = name.startswith(tuple(trainable))
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
