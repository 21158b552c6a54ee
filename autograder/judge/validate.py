"""What a record may look like, checked before any judge reads it.

A record comes from a process that ran student code (see ``autograder.record``): its shape is the
attacker's to choose.  Each exercise's judge declares, per scenario, the shape of the observation
it reads (``schema(scenario)``), with these few specs; ``check(spec, value)`` walks the *spec*,
not the value, so the work is bounded by what the judge expects, whatever the record holds.

* a tensor: its dtype, its exact shape when the scenario fixes it, and every value finite;
* a number: a real number, finite (an int where the judge needs one);
* a list: of one spec, with a length the scenario allows;
* a dict: exactly the keys the judge reads (more keys are refused too: a record is the judge's
  own format, and one with keys it does not know was not written by the job's code);
* ``Optional``/``OneOf`` where the job writes several forms.

A value that is not finite where the spec asks for finite raises ``NotFinite``: that is the
student's run producing inf or NaN (or a forgery built on them), and the judge names it as a
mistake of the exercise.  Anything else raises ``InvalidRecord``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch


class InvalidRecord(ValueError):
    """A record whose structure is not what the judge expects; ``where`` says where."""


class NotFinite(InvalidRecord):
    """A value that must be finite holds inf or NaN; ``where`` is its place in the record."""

    def __init__(self, where: str) -> None:
        super().__init__(f"{where} holds inf or NaN")
        self.where = where


FLOATS = ("float16", "bfloat16", "float32", "float64")


@dataclass(frozen=True)
class Tensor:
    """A tensor.  ``shape``: the exact shape, or None for any of at most ``max_numel`` values;
    ``dtypes``: the dtypes allowed (None: any); ``finite``: every value must be finite."""

    shape: tuple | None = None
    dtypes: tuple | None = FLOATS
    finite: bool = True
    max_numel: int = 1_000_000


@dataclass(frozen=True)
class Number:
    """A real number (a bool is not one); ``integer`` asks for an int; ``finite`` for no inf/NaN."""

    integer: bool = False
    finite: bool = True


@dataclass(frozen=True)
class Text:
    max_length: int = 100_000


@dataclass(frozen=True)
class Flag:
    """True or False."""


@dataclass(frozen=True)
class Optional:
    """None, or a value of ``spec``."""

    spec: object


@dataclass(frozen=True)
class OneOf:
    """A value of the first of ``specs`` it fits."""

    specs: tuple


@dataclass(frozen=True)
class ListOf:
    """A list of ``spec``: of exactly ``length`` items, or at most ``max_length``."""

    spec: object
    length: int | None = None
    max_length: int = 10_000


@dataclass(frozen=True)
class Items:
    """A list of exactly these specs, one per item (a model's parameters, each of its own shape)."""

    specs: tuple


@dataclass(frozen=True)
class Fields:
    """A dict with exactly these keys (``optional`` ones may be missing)."""

    keys: dict
    optional: frozenset = field(default_factory=frozenset)


def check(spec, value, where: str = "the record") -> None:
    """Raise ``InvalidRecord`` (or ``NotFinite``) unless ``value`` fits ``spec``."""
    kind = type(spec)
    if kind is Tensor:
        _tensor(spec, value, where)
    elif kind is Number:
        if type(value) is bool or not isinstance(value, (int, float)) or (spec.integer and type(value) is not int):
            raise InvalidRecord(f"{where} is not {'an integer' if spec.integer else 'a number'}")
        if spec.finite and isinstance(value, float) and not math.isfinite(value):
            raise NotFinite(where)
    elif kind is Text:
        if type(value) is not str or len(value) > spec.max_length:
            raise InvalidRecord(f"{where} is not a text of at most {spec.max_length} characters")
    elif kind is Flag:
        if type(value) is not bool:
            raise InvalidRecord(f"{where} is not true or false")
    elif kind is Optional:
        if value is not None:
            check(spec.spec, value, where)
    elif kind is OneOf:
        _one_of(spec, value, where)
    elif kind is ListOf:
        _list(spec, value, where)
    elif kind is Items:
        if type(value) is not list or len(value) != len(spec.specs):
            raise InvalidRecord(f"{where} is not a list of {len(spec.specs)} items")
        for i, (inner, item) in enumerate(zip(spec.specs, value)):
            check(inner, item, f"{where}[{i}]")
    elif kind is Fields:
        _fields(spec, value, where)
    elif spec is None:
        if value is not None:
            raise InvalidRecord(f"{where} is not empty")
    else:
        raise TypeError(f"not a spec: {spec!r}")  # a judge's own mistake, not the record's


def _tensor(spec: Tensor, value, where: str) -> None:
    if not isinstance(value, torch.Tensor):
        raise InvalidRecord(f"{where} is not a tensor")
    dtype = str(value.dtype).removeprefix("torch.")
    if spec.dtypes is not None and dtype not in spec.dtypes:
        raise InvalidRecord(f"{where} is a {dtype} tensor")
    if spec.shape is not None and tuple(value.shape) != tuple(spec.shape):
        raise InvalidRecord(f"{where} has shape {tuple(value.shape)}, not {tuple(spec.shape)}")
    if value.numel() > spec.max_numel:
        raise InvalidRecord(f"{where} holds more than {spec.max_numel} values")
    if spec.finite and (value.is_floating_point() or value.is_complex()) and not bool(torch.isfinite(value).all()):
        raise NotFinite(where)


def _one_of(spec: OneOf, value, where: str) -> None:
    not_finite = None
    for option in spec.specs:
        try:
            check(option, value, where)
            return
        except NotFinite as error:
            not_finite = not_finite or error
        except InvalidRecord:
            continue
    raise not_finite or InvalidRecord(f"{where} has none of the forms the judge reads")


def _list(spec: ListOf, value, where: str) -> None:
    if type(value) is not list:
        raise InvalidRecord(f"{where} is not a list")
    if spec.length is not None and len(value) != spec.length:
        raise InvalidRecord(f"{where} has {len(value)} items, not {spec.length}")
    if len(value) > spec.max_length:
        raise InvalidRecord(f"{where} has more than {spec.max_length} items")
    for i, item in enumerate(value):
        check(spec.spec, item, f"{where}[{i}]")


def _fields(spec: Fields, value, where: str) -> None:
    if type(value) is not dict:
        raise InvalidRecord(f"{where} is not a dict")
    unknown = set(value) - set(spec.keys)
    missing = set(spec.keys) - set(value) - set(spec.optional)
    if unknown or missing:
        what = "unknown keys " + ", ".join(sorted(unknown)[:3]) if unknown else "missing " + ", ".join(sorted(missing))
        raise InvalidRecord(f"{where} has {what[:200]}")
    for key, inner in spec.keys.items():
        if key in value:
            check(inner, value[key], f"{where}.{key}")
