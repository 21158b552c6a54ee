# expect: passed=true code=ok
# why: Correct accumulation that prints every micro-batch loss, the gradient norm before each step and a summary.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    print(f"{len(micro_batches)} micro-batches, accum_steps={accum_steps}")
    losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(micro_batches):
        loss = loss_fn(model(x), y)
        print(f"  micro-batch {i}: loss={loss.item():.5f}")
        (loss / accum_steps).backward()
        losses.append(loss.item())
        if (i + 1) % accum_steps == 0:
            with torch.no_grad():
                sq = sum(float(p.grad.pow(2).sum()) for p in model.parameters() if p.grad is not None)
            print(f"  -> step {(i + 1) // accum_steps}, grad norm {sq ** 0.5:.5f}")
            optimizer.step()
            optimizer.zero_grad()
    print("losses:", losses)
    return losses
