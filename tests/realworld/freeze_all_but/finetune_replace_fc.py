# expect: passed=false code=replaced_parameters
# source: thaoducphung/deep-learning/Exercises/frozen_parameters.py (a copy of the fine-tuning example in pytorch/tutorials beginner_source/blitz/autograd_tutorial.py)
# adapted: `model.fc = nn.Linear(512, 10)` -> each trainable prefix names a Linear submodule that is replaced by a fresh nn.Linear of the same shape.
# why: freezes every parameter, then "unfreezes" by swapping in new modules: the trainable parameters are new objects with new values, not the model's own ones (and a prefix that is not a Linear module crashes).
import torch
from torch import nn


def freeze_all_but(model, trainable):
    # Freeze all the parameters in the network
    for param in model.parameters():
        param.requires_grad = False

    for prefix in trainable:
        old = model.get_submodule(prefix)
        setattr(model, prefix, nn.Linear(old.in_features, old.out_features))

    return sum(p.numel() for p in model.parameters() if p.requires_grad)
