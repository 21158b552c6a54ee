# expect: passed=true code=ok
# why: freezes the whole model first, then unfreezes the named parameters
def freeze_all_but(model, trainable):
    model.requires_grad_(False)
    count = 0
    for name, p in model.named_parameters():
        for prefix in trainable:
            if name.startswith(prefix):
                p.requires_grad_(True)
                count += p.numel()
                break
    return count
