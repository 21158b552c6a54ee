# expect: passed=true code=ok
# why: Correct update that prints shapes, the loss, per-parameter gradient norms and the new weights.
import torch


def train_step(model, optimizer, loss_fn, x, y):
    print("==== train_step ====")
    print("x:", tuple(x.shape), "y:", tuple(y.shape))
    optimizer.zero_grad()
    out = model(x)
    print("output:", out)
    loss = loss_fn(out, y)
    print("loss:", loss.item())
    loss.backward()
    with torch.no_grad():
        total = 0.0
        for name, p in model.named_parameters():
            if p.grad is not None:
                norm = p.grad.norm().item()
                total += norm ** 2
                print(f"  grad norm of {name}: {norm:.6f}")
        print("  total grad norm:", total ** 0.5)
    optimizer.step()
    for name, p in model.named_parameters():
        print("  after step", name, p.detach())
    print("====================")
    return loss.item()
