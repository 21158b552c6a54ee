"""Models, losses, optimizers and data for the lesson 3 scenarios.

A scenario is a plain, frozen description; ``build`` turns it into real PyTorch objects.  The
sandboxed runner and the judge both call ``build`` with the same description, so the judge can
recompute every reference gradient in its own process, where student code never ran.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch
from torch import nn

from ...i18n import N_, _, pgettext
from .._rng import seeded

MODELS = ("linear", "mlp", "classifier", "two_layer_relu")
OPTIMIZERS = ("sgd", "sgd_momentum", "adam")
# In words for the student (marked here, translated where a case is named).
DESCRIPTIONS = {
    "linear": N_("a linear model with MSE loss"),
    "mlp": N_("a small tanh network with MSE loss"),
    "classifier": N_("a small classifier with cross-entropy loss"),
    "two_layer_relu": N_("a small leaky-ReLU network with L1 loss"),
}
OPTIMIZER_NAMES = {"sgd": N_("SGD"), "sgd_momentum": N_("SGD with momentum"), "adam": N_("Adam")}


@dataclass(frozen=True)
class Scenario:
    """One instrumented run of a student's function."""

    model: str
    optimizer: str
    start: str  # "fresh": every .grad is None; "dirty": stale gradients before the first call
    seed: int
    n_batches: int = 3  # train_step: calls; train_accumulated: micro-batches
    accum_steps: int = 1
    lr: float = 0.05

    @property
    def name(self) -> str:
        """In words for the student: which model, loss, optimizer and start the check used."""
        if self.model == "params":  # manual_sgd_step: the tensors of exercises.manual_sgd_step.make_params
            dtype = str(params_dtype(self.seed)).replace("torch.", "")
            text = pgettext("scenario", "three {dtype} tensors, the last one's .grad None, lr={lr}")
            return text.format(dtype=dtype, lr=f"{self.lr:g}")
        fresh = self.start == "fresh"
        # One whole phrase per start, with accum_steps or without (train_step has none).
        if self.accum_steps > 1:
            text = (
                pgettext("scenario", "{model}, {optimizer}, every .grad None at the start, accum_steps={accum_steps}")
                if fresh
                else pgettext(
                    "scenario",
                    "{model}, {optimizer}, stale gradients already in .grad before the first call, "
                    "accum_steps={accum_steps}",
                )
            )
        else:
            text = (
                pgettext("scenario", "{model}, {optimizer}, every .grad None at the start")
                if fresh
                else pgettext(
                    "scenario", "{model}, {optimizer}, stale gradients already in .grad before the first call"
                )
            )
        model = _(DESCRIPTIONS[self.model]) if self.model in DESCRIPTIONS else self.model
        optimizer = _(OPTIMIZER_NAMES[self.optimizer]) if self.optimizer in OPTIMIZER_NAMES else self.optimizer
        return text.format(model=model, optimizer=optimizer, accum_steps=self.accum_steps)


@dataclass
class Setup:
    model: nn.Module
    optimizer: torch.optim.Optimizer
    loss_fn: nn.Module
    batches: list[tuple[torch.Tensor, torch.Tensor]]
    stale: list[torch.Tensor] | None


def _model(kind: str, gen: torch.Generator) -> tuple[nn.Module, nn.Module, callable]:
    """The model, its loss and a function drawing one batch (x, y) of a given size."""

    def normal(*shape):
        return torch.randn(*shape, generator=gen)

    if kind == "linear":
        model, loss = nn.Linear(3, 1), nn.MSELoss()
        true_w = normal(3, 1)
        return model, loss, lambda n: (lambda x: (x, x @ true_w + 0.1 * normal(n, 1)))(normal(n, 3))
    if kind == "mlp":
        model = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 2))
        return model, nn.MSELoss(), lambda n: (normal(n, 4), normal(n, 2))
    if kind == "classifier":
        model = nn.Sequential(nn.Linear(5, 8), nn.Sigmoid(), nn.Linear(8, 3))
        labels = lambda n: torch.randint(0, 3, (n,), generator=gen)  # noqa: E731
        return model, nn.CrossEntropyLoss(), lambda n: (normal(n, 5), labels(n))
    if kind == "two_layer_relu":
        model = nn.Sequential(nn.Linear(2, 5), nn.LeakyReLU(0.1), nn.Linear(5, 1))
        return model, nn.L1Loss(), lambda n: (normal(n, 2), normal(n, 1))
    raise ValueError(f"unknown model {kind!r}; choose from {MODELS}")


