# expect: passed=true code=ok
# source: huggingface/pytorch-image-models/train.py, train_one_epoch (commit 2aabaef039d918d453b58714ab84562609981112)
# adapted: loader -> micro_batches, args.grad_accum_steps -> accum_steps; defaults kept: no --amp (amp_autocast=suppress, loss_scaler=None, so that branch of _backward is dropped), args.clip_grad=None (utils.dispatch_clip_grad(..., mode='norm') written as clip_grad_norm_, not reached), no mixup, no prefetcher/channels_last/EMA; the model is not DDP-wrapped, so has_no_sync = hasattr(model, "no_sync") is False and the no_sync branch (kept) is not taken; timing, logging, saver and lr scheduler dropped; records loss.item() * accum_steps, as losses_m does.
# why: zero_grad() before the loop (clears a dirty start) and after each update; every loss divided by accum_steps; step() at the last micro-batch of each group (need_update): the mean gradient per update.
from contextlib import suppress

import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    loader = micro_batches
    amp_autocast = suppress
    clip_grad = None
    second_order = hasattr(optimizer, 'is_second_order') and optimizer.is_second_order
    has_no_sync = hasattr(model, "no_sync")
    losses = []

    model.train()

    last_accum_steps = len(loader) % accum_steps
    last_batch_idx = len(loader) - 1
    last_batch_idx_to_accum = len(loader) - last_accum_steps

    optimizer.zero_grad()
    for batch_idx, (input, target) in enumerate(loader):
        last_batch = batch_idx == last_batch_idx
        need_update = last_batch or (batch_idx + 1) % accum_steps == 0
        if batch_idx >= last_batch_idx_to_accum:
            accum_steps = last_accum_steps

        def _forward():
            with amp_autocast():
                output = model(input)
                loss = loss_fn(output, target)
            if accum_steps > 1:
                loss /= accum_steps
            return loss

        def _backward(_loss):
            _loss.backward(create_graph=second_order)
            if need_update:
                if clip_grad is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad)
                optimizer.step()

        if has_no_sync and not need_update:
            with model.no_sync():
                loss = _forward()
                _backward(loss)
        else:
            loss = _forward()
            _backward(loss)

        losses.append(loss.item() * accum_steps)

        if not need_update:
            continue

        optimizer.zero_grad()
    return losses
