# expect: passed=false code=builds_graph
# source: d2l-ai/d2l-en/d2l/torch.py, evaluate_loss(net, data_iter, loss) and Accumulator (commit 017f064b4f31f570e47a965680049ee9d2d1f1c3)
# adapted: net/data_iter/loss -> model/batches/loss_fn; d2l.reduce_sum/d2l.size -> .sum()/.numel(); dropped `y = d2l.reshape(y, out.shape)` (a regression-only reshape that breaks class-index targets).
# why: no torch.no_grad() (every forward builds a graph) and no model.eval() (Dropout/BatchNorm stay in training behaviour). With a mean-reduced loss_fn, l.sum()/l.numel() is one value per batch, so the weighting itself is per batch.
import torch


class Accumulator:
    """For accumulating sums over `n` variables."""
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def evaluate(model, loss_fn, batches):
    metric = Accumulator(2)  # Sum of losses, no. of examples
    for X, y in batches:
        out = model(X)
        l = loss_fn(out, y)
        metric.add(l.sum(), l.numel())
    return metric[0] / metric[1]
