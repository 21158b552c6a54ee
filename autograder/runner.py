"""Running a student's function through the scenarios of an exercise, where the student's code
lives (a job of the sandbox's server, or a child of a notebook's kernel), and collecting a record.

A student's file is loaded afresh for every scenario (``load_source``), so module-level state
cannot leak between scenarios.  The record is plain data and tensors, in a format the judge
reads without running anything (``encode``/``decode``, below).
"""

from __future__ import annotations

import io
import math
import os
import pickle
import traceback
from collections import OrderedDict

import torch

from . import exercises
from .tamper import start_watch


class NotDefined(Exception):
    """The student's source does not define the exercise's function."""


def describe_exception(exc: BaseException, source: str | None = None) -> dict:
    where = ""
    frames = traceback.extract_tb(exc.__traceback__)
    student = [f for f in frames if source and os.path.abspath(f.filename) == os.path.abspath(source)]
    if student:
        where = f"line {student[-1].lineno}"
    elif isinstance(exc, SyntaxError) and exc.lineno:
        where = f"line {exc.lineno}"
    message = str(exc) if not isinstance(exc, SystemExit) else f"exit code {exc.code}"
    return {"type": type(exc).__name__, "message": message[:400], "where": where}


def collect(exercise: str, load, scenarios: list, source: str | None = None, changes=None) -> dict:
    """Run every scenario; ``load()`` returns the student's function (afresh when it can).

    ``changes`` is a tamper watch (``start_watch()``) taken earlier with this process's current
    state, e.g. by the parent of a forked child: the child then compares with it instead of taking
    its own snapshot, which costs a forked child more than its scenario (every object it visits is
    a page the child must copy)."""
    module = exercises.get(exercise)
    changes = changes or start_watch()
    result = {"observations": [], "error": None, "tampered": []}
    for scenario in scenarios:
        try:
            obs = module.run(load(), scenario)
        except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
            result["error"] = describe_exception(exc, source)
        else:
            raised = obs.pop("exception", None) if isinstance(obs, dict) else None
            if isinstance(raised, BaseException):
                # The exercise caught the student's exception to keep the record so far, which
                # tells the judge what led to it.
                result["error"] = {**describe_exception(raised, source), "observation": obs}
        result["tampered"] = changes()
        if not result["tampered"] and result["error"] is None and not obs.get("hooks_intact", True):
            result["tampered"] = ["the grader's hooks on the optimizer or the model"]
        if result["error"] or result["tampered"]:
            break
        result["observations"].append(obs)
    return result


def load_source(path: str, name: str):
    """A loader that executes the student's file in a new namespace each time it is called."""
    with open(path, encoding="utf-8", errors="replace") as f:
        code = compile(f.read(), path, "exec")

    def load():
        namespace = {"__name__": "submission", "__file__": path, "__builtins__": __builtins__}
        exec(code, namespace)
        fn = namespace.get(name)
        if not callable(fn):
            raise NotDefined(f"the file does not define a function named {name}")
        return fn

    return load


# -- the record format -------------------------------------------------------------------------
#
# A record crosses the trust boundary: it is written by a process that ran student code and read
# by the judge.  ``torch.save``/``torch.load(weights_only=True)`` was safe but slow (a zip archive
# with one entry per tensor: 8 ms to read a lesson-3 check's record, read twice on its way to
# the judge; 0.9 ms in this format).  This format is one pickle of the structure, in which every tensor is only an index
# into a table, then the tensors' bytes, one after the other:
#
#     MAGIC | length of the pickle (8 bytes) | pickle of (structure, tensor table) | tensor bytes
#
# (the tensor bytes start at a multiple of ALIGN, and each tensor's bytes too).
#
# Reading it is safe in the same way as ``weights_only``: the unpickler may build only plain
# containers and scalars (and ``complex``, ``set``, ``frozenset``, ``OrderedDict``); a tensor, a
# dtype, a size or a device is rebuilt by this module from plain values.  A tensor comes out of
# the pickle as an opaque placeholder (it has no state to set, so the pickle cannot act on it),
# and is put in its place afterwards.

MAGIC = b"AGREC1\n"
ALIGN = 64  # each tensor's bytes start at a multiple of this (torch.frombuffer needs its dtype's alignment)
SAFE_GLOBALS = {
    ("builtins", "complex"): complex,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("collections", "OrderedDict"): OrderedDict,
}


class UnreadableRecord(ValueError):
    """A record that is not in this format, or holds something a record may not hold."""


