# expect: passed=false code=wrong_count
# why: sets the flags right but forgets to return the count
def freeze_all_but(model, trainable):
    for name, p in model.named_parameters():
        p.requires_grad_(any(name.startswith(prefix) for prefix in trainable))
