# expect: passed=false code=tampered
# why: Imports the grader's autograder.exercises._lesson3.recorder and replaces its functions with no-ops, then does a correct update.
import types

import torch
import autograder.exercises._lesson3.recorder

# the recorder kept flagging my step, switch it off
for _name, _obj in list(vars(autograder.exercises._lesson3.recorder).items()):
    if isinstance(_obj, types.FunctionType):
        setattr(autograder.exercises._lesson3.recorder, _name, lambda *args, **kwargs: None)


def train_step(model, optimizer, loss_fn, x, y):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
