# expect: passed=false code=detach_only
# source: pytorch/examples/dcgan/main.py, "Update D network: train with fake" (commit 13caa078cd69d74ffb447a9eda09f0a81b809480)
# adapted: netG -> backbone, netD -> head, noise -> x; dropped the trailing .view(-1) of netD's output.
# why: `netD(fake.detach())` gets the right gradients for the head, but `fake = netG(noise)` is computed with tracking on, so the backbone's graph is built and then cut: detach, not tracking off.
import torch


def head_forward(backbone, head, x):
    fake = backbone(x)
    output = head(fake.detach())
    return output
