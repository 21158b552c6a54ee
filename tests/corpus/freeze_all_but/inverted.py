# expect: passed=false code=inverted
# why: freezes the named parameters and trains the rest
def freeze_all_but(model, trainable):
    total = 0
    for name, p in model.named_parameters():
        frozen = any(name.startswith(prefix) for prefix in trainable)
        p.requires_grad_(not frozen)
        total += p.numel() if p.requires_grad else 0
    return total
