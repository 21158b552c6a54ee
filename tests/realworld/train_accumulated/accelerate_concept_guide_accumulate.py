# expect: passed=false code=clears_every_micro_batch
# source: huggingface/accelerate/docs/source/concept_guides/gradient_synchronization.md, "the final gradient accumulation API" snippet (commit 16cb6eb80dd9aa8b4df1a63ef57863e455d53b83), run under the semantics of src/accelerate/accelerator.py (Accelerator.accumulate, _do_sync, backward) and src/accelerate/optimizer.py (AcceleratedOptimizer.zero_grad/step) at the same commit
# adapted: without Accelerate: Accelerator(gradient_accumulation_steps=accum_steps) is replaced by stand-ins that do what it does for one process and a plain list of batches: accumulate() counts steps and sets sync_gradients = step % accum_steps == 0; the prepared optimizer's zero_grad()/step() run only when sync_gradients (zero_grad with set_to_none=True); accelerator.backward(loss) divides the loss by accum_steps; no DDP, so no no_sync. The loop body is the snippet's; records the undivided loss.
# why: the snippet calls optimizer.zero_grad() at the TOP of the accumulate block as well as after step(); at the last micro-batch of each group sync_gradients is already True, so that first zero_grad runs and wipes the gradients of the group's earlier micro-batches: each step sees only the last micro-batch's gradient / accum_steps (clears_every_micro_batch in effect).
import contextlib

import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    state = {"step": 0, "sync_gradients": True}

    @contextlib.contextmanager
    def accumulate(model):  # Accelerator.accumulate -> _do_sync
        state["step"] += 1
        state["sync_gradients"] = (state["step"] % accum_steps) == 0
        yield

    def optimizer_zero_grad():  # AcceleratedOptimizer.zero_grad
        if state["sync_gradients"]:
            optimizer.zero_grad(set_to_none=True)

    def optimizer_step():  # AcceleratedOptimizer.step
        if state["sync_gradients"]:
            optimizer.step()

    def accelerator_backward(loss):  # Accelerator.backward
        loss = loss / accum_steps
        loss.backward()

    loss_function = loss_fn
    losses = []
    for batch in micro_batches:
        with accumulate(model):
            optimizer_zero_grad()
            inputs, targets = batch
            outputs = model(inputs)
            loss = loss_function(outputs, targets)
            losses.append(loss.item())
            accelerator_backward(loss)
            optimizer_step()
            optimizer_zero_grad()
    return losses
