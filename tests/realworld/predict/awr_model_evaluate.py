# expect: passed=false code=mode_not_restored
# source: lukDev/awr_pytorch/src/models/model.py, Model.evaluate(self, x)
# adapted: the method on the nn.Module subclass becomes a function of (model, x); self -> model.
# why: eval + no_grad for the forward, then an unconditional self.train(): a model that was in eval mode before the call comes back in train mode.
import torch


def predict(model, x):
    model.eval()
    with torch.no_grad():
        y = model.forward(x)
    model.train()

    return y
