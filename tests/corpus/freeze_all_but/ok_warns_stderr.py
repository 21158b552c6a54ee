# expect: passed=true code=ok
# why: correct, and warns and writes to stderr
import sys
import warnings


def freeze_all_but(model, trainable):
    if not trainable:
        warnings.warn("freezing the whole model")
    sys.stderr.write("freezing...\n")
    for name, p in model.named_parameters():
        p.requires_grad_(any(name.startswith(prefix) for prefix in trainable))
    return int(sum(p.numel() for p in model.parameters() if p.requires_grad))
