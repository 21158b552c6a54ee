# expect: passed=false code=substring_match
# why: uses `prefix in name`, so 0 also matches 10.weight
def freeze_all_but(model, trainable):
    total = 0
    for name, p in model.named_parameters():
        keep = any(prefix in name for prefix in trainable)
        p.requires_grad_(keep)
        total += p.numel() * keep
    return total
