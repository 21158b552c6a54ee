# expect: passed=false code=never_unfreezes
# source: harvey-wei/dl_tutorial/dl_pytorch_topics/dl_torch_freez_pretrained.py
# adapted: `not name.startswith('head')` -> not any(name.startswith(p) for p in trainable); returns the trainable numel; kept the print of trainable names. Dropped the file's later `model.requires_grad_(False)` demo line.
# why: the startswith test is right, but it only ever sets requires_grad=False: a parameter under a trainable prefix that was frozen before the call stays frozen.
import torch


def freeze_all_but(model, trainable):
    for name, param in model.named_parameters():
        if not any(name.startswith(p) for p in trainable):  # Freeze everything except the classification head
            param.requires_grad = False

    trainable_names = [name for name, p in model.named_parameters() if p.requires_grad]
    print("Trainable parameters:", trainable_names)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
