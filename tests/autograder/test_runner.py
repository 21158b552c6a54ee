"""The record format (runner.encode/decode): what a scenario child writes and the judge reads.
It round-trips everything a record holds, and reading hostile bytes never runs anything."""

import io
import math
import os
import pickle
from collections import OrderedDict

import pytest
import torch

from autograder.runner import MAGIC, UnreadableRecord, decode, encode


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return (
            type(a) is type(b)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and a.requires_grad == b.requires_grad
            and torch.equal(a.detach(), b.detach())
        )
    if isinstance(a, dict):
        return type(a) is type(b) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def test_plain_values_and_containers_come_back_as_they_were():
    record = {
        "none": None, "flags": [True, False], "big": 2**80, "floats": [1.5, -0.0, math.inf, -math.inf],
        "text": "ünïcode ✅", "bytes": b"\x00\xff", "complex": 1 + 2j, "tuple": (1, (2, 3)), "set": {1, 2},
        "frozen": frozenset({"a"}), "ordered": OrderedDict([("b", 1), ("a", 2)]), 3: "an int key",
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
        torch.nn.Parameter(torch.randn(2), requires_grad=False),
    ],
    ids=lambda t: f"{str(t.dtype)[6:]}{list(t.shape)}{'-param' if isinstance(t, torch.nn.Parameter) else ''}",
)
def test_every_kind_of_tensor_comes_back_with_its_values_dtype_shape_and_flags(tensor):
    back = decode(encode({"t": tensor}))["t"]
    assert _same(tensor, back)


def test_a_tensor_with_history_comes_back_as_its_values_without_the_graph():
    w = torch.ones(2, requires_grad=True)
    back = decode(encode({"y": w * 3}))["y"]
    assert torch.equal(back, torch.full((2,), 3.0)) and not back.requires_grad and back.grad_fn is None


def test_the_same_tensor_twice_is_one_tensor_and_sizes_dtypes_devices_survive():
    t = torch.zeros(2)
    back = decode(encode({"a": t, "b": [t], "size": t.shape, "dtype": torch.float16, "device": torch.device("cpu")}))
    assert back["a"] is back["b"][0]
    assert type(back["size"]) is torch.Size and back["size"] == (2,)
    assert back["dtype"] is torch.float16 and back["device"] == torch.device("cpu")


def test_decoded_tensors_are_writable_and_no_warning_is_printed(recwarn):
    back = decode(encode({"t": torch.ones(3)}))["t"]
    back += 1
    assert torch.equal(back, torch.full((3,), 2.0))
    assert not recwarn.list


class Student:  # a value only the student's code knows
    pass


def test_a_value_of_a_class_the_record_may_not_hold_makes_it_unreadable():
    with pytest.raises(UnreadableRecord, match="may not contain"):
        decode(encode({"returned": Student()}))


def _forged(structure: bytes, table: list, payload: bytes = b"") -> bytes:
    head = pickle.dumps((structure, table), protocol=5)
    gap = -(len(MAGIC) + 8 + len(head)) % 64
    return MAGIC + len(head).to_bytes(8, "little") + head + b"\0" * gap + payload


class _RunsCode:
    def __reduce__(self):
        return (os.system, ("touch /tmp/autograder-record-pwned",))


def test_a_pickle_that_would_run_code_is_refused_before_anything_runs(tmp_path):
    if os.path.exists("/tmp/autograder-record-pwned"):
        os.remove("/tmp/autograder-record-pwned")
    with pytest.raises(UnreadableRecord, match="posix.system|os.system|may not contain"):
        decode(_forged(pickle.dumps(_RunsCode(), protocol=5), []))
    assert not os.path.exists("/tmp/autograder-record-pwned")


def _structure_with_reference(pid) -> bytes:
    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return pid if obj == "REF" else None

    buffer = io.BytesIO()
    P(buffer, protocol=2).dump({"t": "REF"})  # no frames: opcodes can be spliced in
    return buffer.getvalue()


@pytest.mark.parametrize(
    "pid, table, payload, why",
    [
        (("tensor", 0), [], b"", "does not have"),
        (("tensor", 0), [{"dtype": "float32", "shape": (4,), "size": 16, "offset": 0}], b"", "outside"),
        (("tensor", 0), [{"dtype": "float32", "shape": (4,), "size": 8, "offset": 0}], b"\0" * 8, "does not match"),
        (("tensor", 0), [{"dtype": "system", "shape": (1,), "size": 4, "offset": 0}], b"\0" * 4, "malformed tensor"),
        (("tensor", 0), [{"dtype": "float32", "shape": (-1,), "size": 4, "offset": 0}], b"\0" * 4, "malformed tensor"),
        (("dtype", "manual_seed"), [], b"", "malformed reference"),
        (("module", "os"), [], b"", "malformed reference"),
        ("tensor", [], b"", "malformed reference"),
    ],
)  # fmt: skip
def test_forged_references_and_tensor_tables_are_refused(pid, table, payload, why):
    with pytest.raises(UnreadableRecord, match=why):
        decode(_forged(_structure_with_reference(pid), table, payload))


def test_state_cannot_be_set_on_a_tensor_placeholder():
    """A BUILD (``__setstate__``) aimed at what stands for a tensor fails: the pickle cannot act
    on a tensor (torch's own legacy ``Tensor.__setstate__`` would call ``set_``)."""
    reference = _structure_with_reference(("tensor", 0))
    at = reference.index(pickle.BINPERSID) + 1  # right after the reference is pushed
    state = pickle.dumps({"requires_grad": True}, protocol=2)[2:-1]  # a dict's opcodes (no PROTO, no STOP)
    forged = reference[:at] + state + pickle.BUILD + reference[at:]
    table = [{"dtype": "float32", "shape": (1,), "size": 4, "offset": 0}]
    assert decode(_forged(reference, table, b"\0" * 4))["t"].shape == (1,)  # the unforged one reads
    with pytest.raises(Exception, match="state|slot|dict"):
        decode(_forged(forged, table, b"\0" * 4))


@pytest.mark.parametrize(
    "data",
    [b"", b"PK\x03\x04 a zip", MAGIC, MAGIC + (10**9).to_bytes(8, "little") + b"x"],
    ids=["empty", "zip", "magic", "truncated"],
)
def test_bytes_that_are_not_a_record_are_refused(data):
    with pytest.raises(UnreadableRecord):
        decode(data)


def test_a_torch_save_file_is_not_a_record():
    buffer = io.BytesIO()
    torch.save({"t": torch.ones(1)}, buffer)
    with pytest.raises(UnreadableRecord):
        decode(buffer.getvalue())
