"""head_forward: the reference gradients come from torch.autograd and reach the head only."""

import torch

from autograder.diagnose import diagnose_function
from gradebox.exercises._lesson4 import build_batches
from gradexercises.head_forward import job as exercise
from gradexercises.head_forward import judge as judge


def test_reference_matches_backward():
    scenario = exercise.suite(seed=4)[0]
    backbone, head = exercise.build_pair(scenario)
    ((x, _),) = build_batches(scenario)
    out = head(backbone(x).detach())
    (out * exercise.output_weights(scenario, len(x))).sum().backward()
    expected_out, expected_grads = judge._reference(scenario, x)
    assert torch.allclose(out.detach(), expected_out)
    for p, g in zip(head.parameters(), expected_grads):
        assert torch.allclose(p.grad, g)


def test_no_grad_passes_plain_fails():
    def correct(backbone, head, x):
        with torch.no_grad():
            features = backbone(x)
        return head(features)

    def plain(backbone, head, x):
        return head(backbone(x))

    for seed in (0, 1, 31):
        assert diagnose_function("head_forward", correct, seed=seed)[0].code == "ok"
        assert diagnose_function("head_forward", plain, seed=seed)[0].code == "backbone_tracked"


def test_freezing_named_not_tracking():
    def freezes(backbone, head, x):
        for p in backbone.parameters():
            p.requires_grad_(False)
        return head(backbone(x))

    assert diagnose_function("head_forward", freezes)[0].code == "froze_params"


def test_inference_mode_gets_own_code():
    def inference_features(backbone, head, x):
        with torch.inference_mode():
            features = backbone(x)
        return head(features)

    verdict, _ = diagnose_function("head_forward", inference_features)
    assert verdict.code == "inference_tensor"
    assert "torch.no_grad()" in verdict.message
