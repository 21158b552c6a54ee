# expect: passed=false code=replaced_parameters
# why: replaces frozen parameters by detached copies instead of flagging them
import torch


def freeze_all_but(model, trainable):
    total = 0
    for name, p in list(model.named_parameters()):
        if any(name.startswith(prefix) for prefix in trainable):
            p.requires_grad_(True)
            total += p.numel()
        else:
            owner_name, _, attr = name.rpartition(".")
            owner = model.get_submodule(owner_name)
            setattr(owner, attr, torch.nn.Parameter(p.detach().clone(), requires_grad=False))
    return total
