# expect: passed=false code=wrong_count
# why: counts parameter tensors instead of scalars
def freeze_all_but(model, trainable):
    count = 0
    for name, p in model.named_parameters():
        keep = any(name.startswith(prefix) for prefix in trainable)
        p.requires_grad_(keep)
        count += keep
    return count
