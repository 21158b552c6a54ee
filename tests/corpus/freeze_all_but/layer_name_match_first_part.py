# expect: passed=false code=layer_name_match
# why: compares only the first part of the name with the prefixes
def freeze_all_but(model, trainable):
    total = 0
    for name, p in model.named_parameters():
        keep = name.split(".")[0] in trainable
        p.requires_grad_(keep)
        total += p.numel() if keep else 0
    return total
