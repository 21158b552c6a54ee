# expect: passed=false code=mode_not_restored
# source: wenet-e2e/wekws/kws/utils/executor.py, Executor.cv (commit 24a0de00b84ef51bbad5b646877a47630f93510f)
# adapted: (key, feats, target, feats_lengths) batches -> (feats, target); criterion(logits, target, feats_lengths) -> loss_fn(logits, target); dropped logging; returns total_loss / num_seen_utts.
# why: model.eval() is never undone. The value is also off: losses are weighted by utterance count, and num_seen_utts starts at 1 and is incremented twice per batch, so the result is roughly half the per-example mean.
import torch


def evaluate(model, loss_fn, batches):
    model.eval()
    # in order to avoid division by 0
    num_seen_utts = 1
    total_loss = 0.0
    with torch.no_grad():
        for batch_idx, (feats, target) in enumerate(batches):
            num_utts = feats.size(0)
            if num_utts == 0:
                continue
            num_seen_utts += num_utts
            logits = model(feats)
            loss = loss_fn(logits, target)
            if torch.isfinite(loss):
                num_seen_utts += num_utts
                total_loss += loss.item() * num_utts
    return total_loss / num_seen_utts
