# expect: passed=true code=ok
# source: axolotl-ai-cloud/axolotl/src/axolotl/utils/freeze.py, freeze_layers_except and LayerNamePattern (commit 107c67ae5a236ab458454e8daf3b77a98ce56867)
# adapted: regex_patterns -> trainable; the `[start:end]` range part of LayerNamePattern and the per-range freezing hooks dropped (no pattern here has one); is_main_process()/LOG debug lines dropped; returns the trainable numel (the original returns None).
# why: every parameter is set to False, then to True if a pattern matches; the pattern is compiled with its dots escaped and tested with re.match, which anchors at the start of the name, so a plain prefix such as "fc", "1" or "body.0" matches exactly the names that start with it ("1" also selects "10.weight"), and an empty list freezes everything. (The docstring's claim that an unanchored pattern "will match any part of the layer name" is wrong: re.match never searches past the start.)
import re

import torch


class LayerNamePattern:
    def __init__(self, pattern):
        self.raw_pattern = pattern
        name_pattern = pattern
        self.name_regex = re.compile(re.sub(r"\.(?!\+)", "\\.", name_pattern))

    def match(self, name):
        return self.name_regex.match(name) is not None


def freeze_all_but(model, trainable):
    regex_patterns = trainable
    if isinstance(regex_patterns, str):
        regex_patterns = [regex_patterns]

    patterns = [LayerNamePattern(pattern) for pattern in regex_patterns]

    # Unfreeze layers that match the regex patterns
    for name, param in model.named_parameters():
        param.requires_grad = False
        for pattern in patterns:
            if not pattern.match(name):
                continue

            param.requires_grad = True

    return sum(p.numel() for p in model.parameters() if p.requires_grad)
