# expect: passed=true code=ok
# source: pytorch/ignite/ignite/engine/__init__.py, supervised_training_step_amp(...).update (commit de08e799cfb55a6cf4aa778575d6bad725385453)
# adapted: the Engine's update(engine, batch) called once per micro-batch, engine.state.iteration -> the 1-based micro-batch count; prepare_batch/model_fn/model_transform/output_transform at their defaults; scaler -> torch.amp.GradScaler("cpu") made once at module level; autocast("cuda", enabled=True) -> autocast("cpu", dtype=torch.bfloat16); gradient_accumulation_steps -> accum_steps; records output_transform's loss * gradient_accumulation_steps.
# why: zero_grad() at the first micro-batch of each group ((iteration - 1) % steps == 0, which also clears a dirty start), each loss divided by the number of steps, scaler.step/update at the last micro-batch: the float32 twin is correct accumulation.
import torch
from torch.amp import autocast

scaler = torch.amp.GradScaler("cpu")


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    gradient_accumulation_steps = accum_steps
    losses = []

    def update(iteration, batch):
        if (iteration - 1) % gradient_accumulation_steps == 0:
            optimizer.zero_grad()
        model.train()
        x, y = batch
        with autocast("cpu", dtype=torch.bfloat16, enabled=True):
            output = model(x)
            y_pred = output
            loss = loss_fn(y_pred, y)
            if gradient_accumulation_steps > 1:
                loss = loss / gradient_accumulation_steps
        if scaler:
            scaler.scale(loss).backward()
            if iteration % gradient_accumulation_steps == 0:
                scaler.step(optimizer)
                scaler.update()
        else:
            loss.backward()
            if iteration % gradient_accumulation_steps == 0:
                optimizer.step()
        return (loss * gradient_accumulation_steps).item()

    for iteration, batch in enumerate(micro_batches, start=1):
        losses.append(update(iteration, batch))
    return losses
