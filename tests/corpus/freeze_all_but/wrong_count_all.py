# expect: passed=false code=wrong_count
# why: returns the number of all scalars, trainable or not
def freeze_all_but(model, trainable):
    for name, p in model.named_parameters():
        p.requires_grad_(any(name.startswith(prefix) for prefix in trainable))
    return sum(p.numel() for p in model.parameters())
