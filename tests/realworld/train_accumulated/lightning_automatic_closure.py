# expect: passed=true code=ok
# source: Lightning-AI/pytorch-lightning/src/lightning/pytorch/loops/optimization/automatic.py, Closure.closure / _AutomaticOptimization.run / _make_zero_grad_fn / ClosureResult.from_training_step_output (commit d10e0054f01f5fa92e5d102d55b53f29e6600853)
# adapted: Trainer(accumulate_grad_batches=accum_steps) looping over micro_batches; training_step(batch) -> loss_fn(model(x), y); the hooks at their defaults (optimizer_zero_grad -> optimizer.zero_grad(), optimizer_step -> optimizer.step(closure=...), strategy backward -> loss.backward()); fit_loop._should_accumulate() -> not ((batch_idx + 1) % accumulate_grad_batches == 0 or last batch); progress counters, callbacks and the DDP no_sync block dropped; records the loss training_step returned.
# why: the closure runs training_step, then zero_grad on the first batch of each group (after the forward, before the backward), then backward of loss / accumulate_grad_batches; batches that accumulate only run the closure, the last one runs optimizer.step(closure): one step per group on the mean gradient, a dirty start cleared by the first zero_grad.
import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    accumulate_grad_batches = accum_steps
    losses = []
    model.train()

    for batch_idx, batch in enumerate(micro_batches):

        def training_step(batch):
            x, y = batch
            loss = loss_fn(model(x), y)
            losses.append(loss.item())
            return loss

        def step_fn():  # _training_step + ClosureResult.from_training_step_output
            closure_loss = training_step(batch)
            # accumulate the loss. If ``accumulate_grad_batches == 1``, no effect
            # note: avoid in-place operation `x /= y` here on purpose
            closure_loss = closure_loss / accumulate_grad_batches
            return closure_loss

        def backward_fn(loss):
            loss.backward()

        is_first_batch_to_accumulate = batch_idx % accumulate_grad_batches == 0
        if not is_first_batch_to_accumulate:
            zero_grad_fn = None
        else:
            def zero_grad_fn():
                optimizer.zero_grad()

        @torch.enable_grad()
        def closure():
            closure_loss = step_fn()

            if zero_grad_fn is not None:
                zero_grad_fn()

            if backward_fn is not None and closure_loss is not None:
                backward_fn(closure_loss)

            return closure_loss.detach().clone()

        should_accumulate = not ((batch_idx + 1) % accumulate_grad_batches == 0 or batch_idx == len(micro_batches) - 1)
        if should_accumulate:
            # For gradient accumulation
            closure()
        else:
            # gradient update with accumulated gradients
            optimizer.step(closure=closure)
    return losses
