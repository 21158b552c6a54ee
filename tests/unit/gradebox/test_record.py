"""The record format (gradebox.record): what a job writes and the judge reads.  It round-trips
what a record holds, and reading hostile bytes costs time in proportion to their size, never runs
anything, and stays within the bounds."""

import gc
import json
import math
import pickle
import time

import pytest
import torch

from gradebox.limits import RECORD
from gradebox.record import ALIGN, MAGIC, TENSOR, UnreadableRecord, decode, encode


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, dict):
        return type(b) is dict and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(b) is list and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def test_plain_values_as_json():
    record = {
        "none": None, "flags": [True, False], "big": 2**80, "floats": [1.5, -0.0, math.inf, -math.inf],
        "text": "ünïcode ✅", "tuple": (1, (2, 3)), "nested": {"a": [{"b": None}]},
    }  # fmt: skip
    assert _same(record, decode(encode(record)))
    assert math.isnan(decode(encode({"x": math.nan}))["x"])


@pytest.mark.parametrize(
    "tensor",
    [
        torch.randn(3, 4),
        torch.randn(3, 4, dtype=torch.float64),
        torch.randn(5).half(),
        torch.randn(5).bfloat16(),
        torch.arange(6),
        torch.tensor([True, False, True]),
        torch.randn(2, dtype=torch.complex64),
        torch.tensor(3.5),  # 0-d
        torch.empty(0, 3),
        torch.randn(4, 6)[:, ::2],  # not contiguous
        torch.randn(3, requires_grad=True),
        torch.nn.Parameter(torch.randn(2, 2)),
    ],
    ids=lambda t: f"{str(t.dtype)[6:]}{list(t.shape)}",
)
def test_every_tensor_kind_comes_back(tensor):
    back = decode(encode({"t": tensor}))["t"]
    assert _same(tensor.detach(), back) and not back.requires_grad


def test_tensor_history_is_dropped():
    w = torch.ones(2, requires_grad=True)
    back = decode(encode({"y": w * 3}))["y"]
    assert torch.equal(back, torch.full((2,), 3.0)) and back.grad_fn is None


def test_repeated_tensor_is_copied():
    t = torch.zeros(2)
    back = decode(encode({"a": t, "b": [t]}))
    assert torch.equal(back["a"], back["b"][0]) and back["a"] is not back["b"][0]


def test_decoded_tensors_are_writable(recwarn):
    back = decode(encode({"t": torch.ones(3)}))["t"]
    back += 1
    assert torch.equal(back, torch.full((3,), 2.0))
    assert not recwarn.list


class Student:  # a value only the student's code knows
    pass


def test_unholdable_value_refused():
    with pytest.raises(TypeError, match="cannot hold"):
        encode({"returned": Student()})
    with pytest.raises(TypeError, match="string keys"):
        encode({3: "an int key"})


def _forged(head: dict, payload: bytes = b"", raw: bytes | None = None) -> bytes:
    text = raw if raw is not None else json.dumps(head).encode()
    gap = -(len(MAGIC) + 8 + len(text)) % ALIGN
    return MAGIC + len(text).to_bytes(8, "little") + text + b"\0" * gap + payload


def _table(**entry) -> list:
    return [{"dtype": "float32", "shape": [4], "size": 16, "offset": 0, **entry}]


@pytest.mark.parametrize(
    "head, payload, why",
    [
        ({"data": {"t": {TENSOR: 0}}, "tensors": []}, b"", "does not have"),
        ({"data": {"t": {TENSOR: 0}}, "tensors": _table()}, b"", "outside"),
        ({"data": {"t": {TENSOR: 0}}, "tensors": _table(size=8)}, b"\0" * 8, "does not match"),
        ({"data": {"t": {TENSOR: 0}}, "tensors": _table(dtype="system")}, b"\0" * 16, "may not hold"),
        ({"data": {"t": {TENSOR: 0}}, "tensors": _table(shape=[-4])}, b"\0" * 16, "malformed shape"),
        ({"data": {"t": {TENSOR: 0}}, "tensors": _table(shape=[1] * 9, size=4)}, b"\0" * 16, "malformed shape"),
        ({"data": {"t": {TENSOR: 0}}, "tensors": _table(offset=3)}, b"\0" * 64, "malformed position"),
        ({"data": {"t": {TENSOR: 0, "x": 1}}, "tensors": _table()}, b"\0" * 16, "does not have"),
        ({"data": {"t": {TENSOR: "0"}}, "tensors": _table()}, b"\0" * 16, "does not have"),
        ({"data": {}, "tensors": [{"dtype": "float32"}]}, b"", "malformed tensor table"),
        ({"data": {}}, b"", "malformed record"),
        ([1, 2], b"", "malformed record"),
    ],
)  # fmt: skip
def test_forged_tables_refused(head, payload, why):
    with pytest.raises(UnreadableRecord, match=why):
        decode(_forged(head, payload))


