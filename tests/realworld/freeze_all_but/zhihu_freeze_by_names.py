# expect: passed=false code=layer_name_match
# source: https://www.zhihu.com/question/311095447/answer/589307812 (set_freeze_by_names / unfreeze_by_names, pasted with that attribution into public repos)
# adapted: the helper functions kept; freeze_all_but freezes every parameter, then calls unfreeze_by_names(model, trainable), and returns the trainable numel.
# why: matches top-level child names exactly (named_children(), `name not in layer_names`): prefix "1" does not unfreeze child "10", and a dotted prefix like "fc.weight" matches no child at all.
from collections.abc import Iterable

import torch


def set_freeze_by_names(model, layer_names, freeze=True):
    if not isinstance(layer_names, Iterable):
        layer_names = [layer_names]
    for name, child in model.named_children():
        if name not in layer_names:
            continue
        for param in child.parameters():
            param.requires_grad = not freeze


def freeze_by_names(model, layer_names):
    set_freeze_by_names(model, layer_names, True)


def unfreeze_by_names(model, layer_names):
    set_freeze_by_names(model, layer_names, False)


def freeze_all_but(model, trainable):
    for param in model.parameters():
        param.requires_grad = False
    unfreeze_by_names(model, trainable)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
