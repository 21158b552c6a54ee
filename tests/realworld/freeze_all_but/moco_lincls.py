# expect: passed=false code=exact_name_match
# source: facebookresearch/moco/main_lincls.py, "freeze all layers but the last fc" (commit 3631be074a0a14ab85c206631729fe035e54b525); the same lines are copied into many SimCLR/SimSiam linear-eval scripts
# adapted: the literal ['fc.weight', 'fc.bias'] -> trainable; returns the numel of the parameters still requiring grad (the original asserts there are 2 of them).
# why: compares full parameter names (`name not in trainable`), so a prefix such as "fc" or "1" matches nothing and everything gets frozen; it also never sets requires_grad=True.
import torch


def freeze_all_but(model, trainable):
    # freeze all layers but the last fc
    for name, param in model.named_parameters():
        if name not in trainable:
            param.requires_grad = False
    parameters = list(filter(lambda p: p.requires_grad, model.parameters()))
    return sum(p.numel() for p in parameters)
