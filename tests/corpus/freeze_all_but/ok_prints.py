# expect: passed=true code=ok
# why: correct, and prints a table of the flags
def freeze_all_but(model, trainable):
    total = 0
    for name, p in model.named_parameters():
        keep = any(name.startswith(prefix) for prefix in trainable)
        p.requires_grad_(keep)
        print(f"{name:20s} trainable={keep}")
        total += p.numel() if keep else 0
    print("trainable scalars:", total)
    return total
