# expect: passed=false code=never_unfreezes
# why: only freezes: a named parameter that started frozen stays frozen
def freeze_all_but(model, trainable):
    for name, p in model.named_parameters():
        if not any(name.startswith(prefix) for prefix in trainable):
            p.requires_grad_(False)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
