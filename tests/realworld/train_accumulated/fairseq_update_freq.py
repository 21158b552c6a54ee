# expect: passed=false code=weighted_by_examples
# source: facebookresearch/fairseq/fairseq/trainer.py, Trainer.train_step (the update_freq "delayed update loop", maybe_no_sync, multiply_grads, clip_grad_norm) (commit 4a67371a46db2629d5eecf486600a4a8c79f6d56), with FairseqTask.train_step, FairseqOptimizer.multiply_grads and fairseq.utils.clip_grad_norm_
# adapted: each group of accum_steps micro-batches is one call of train_step(samples) (--update-freq accum_steps); one process (data_parallel_world_size 1, so maybe_no_sync gives the dummy ExitStack and numer is 1), no DDP/BMUF/TPU/fp16, OOM and NaN-detector recovery dropped; the criterion is a summed (reduce=True) loss, loss_fn(model(x), y) * len(x), with sample_size = the number of examples (sentence_avg); optimizer.backward(loss) -> loss.backward(); cfg.optimization.clip_norm at its default 0.0 (fairseq/dataclass/configs.py), so clip_grad_norm_ only measures; task.optimizer_step -> optimizer.step(); records each micro-batch's mean loss.
# why: zero_grad() at the start of each update is right and the step comes once per group, but the summed losses are backpropagated and the gradients then multiplied in place by 1 / (total number of examples of the group): each micro-batch is weighted by its number of examples (one big batch's gradient), not the mean of the micro-batch gradients, which differs when the micro-batches have different sizes (weighted_by_examples). The gradient is rescaled between backward() and step() rather than through the loss.
import contextlib

import torch


def train_accumulated(model, optimizer, loss_fn, micro_batches, accum_steps):
    update_freq = accum_steps
    clip_norm = 0.0
    data_parallel_world_size = 1
    losses = []

    def params():  # FairseqOptimizer.params
        for param_group in optimizer.param_groups:
            for p in param_group["params"]:
                yield p

    def criterion(model, sample):
        x, y = sample
        loss = loss_fn(model(x), y) * len(x)  # summed over the sample (reduce=True)
        sample_size = len(x)  # sentence_avg
        logging_output = {"loss": loss.data, "sample_size": sample_size}
        return loss, sample_size, logging_output

    def task_train_step(sample, model, criterion, optimizer, ignore_grad=False):
        model.train()
        loss, sample_size, logging_output = criterion(model, sample)
        if ignore_grad:
            loss *= 0
        loss.backward()  # optimizer.backward(loss)
        return loss, sample_size, logging_output

    def multiply_grads(c):  # FairseqOptimizer.multiply_grads
        """Multiplies grads by a constant *c*."""
        for p in params():
            if p.grad is not None:
                p.grad.data.mul_(c)

    def clip_grad_norm_(params, max_norm):  # fairseq.utils.clip_grad_norm_
        grads = [p.grad.detach() for p in params if p.grad is not None]
        if len(grads) == 1:
            total_norm = torch.norm(grads[0], p=2, dtype=torch.float32)
        else:
            total_norm = torch.norm(torch.stack([torch.norm(g, p=2, dtype=torch.float32) for g in grads]))
        if max_norm > 0:
            max_norm = float(max_norm)
            clip_coef = (max_norm / (total_norm + 1e-6)).clamp_(max=1)
            for g in grads:
                g.mul_(clip_coef)
        return total_norm

    for start in range(0, len(micro_batches), update_freq):
        samples = micro_batches[start:start + update_freq]

        # Trainer.train_step
        model.train()
        optimizer.zero_grad()

        # forward and backward pass
        logging_outputs, sample_size = [], 0
        for i, sample in enumerate(samples):  # delayed update loop

            def maybe_no_sync():
                """
                Whenever *samples* contains more than one mini-batch, we
                want to accumulate gradients locally and only call
                all-reduce in the last backwards pass.
                """
                if (
                    data_parallel_world_size > 1
                    and hasattr(model, "no_sync")
                    and i < len(samples) - 1
                ):
                    return model.no_sync()
                else:
                    return contextlib.ExitStack()  # dummy contextmanager

            with maybe_no_sync():
                # forward and backward
                loss, sample_size_i, logging_output = task_train_step(
                    sample, model, criterion, optimizer, ignore_grad=False
                )
                del loss

            logging_outputs.append(logging_output)
            sample_size += sample_size_i

        sample_size = float(sample_size)

        # multiply gradients by (data_parallel_size / sample_size) since
        # DDP normalizes by the number of data parallel workers for
        # improved fp16 precision.
        # Thus we get (sum_of_gradients / sample_size) at the end.
        numer = data_parallel_world_size
        multiply_grads(numer / (sample_size or 1.0))

        # clip grads
        grad_norm = clip_grad_norm_(list(params()), clip_norm)
        if not torch.isfinite(grad_norm).all():
            # check local gradnorm single GPU case, trigger NanDetector
            raise FloatingPointError("gradients are Nan/Inf")

        # take an optimization step
        optimizer.step()

        losses.extend(lo["loss"].item() / lo["sample_size"] for lo in logging_outputs)
    return losses
