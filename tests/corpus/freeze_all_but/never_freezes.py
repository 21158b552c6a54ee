# expect: passed=false code=never_freezes
# why: only unfreezes the named parameters and leaves the others as they were
def freeze_all_but(model, trainable):
    for name, p in model.named_parameters():
        if any(name.startswith(prefix) for prefix in trainable):
            p.requires_grad_(True)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
