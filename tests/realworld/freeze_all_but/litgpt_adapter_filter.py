# expect: passed=false code=substring_match
# source: Lightning-AI/litgpt/litgpt/adapter.py, mark_only_adapter_as_trainable / adapter_filter (commit 05401183ff8d50f9bc830094690e043bad181450)
# adapted: adapter_filter's fixed `"adapter_wte" in key or "gating_factor" in key` -> `any(p in key for p in trainable)` (the same test over the given list); returns the trainable numel (the original returns None).
# why: requires_grad is set on every parameter, True or False, so nothing stale survives, but the test is `prefix in name`: "0" also selects "10.weight" (substring_match). Also correct whenever no prefix occurs inside another name.
from typing import Any

import torch


def freeze_all_but(model, trainable):
    def adapter_filter(key: str, value: Any) -> bool:
        return any(p in key for p in trainable)

    def mark_only_adapter_as_trainable(model) -> None:
        """Sets `requires_grad=False` for all non-adapter weights."""
        for name, param in model.named_parameters():
            param.requires_grad = adapter_filter(name, param)

    mark_only_adapter_as_trainable(model)
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