@pytest.mark.parametrize(
    "data",
    [b"", b"PK\x03\x04 a zip", MAGIC, MAGIC + (10**9).to_bytes(8, "little") + b"x", _forged({}, raw=b"{not json")],
    ids=["empty", "zip", "magic", "huge header", "not json"],
)
def test_non_record_bytes_refused(data):
    with pytest.raises(UnreadableRecord):
        decode(data)


def test_pickle_refused_and_not_run(tmp_path):
    class RunsCode:
        def __reduce__(self):
            return (open, (str(tmp_path / "pwned"), "w"))

    for data in (pickle.dumps(RunsCode()), MAGIC + pickle.dumps(RunsCode())):
        with pytest.raises(UnreadableRecord):
            decode(data)
    assert not (tmp_path / "pwned").exists()


def test_torch_save_is_not_a_record():
    import io

    buffer = io.BytesIO()
    torch.save({"t": torch.ones(1)}, buffer)
    with pytest.raises(UnreadableRecord):
        decode(buffer.getvalue())


# -- hostile records built to be slow or large to read ------------------------------------------


def test_too_deep_refused_at_once():
    deep = "[" * (RECORD.max_depth + 5) + "]" * (RECORD.max_depth + 5)
    with pytest.raises(UnreadableRecord, match="deeper"):
        decode(_forged({}, raw=('{"data": ' + deep + ', "tensors": []}').encode()))
    very_deep = "[" * 200_000 + "]" * 200_000  # past what Python's own parser can nest
    with pytest.raises(UnreadableRecord):
        decode(_forged({}, raw=('{"data": ' + very_deep + ', "tensors": []}').encode()))


def test_too_many_values_refused():
    wide = {"data": [[0] * 1000 for _ in range(RECORD.max_nodes // 1000 + 1)], "tensors": []}
    with pytest.raises(UnreadableRecord, match="more than"):
        decode(_forged(wide))


def test_shared_structure_walked_once():
    """A 500-byte pickle once pointed at one container twice per level, and the reader walked it as a
    tree: 2**48 steps.  JSON has no shared references, so a record this small is read at once."""
    head = {"data": None, "tensors": []}
    level = "0"
    for _ in range(48):
        level = f"[{level},{level}]" if len(level) < 200 else level  # as wide as 500 bytes allow
    data = _forged(head, raw=('{"data": ' + level + ', "tensors": []}').encode())
    assert len(data) < 1000
    began = time.monotonic()
    decode(data)
    assert time.monotonic() - began < 0.5


def test_reading_time_is_linear():
    def timed(n: int) -> float:
        """The best of five readings: a busy machine only ever adds time, so the least is the reading's own.
        Python's garbage collector is off meanwhile: a full collection, which the many objects a large
        record makes can set off, walks every object of this process (torch, the other tests' leftovers),
        a cost of the test process rather than of the reading, which made the ratio flaky."""
        data = encode({"items": [{"k": [1.5, "x", None, True]} for _ in range(n)]})
        best = float("inf")
        gc.collect()
        gc.disable()
        try:
            for _ in range(5):
                began = time.perf_counter()
                decode(data)
                best = min(best, time.perf_counter() - began)
        finally:
            gc.enable()
        return best

    small, large = timed(2_000), timed(20_000)
    assert large < 30 * small  # ten times the size: about ten times the time (linear), with room for noise


def test_too_large_refused_unparsed():
    with pytest.raises(UnreadableRecord, match="larger than"):
        decode(MAGIC + b"\0" * (RECORD.max_bytes + 1))


def test_too_many_tensors_refused():
    head = {"data": None, "tensors": _table(shape=[0], size=0) * (RECORD.max_tensors + 1)}
    with pytest.raises(UnreadableRecord, match="more than"):
        decode(_forged(head))
