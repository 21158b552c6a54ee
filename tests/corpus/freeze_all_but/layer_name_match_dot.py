# expect: passed=false code=layer_name_match
# why: Adds a dot to each prefix so that "1" would not catch "10.weight": whole layer names, not the prefixes asked for.
def freeze_all_but(model, trainable):
    total = 0
    for name, p in model.named_parameters():
        keep = any(name == prefix or name.startswith(prefix + ".") for prefix in trainable)
        p.requires_grad = keep
        if keep:
            total += p.numel()
    return total
