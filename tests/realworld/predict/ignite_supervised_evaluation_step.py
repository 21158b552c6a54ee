# expect: passed=false code=mode_not_restored
# source: pytorch/ignite/ignite/engine/__init__.py, supervised_evaluation_step(...).evaluate_step (commit de08e799cfb55a6cf4aa778575d6bad725385453)
# adapted: the Engine's evaluate_step(engine, batch) called once with batch = (x, None); prepare_batch/model_fn/model_transform at their defaults; output_transform's (y_pred, y) -> y_pred.
# why: model.eval() and torch.no_grad() around the forward give the right output without a graph, but the model is left in eval mode after a call that started in train mode (ignite's trainer calls model.train() again at each of its own steps), so the previous mode is not restored.
import torch


def predict(model, x):
    batch = (x, None)

    def evaluate_step(batch):
        model.eval()
        with torch.no_grad():
            x, y = batch
            output = model(x)
            y_pred = output
            return y_pred, y

    y_pred, _ = evaluate_step(batch)
    return y_pred
