# expect: passed=true code=ok
# why: sets every flag from startswith and sums numel
def freeze_all_but(model, trainable):
    total = 0
    for name, p in model.named_parameters():
        keep = any(name.startswith(prefix) for prefix in trainable)
        p.requires_grad_(keep)
        if keep:
            total += p.numel()
    return total