def build_model(scenario: Scenario) -> tuple[nn.Module, nn.Module, list]:
    """A fresh model (initialised from the scenario's seed), its loss and its batches."""
    gen = torch.Generator().manual_seed(scenario.seed)
    with seeded(scenario.seed):
        model, loss_fn, draw = _model(scenario.model, gen)
    # Different batch sizes on purpose: a mean over one batch is not a mean over another.
    batches = [draw(4 + (i % 3)) for i in range(scenario.n_batches)]
    return model, loss_fn, batches


def build(scenario: Scenario) -> Setup:
    model, loss_fn, batches = build_model(scenario)
    params = list(model.parameters())
    if scenario.optimizer == "sgd":
        optimizer = torch.optim.SGD(params, lr=scenario.lr)
    elif scenario.optimizer == "sgd_momentum":
        optimizer = torch.optim.SGD(params, lr=scenario.lr, momentum=0.9)
    elif scenario.optimizer == "adam":
        optimizer = torch.optim.Adam(params, lr=scenario.lr / 5)
    else:
        raise ValueError(f"unknown optimizer {scenario.optimizer!r}; choose from {OPTIMIZERS}")
    stale = None
    if scenario.start == "dirty":
        gen = torch.Generator().manual_seed(scenario.seed + 7919)
        # Stale gradients as large as real ones, so leaking them changes the update visibly.
        stale = [torch.randn(p.shape, generator=gen) for p in params]
        for p, g in zip(params, stale):
            p.grad = g.clone()
    elif scenario.start != "fresh":
        raise ValueError(f"unknown start {scenario.start!r}; choose 'fresh' or 'dirty'")
    return Setup(model, optimizer, loss_fn, batches, stale)


# Every check has one model with an asymmetric loss (cross-entropy: a loss called as
# loss_fn(target, prediction) fails there) and one with a symmetric loss, rotated by the seed.
SYMMETRIC = ("linear", "mlp", "two_layer_relu")


def lesson3_suite(exercise: str, start: str = "all", seed: int = 0) -> list[Scenario]:
    """The scenarios of one check.  ``start`` is "fresh", "dirty" or "all"; ``seed`` varies
    the models, optimizers and data, so hidden tests differ from the visible ones."""
    if start not in ("fresh", "dirty", "all"):
        raise ValueError(f"start must be 'fresh', 'dirty' or 'all', not {start!r}")
    if exercise == "manual_sgd_step":
        # No optimizer and no history: two learning rates, float32 and float64 tensors.
        return [Scenario("params", "none", "fresh", seed=2 * seed + i, lr=lr) for i, lr in enumerate((0.1, 0.03))]
    starts = ("fresh", "dirty") if start == "all" else (start,)
    scenarios = []
    for i, model in enumerate((SYMMETRIC[seed % len(SYMMETRIC)], "classifier")):
        optimizer = OPTIMIZERS[(seed + 2 * i) % len(OPTIMIZERS)]
        for s in starts:
            base = Scenario(model=model, optimizer=optimizer, start=s, seed=1000 * seed + 10 * i + len(s))
            if exercise == "train_accumulated":
                k = 2 + (seed + i) % 3
                base = replace(base, accum_steps=k, n_batches=2 * k)
            scenarios.append(base)
    return scenarios


def params_dtype(seed: int) -> torch.dtype:
    """The dtype of manual_sgd_step's tensors for ``seed``: float64 for odd seeds, float32 for even ones."""
    return torch.float64 if seed % 2 else torch.float32
