# expect: passed=false code=not_restored_on_error
# source: pytorch/tutorials/beginner_source/transfer_learning_tutorial.py, visualize_model(model, num_images=6) (commit 039ee0ead6a2b72669cc75bee113f8b009e86a8c)
# adapted: the dataloader loop and plotting dropped; the one forward on x is returned. Kept was_training / model.eval() / torch.no_grad() / model.train(mode=was_training).
# why: eval mode, no graph, and the previous mode is restored on the normal path, but not in a try/finally: if the forward raises, the model stays in eval mode.
import torch


def predict(model, x):
    was_training = model.training
    model.eval()

    with torch.no_grad():
        inputs = x
        outputs = model(inputs)

    model.train(mode=was_training)
    return outputs
