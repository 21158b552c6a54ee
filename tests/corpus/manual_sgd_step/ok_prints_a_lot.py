# expect: passed=true code=ok
# why: Correct no_grad in-place update that prints each tensor's shape, gradient norm and change.
import torch


def manual_sgd_step(params, lr):
    print(f"manual_sgd_step: {len(params)} tensors, lr={lr}")
    with torch.no_grad():
        for i, p in enumerate(params):
            if p.grad is None:
                print(f"  [{i}] shape={tuple(p.shape)} has no gradient, skipped")
                continue
            before = p.clone()
            p -= lr * p.grad
            print(f"  [{i}] shape={tuple(p.shape)} grad norm={p.grad.norm().item():.6f}"
                  f" change={(p - before).abs().max().item():.6f}")
            p.grad = None
    print("done")
