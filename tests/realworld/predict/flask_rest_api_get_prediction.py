# expect: passed=false code=builds_graph
# source: pytorch/tutorials/intermediate_source/flask_rest_api_tutorial.py, get_prediction(image_bytes)
# adapted: transform_image(image_bytes) -> x; returns the raw outputs instead of outputs.max(1). The tutorial calls model.eval() once at module level after loading; nothing in the function.
# why: model.forward(tensor) runs with autograd on (no torch.no_grad), so the output carries a graph; the function itself never puts the model in eval mode either (not_eval).
import torch


def predict(model, x):
    tensor = x
    outputs = model.forward(tensor)
    return outputs
