"""The record a job sends back across the trust boundary: what one scenario's run did.

A record is written by a process that ran student code, so the grader treats it as hostile data
from an attacker who knows this format.  The format is chosen so that reading it costs time and
memory in proportion to its size, and nothing more:

    MAGIC | length of the header (8 bytes) | header: JSON | padding to ALIGN | tensor bytes

The header is ``{"data": <structure>, "tensors": [<one entry per tensor>]}``.  The structure is
plain JSON (objects with string keys, arrays, strings, numbers, true/false/null), in which a tensor
is ``{"__tensor__": <index>}``; each table entry gives a tensor's dtype, shape and where its bytes
lie.  JSON cannot express a shared reference, so a structure cannot point at one container twice
and blow up when it is walked (pickle's memo could: a pickle of a few hundred bytes that points
twice at the level below, level after level, is walked as a tree whose size doubles per level).
``decode`` also bounds the depth, the number of nodes and of tensors, each tensor's rank, and
checks every table entry against the bytes it claims, before it builds anything.

Both sides import this module: ``encode`` runs in the job, ``decode`` in the judge.  Neither
holds anything a student could use to earn points: it is only the envelope.
"""

from __future__ import annotations

import json
import math

import torch

from .limits import RECORD

MAGIC = b"AGREC2\n"
ALIGN = 64  # each tensor's bytes start at a multiple of this (torch.frombuffer needs its dtype's alignment)
TENSOR = "__tensor__"
# The dtypes a record may carry; anything else is refused (a quantized or sparse dtype has no plain bytes).
DTYPES = {
    name: getattr(torch, name)
    for name in (
        "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
        "uint8", "int8", "int16", "int32", "int64", "bool",
    )
}  # fmt: skip


class UnreadableRecord(ValueError):
    """Bytes that are not a record in this format, or that break one of its bounds."""


# ---- in the job ------------------------------------------------------------------------------


def _tensor_bytes(tensor: torch.Tensor) -> tuple[dict, bytes]:
    plain = tensor.detach().resolve_conj().resolve_neg()
    if plain.layout != torch.strided:
        plain = plain.to_dense()
    plain = plain.cpu()
    if plain.is_quantized or str(plain.dtype).removeprefix("torch.") not in DTYPES:
        plain = plain.dequantize() if plain.is_quantized else plain.to(torch.float64)
    data = plain.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if plain.numel() else b""
    return {"dtype": str(plain.dtype).removeprefix("torch."), "shape": list(plain.shape), "size": len(data)}, data


def encode(data) -> bytes:
    """``data`` (dicts with string keys, lists, tuples, strings, numbers, booleans, None and
    tensors) as a record.  The same tensor twice is stored twice: a record has no references."""
    tensors: list[torch.Tensor] = []

    def plain(value):
        if isinstance(value, torch.Tensor):
            tensors.append(value)
            return {TENSOR: len(tensors) - 1}
        if isinstance(value, dict):
            if TENSOR in value or not all(isinstance(k, str) for k in value):
                raise TypeError("a record's dicts have string keys other than " + TENSOR)
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        raise TypeError(f"a record cannot hold a {type(value).__name__}")

    structure = plain(data)
    table, chunks, offset = [], [], 0
    for tensor in tensors:
        meta, raw = _tensor_bytes(tensor)
        pad = -offset % ALIGN
        chunks += [b"\0" * pad, raw]
        offset += pad
        table.append({**meta, "offset": offset})
        offset += len(raw)
    head = json.dumps({"data": structure, "tensors": table}, separators=(",", ":")).encode()
    gap = -(len(MAGIC) + 8 + len(head)) % ALIGN
    return b"".join([MAGIC, len(head).to_bytes(8, "little"), head, b"\0" * gap, *chunks])


# ---- in the judge ----------------------------------------------------------------------------


def _tensor(meta, payload: bytearray, start: int) -> torch.Tensor:
    if not (isinstance(meta, dict) and set(meta) == {"dtype", "shape", "size", "offset"}):
        raise UnreadableRecord("a malformed tensor table")
    dtype, shape, size, offset = DTYPES.get(meta["dtype"]), meta["shape"], meta["size"], meta["offset"]
    if dtype is None:
        raise UnreadableRecord(f"a tensor of a dtype a record may not hold ({str(meta['dtype'])[:40]})")
    if type(shape) is not list or len(shape) > RECORD.max_rank or not all(type(n) is int and n >= 0 for n in shape):
        raise UnreadableRecord("a tensor with a malformed shape")
    if type(size) is not int or type(offset) is not int or offset < 0 or offset % ALIGN:
        raise UnreadableRecord("a tensor with a malformed position")
    if start + offset + size > len(payload):
        raise UnreadableRecord("a tensor outside the record")
    count = math.prod(shape)
    if count * dtype.itemsize != size:
        raise UnreadableRecord("a tensor whose size does not match its shape")
    if count == 0:
        return torch.empty(shape, dtype=dtype)
    return torch.frombuffer(payload, dtype=dtype, count=count, offset=start + offset).reshape(shape)


def _fill(value, tensors: list[torch.Tensor], depth: int, budget: list[int]):
    """The structure with each tensor reference replaced by its tensor, within the bounds."""
    budget[0] -= 1
    if budget[0] < 0:
        raise UnreadableRecord(f"a record holds more than {RECORD.max_nodes} values")
    if depth > RECORD.max_depth:
        raise UnreadableRecord(f"a record nested deeper than {RECORD.max_depth} levels")
    if isinstance(value, dict):
        if TENSOR in value:
            index = value[TENSOR]
            if len(value) != 1 or type(index) is not int or not 0 <= index < len(tensors):
                raise UnreadableRecord("a reference to a tensor the record does not have")
            return tensors[index]
        return {k: _fill(v, tensors, depth + 1, budget) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, tensors, depth + 1, budget) for v in value]
    return value


def decode(data: bytes):
    """The structure ``encode`` wrote; ``UnreadableRecord`` for anything else.  Linear in
    ``len(data)``, and nothing in ``data`` can make it run code."""
    if len(data) > RECORD.max_bytes:
        raise UnreadableRecord(f"a record larger than {RECORD.max_bytes // 2**20} MiB")
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 8:
        raise UnreadableRecord("not a record")
    length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    if length > RECORD.max_header_bytes:
        raise UnreadableRecord(f"a record whose structure is larger than {RECORD.max_header_bytes // 2**20} MiB")
    end = len(MAGIC) + 8 + length
    start = end + (-end % ALIGN)
    if start > len(data):
        raise UnreadableRecord("a truncated record")
    try:
        head = json.loads(data[len(MAGIC) + 8 : end])
    except (ValueError, RecursionError) as error:  # RecursionError: nesting deeper than Python's stack
        raise UnreadableRecord(f"a record whose structure is not JSON ({type(error).__name__})") from None
    if not (type(head) is dict and set(head) == {"data", "tensors"} and type(head["tensors"]) is list):
        raise UnreadableRecord("a malformed record")
    if len(head["tensors"]) > RECORD.max_tensors:
        raise UnreadableRecord(f"a record with more than {RECORD.max_tensors} tensors")
    payload = bytearray(data)  # writable, so that torch.frombuffer shares it without a warning
    tensors = [_tensor(meta, payload, start) for meta in head["tensors"]]
    return _fill(head["data"], tensors, 0, [RECORD.max_nodes])
