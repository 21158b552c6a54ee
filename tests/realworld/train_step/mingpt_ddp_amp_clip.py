# expect: passed=false code=clips_gradients
# source: pytorch/examples/distributed/minGPT-ddp/mingpt/trainer.py, Trainer._run_batch, use_amp branch (commit 1b36393d6eb1e909efb321eaea7facf473c7e1c4); reported in pytorch/examples#1196 ("add scaler.unscale_(optimizer) before clip_grad_norm_")
# adapted: the DDP-wrapped model -> the plain model (no DDP); `_, loss = self.model(source, targets)` -> loss_fn(model(x), y); use_amp=True; grad_norm_clip -> 1.0 (gpt2_train_cfg.yaml); torch.cuda.amp.GradScaler() -> torch.amp.GradScaler("cpu") made once at module level; autocast(device_type="cuda", dtype=torch.float16) -> device_type="cpu", dtype=torch.bfloat16; train=True.
# why: clears first (set_to_none=True), then clips the still-scaled gradients (no scaler.unscale_ before clip_grad_norm_, so the threshold applies to grad * scale and nearly always fires) before scaler.step(): clips_gradients, as its float32 twin.
import torch

use_amp = True
grad_norm_clip = 1.0
scaler = torch.amp.GradScaler("cpu")


def train_step(model, optimizer, loss_fn, x, y):
    source, targets, train = x, y, True
    with torch.set_grad_enabled(train), torch.amp.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=(use_amp)):
        loss = loss_fn(model(source), targets)

    if train:
        optimizer.zero_grad(set_to_none=True)
        if use_amp:
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_norm_clip)
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_norm_clip)
            optimizer.step()

    return loss.item()
