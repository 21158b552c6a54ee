# expect: passed=false code=never_unfreezes
# source: microsoft/LoRA/loralib/utils.py, mark_only_lora_as_trainable(model, bias='none') (commit 2eb74c2dc816ffb89a8217158a837952df7cbcfe)
# adapted: the fixed `'lora_' not in n` -> `not any(t in n for t in trainable)` (the same test over the given list); bias='none' (the default), so the function returns after the first loop; returns the trainable numel (the original returns None).
# why: only ever sets requires_grad = False (on parameters whose name contains none of the strings); a named parameter that was frozen before the call stays frozen (never_unfreezes). The test is also a substring test (`t in n`), so "0" keeps "10.weight" trainable.
import torch


def freeze_all_but(model, trainable):
    for n, p in model.named_parameters():
        if not any(t in n for t in trainable):
            p.requires_grad = False
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
