"""Lesson 2 answers that try to pass a finite difference off as autograd, or autograd off as a finite
difference, by getting around the notes the grader keeps of the call (issue 33), and their correct
neighbours.  Each is a Python source defining the exercise's function, usable by
``python -m autograder diagnose``, in a notebook's answer cell, or compiled by ``function_of``.

Before the recorder moved below the student's objects, ``DERIVATIVE_FD_CLEARS_CALLS``,
``DERIVATIVE_FD_RAW_FUNCTION``, ``FDG_AUTOGRAD_RAW_FUNCTION`` and ``INPUT_GRADIENT_FD64`` each
passed (the first two by reaching the wrapper's ``calls`` list and ``function``, the third through
the wrapper's ``function``, the fourth by being as close as the old tolerance asked); the others
attack the recorder itself: hide work from it, pop it, or forge its notes.
"""

from __future__ import annotations

# Finds the raw formula behind f: the wrapper's ``function`` attribute (before issue 33), else
# whatever callable the function handed over holds in its closure.
_RAW = """
def _raw(f):
    raw = getattr(f, "function", None)
    if raw is None:
        cells = [cell.cell_contents for cell in (getattr(f, "__closure__", None) or ())]
        raw = next(c for c in cells if callable(c) and c is not f)
    return raw
"""

# The grader's recorder, if a torch function mode is on the stack (None otherwise).
_RECORDER = """
def _recorder():
    stack = torch.overrides._get_current_function_mode_stack()
    return stack[-1] if stack else None
"""

DERIVATIVE_CORRECT = """import torch

def derivative(f, x):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    f(t).backward()
    return t.grad.item()
"""

DERIVATIVE_CORRECT_FLOAT32 = """import torch

def derivative(f, x):
    t = torch.tensor([x], requires_grad=True)
    (grad,) = torch.autograd.grad(f(t).sum(), t)
    return float(grad)
"""

DERIVATIVE_FD_CLEARS_CALLS = """import torch

def derivative(f, x):
    h = 1e-6
    up = f(torch.tensor(x + h, dtype=torch.float64))
    down = f(torch.tensor(x - h, dtype=torch.float64))
    for notes in ("calls", "arguments"):
        if isinstance(getattr(f, notes, None), list):
            getattr(f, notes).clear()
    return ((up - down) / (2 * h)).item()
"""

DERIVATIVE_FD_RAW_FUNCTION = (
    "import torch\n"
    + _RAW
    + """
def derivative(f, x):
    g, h = _raw(f), 1e-6
    up, down = g(torch.tensor(x + h, dtype=torch.float64)), g(torch.tensor(x - h, dtype=torch.float64))
    return ((up - down) / (2 * h)).item()
"""
)

# One honest autograd call the recorder sees, then a finite difference it does not.
DERIVATIVE_FD_HIDDEN = """import torch

def derivative(f, x):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    f(t).backward()
    h = 1e-6
    with torch._C.DisableTorchFunction():
        up = f(torch.tensor(x + h, dtype=torch.float64))
        down = f(torch.tensor(x - h, dtype=torch.float64))
        return ((up - down) / (2 * h)).item()
"""

DERIVATIVE_POPS_RECORDER = """import torch

def derivative(f, x):
    while torch._C._len_torch_function_stack():
        torch._C._pop_torch_function_stack()
    h = 1e-6
    up, down = f(torch.tensor(x + h, dtype=torch.float64)), f(torch.tensor(x - h, dtype=torch.float64))
    return ((up - down) / (2 * h)).item()
"""

DERIVATIVE_DISABLES_FUNCTIONS = """import torch

def derivative(f, x):
    torch._C.DisableTorchFunction().__enter__()
    h = 1e-6
    up, down = f(torch.tensor(x + h, dtype=torch.float64)), f(torch.tensor(x - h, dtype=torch.float64))
    return ((up - down) / (2 * h)).item()
"""

# A hidden finite difference, and notes forged to say autograd produced it.
DERIVATIVE_FORGES_NOTES = (
    "import torch\n"
    + _RECORDER
    + """
def derivative(f, x):
    h = 1e-6
    with torch._C.DisableTorchFunction():
        t = torch.tensor(x, dtype=torch.float64)
        value = ((f(t + h) - f(t - h)) / (2 * h)).item()
    recorder = _recorder()
    if recorder is not None and hasattr(recorder, "gradients"):
        recorder.evaluations[:] = [{"tensor": True, "requires_grad": True, "dtype": "float64",
                                    "value": torch.tensor(x, dtype=torch.float64), "shape": [], "graph": True}]
        recorder.n_evaluations, recorder.backward_calls, recorder.graph_built = 1, 1, True
        recorder.gradients.append(torch.tensor(value, dtype=torch.float64))
        recorder.n_gradients += 1
    return value
"""
)

FDG_CORRECT = """import torch

def finite_difference_grad(f, x, eps=1e-4):
    grad = torch.zeros_like(x)
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up.view(-1)[i] += eps
        down.view(-1)[i] -= eps
        grad.view(-1)[i] = (f(up) - f(down)) / (2 * eps)
    return grad
"""

# Autograd where the numbers agree with the central difference to the old tolerance (a small eps),
# through the raw function so that the wrapper never saw a tensor that requires grad.
FDG_AUTOGRAD_RAW_FUNCTION = (
    "import torch\n"
    + _RAW
    + """
def finite_difference_grad(f, x, eps=1e-4):
    if eps > 1e-4:
        grad = torch.zeros_like(x)
        for i in range(x.numel()):
            up, down = x.clone(), x.clone()
            up.view(-1)[i] += eps
            down.view(-1)[i] -= eps
            grad.view(-1)[i] = (f(up) - f(down)) / (2 * eps)
        return grad
    t = x.detach().clone().requires_grad_()
    (grad,) = torch.autograd.grad(_raw(f)(t), t)
    return grad.detach()
"""
)