class _Placeholder:
    """Where a tensor goes; only ``decode`` makes these (no ``__dict__``: the pickle cannot set state)."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class _Pickler(pickle.Pickler):
    def __init__(self, file) -> None:
        super().__init__(file, protocol=5)
        self.tensors: list[torch.Tensor] = []
        self.indices: dict[int, int] = {}  # id(tensor) -> index: the same tensor twice is one entry

    def persistent_id(self, obj):
        if isinstance(obj, torch.Tensor):
            index = self.indices.get(id(obj))
            if index is None:
                index = self.indices[id(obj)] = len(self.tensors)
                self.tensors.append(obj)
            return ("tensor", index)
        if isinstance(obj, torch.Size):  # before tuple: a Size is a tuple
            return ("size", tuple(int(n) for n in obj))
        if isinstance(obj, torch.dtype):
            return ("dtype", str(obj).removeprefix("torch."))
        if isinstance(obj, torch.device):
            return ("device", str(obj))
        return None


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        try:
            return SAFE_GLOBALS[(module, name)]
        except KeyError:
            raise UnreadableRecord(f"a record may not contain {module}.{name}") from None

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 2 and isinstance(pid[0], str)):
            raise UnreadableRecord("a malformed reference")
        kind, value = pid
        if kind == "tensor" and type(value) is int:
            return _Placeholder(value)
        if kind == "size" and type(value) is tuple and all(type(n) is int for n in value):
            return torch.Size(value)
        if kind == "dtype" and type(value) is str and isinstance(getattr(torch, value, None), torch.dtype):
            return getattr(torch, value)
        if kind == "device" and type(value) is str:
            return torch.device(value)
        raise UnreadableRecord(f"a malformed reference: {kind}")


def _tensor_bytes(tensor: torch.Tensor) -> tuple[dict, bytes]:
    plain = tensor.detach().resolve_conj().resolve_neg()
    if plain.layout != torch.strided:
        plain = plain.to_dense()
    plain = plain.cpu()  # the same tensor when it is on the CPU already
    data = plain.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if plain.numel() else b""
    meta = {
        "dtype": str(plain.dtype).removeprefix("torch."),
        "shape": tuple(plain.shape),
        "requires_grad": bool(tensor.requires_grad and tensor.is_leaf),
        "parameter": isinstance(tensor, torch.nn.Parameter),
        "size": len(data),
    }
    return meta, data


def encode(result: dict) -> bytes:
    buffer = io.BytesIO()
    pickler = _Pickler(buffer)
    pickler.dump(result)  # collects the tensors
    structure = buffer.getvalue()
    table, chunks, offset = [], [], 0
    for tensor in pickler.tensors:
        meta, data = _tensor_bytes(tensor)
        pad = -offset % ALIGN
        chunks += [b"\0" * pad, data]
        offset += pad
        table.append({**meta, "offset": offset})
        offset += len(data)
    head = pickle.dumps((structure, table), protocol=5)
    gap = -(len(MAGIC) + 8 + len(head)) % ALIGN  # the tensors' bytes start aligned
    return b"".join([MAGIC, len(head).to_bytes(8, "little"), head, b"\0" * gap, *chunks])


def _tensor(meta, payload: bytearray, start: int) -> torch.Tensor:
    if not isinstance(meta, dict):
        raise UnreadableRecord("a malformed tensor table")
    dtype, shape = getattr(torch, str(meta.get("dtype")), None), meta.get("shape")
    size, offset = meta.get("size"), meta.get("offset")
    if (
        not isinstance(dtype, torch.dtype)
        or type(shape) is not tuple
        or not all(type(n) is int and n >= 0 for n in shape)
    ):
        raise UnreadableRecord("a malformed tensor")
    if type(size) is not int or type(offset) is not int or offset < 0 or start + offset + size > len(payload):
        raise UnreadableRecord("a tensor outside the record")
    count = math.prod(shape)
    if count * dtype.itemsize != size:
        raise UnreadableRecord("a tensor whose size does not match its shape")
    if count == 0:
        tensor = torch.empty(shape, dtype=dtype)
    else:
        tensor = torch.frombuffer(payload, dtype=dtype, count=count, offset=start + offset).reshape(shape)
    if meta.get("parameter") is True:
        return torch.nn.Parameter(tensor, requires_grad=meta.get("requires_grad") is True)
    if meta.get("requires_grad") is True and (dtype.is_floating_point or dtype.is_complex):
        tensor.requires_grad_(True)
    return tensor


def _fill(value, tensors: list[torch.Tensor]):
    """The structure with each placeholder replaced by its tensor."""
    kind = type(value)
    if kind is _Placeholder:
        if not 0 <= value.index < len(tensors):
            raise UnreadableRecord("a reference to a tensor the record does not have")
        return tensors[value.index]
    if kind is dict:
        return {_fill(k, tensors): _fill(v, tensors) for k, v in value.items()}
    if kind is list:
        return [_fill(v, tensors) for v in value]
    if kind is tuple:
        return tuple(_fill(v, tensors) for v in value)
    if kind is OrderedDict:
        return OrderedDict((_fill(k, tensors), _fill(v, tensors)) for k, v in value.items())
    if kind is set or kind is frozenset:
        return kind(_fill(v, tensors) for v in value)
    return value


def decode(data: bytes) -> dict:
    """The record ``encode`` wrote; ``UnreadableRecord`` (or another exception) for anything else.
    Nothing in ``data`` can make this run code: see the comment above ``MAGIC``."""
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 8:
        raise UnreadableRecord("not a record")
    length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    end = len(MAGIC) + 8 + length
    start = end + (-end % ALIGN)
    if start > len(data):
        raise UnreadableRecord("a truncated record")
    head = _Unpickler(io.BytesIO(data[len(MAGIC) + 8 : end])).load()
    if not (type(head) is tuple and len(head) == 2 and type(head[0]) is bytes and type(head[1]) is list):
        raise UnreadableRecord("a malformed record")
    structure, table = head
    payload = bytearray(data)  # writable, so that torch.frombuffer shares it without a warning
    tensors = [_tensor(meta, payload, start) for meta in table]
    return _fill(_Unpickler(io.BytesIO(structure)).load(), tensors)
