# expect: passed=false code=exact_name_match
# why: compares whole names with == instead of startswith
def freeze_all_but(model, trainable):
    total = 0
    for name, p in model.named_parameters():
        p.requires_grad_(name in trainable)
        total += p.numel() if name in trainable else 0
    return total