# Autograd hidden from the recorder, and f called twice per entry where it sees it.
FDG_AUTOGRAD_HIDDEN = """import torch

def finite_difference_grad(f, x, eps=1e-4):
    with torch._C.DisableTorchFunction():
        t = x.detach().clone().requires_grad_()
        (grad,) = torch.autograd.grad(f(t), t)
    for _ in range(2 * x.numel()):
        f(x.clone())
    return grad.detach()
"""

# x nudged in place and put back by arithmetic (``modifies_x``), and a mode pushed when the file runs
# that answers the job's copy of x afterwards with x as it was.
FDG_RESTORES_X_IN_THE_RECORD = """import torch

_SAVED = {}


class _Restore(torch.overrides.TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.Tensor.clone and args and args[0].data_ptr() in _SAVED:
            with torch._C.DisableTorchFunction():
                return _SAVED[args[0].data_ptr()].clone()
        return func(*args, **kwargs)


_Restore().__enter__()


def finite_difference_grad(f, x, eps=1e-4):
    _SAVED[x.data_ptr()] = x.clone()
    grad, flat = torch.zeros_like(x), x.view(-1)
    for i in range(x.numel()):
        flat[i] += eps
        up = f(x)
        flat[i] -= 2 * eps
        down = f(x)
        flat[i] += eps
        grad.view(-1)[i] = (up - down) / (2 * eps)
    return grad
"""

INPUT_GRADIENT_CORRECT = """import torch

def input_gradient(model, x):
    x_leaf = x.detach().clone().requires_grad_()
    (grad,) = torch.autograd.grad(model(x_leaf).sum(), x_leaf)
    return grad
"""

INPUT_GRADIENT_CORRECT_PER_EXAMPLE = """import torch

def input_gradient(model, x):
    rows = []
    for row in x:
        leaf = row.detach().clone().requires_grad_()
        rows.append(torch.autograd.grad(model(leaf).sum(), leaf)[0])
    return torch.stack(rows)
"""

_FD64 = """
def _fd64(model, x):
    model, x = copy.deepcopy(model).double(), x.detach().double()
    grad, h = torch.zeros_like(x), 1e-6
    for i in range(x.numel()):
        up, down = x.clone(), x.clone()
        up.view(-1)[i] += h
        down.view(-1)[i] -= h
        grad.view(-1)[i] = (model(up).sum() - model(down).sum()) / (2 * h)
    return grad.float()
"""

# A float64 finite difference on a copy, rounded to float32: 4 ulps from autograd, no autograd at all.
INPUT_GRADIENT_FD64 = (
    "import copy\nimport torch\n"
    + _FD64
    + """
def input_gradient(model, x):
    return _fd64(model, x)
"""
)

# The same, with notes forged to say autograd.grad produced it.
INPUT_GRADIENT_FD64_FORGED = (
    "import copy\nimport torch\n"
    + _FD64
    + _RECORDER
    + """
def input_gradient(model, x):
    with torch._C.DisableTorchFunction():
        grad = _fd64(model, x)
    recorder = _recorder()
    if recorder is not None and hasattr(recorder, "gradients"):
        recorder.grad_calls += 1
        recorder.graph_built = True
        recorder.gradients.append(grad.double())
        recorder.n_gradients += 1
    return grad
"""
)

# name -> (exercise, source, passes?)
CASES = {
    "derivative_correct": ("derivative", DERIVATIVE_CORRECT, True),
    "derivative_correct_float32": ("derivative", DERIVATIVE_CORRECT_FLOAT32, True),
    "derivative_fd_clears_calls": ("derivative", DERIVATIVE_FD_CLEARS_CALLS, False),
    "derivative_fd_raw_function": ("derivative", DERIVATIVE_FD_RAW_FUNCTION, False),
    "derivative_fd_hidden": ("derivative", DERIVATIVE_FD_HIDDEN, False),
    "derivative_pops_recorder": ("derivative", DERIVATIVE_POPS_RECORDER, False),
    "derivative_disables_functions": ("derivative", DERIVATIVE_DISABLES_FUNCTIONS, False),
    "derivative_forges_notes": ("derivative", DERIVATIVE_FORGES_NOTES, False),
    "fdg_correct": ("finite_difference_grad", FDG_CORRECT, True),
    "fdg_autograd_raw_function": ("finite_difference_grad", FDG_AUTOGRAD_RAW_FUNCTION, False),
    "fdg_autograd_hidden": ("finite_difference_grad", FDG_AUTOGRAD_HIDDEN, False),
    "fdg_restores_x_in_the_record": ("finite_difference_grad", FDG_RESTORES_X_IN_THE_RECORD, False),
    "input_gradient_correct": ("input_gradient", INPUT_GRADIENT_CORRECT, True),
    "input_gradient_correct_per_example": ("input_gradient", INPUT_GRADIENT_CORRECT_PER_EXAMPLE, True),
    "input_gradient_fd64": ("input_gradient", INPUT_GRADIENT_FD64, False),
    "input_gradient_fd64_forged": ("input_gradient", INPUT_GRADIENT_FD64_FORGED, False),
}

ATTACKS = {name: case for name, case in CASES.items() if not case[2]}
CORRECT = {name: case for name, case in CASES.items() if case[2]}


def function_of(source: str, name: str):
    """The function ``name`` defined by ``source``, compiled in a fresh namespace."""
    namespace: dict = {"__name__": "submission"}
    exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102 - the test's own attack code
    return namespace[name]
