"""What a record may look like, checked before any judge reads it.

A record comes from a process that ran student code (see ``gradebox.record``): its shape is the
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

A learner reads why a record was refused, so its words are in today's language (``autograder.i18n``):
``where`` is the caller's label in words ("the observation", translated where it is given) followed
by the path in code (``.returned[0]``), and each reason a whole sentence with ``{where}`` in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..i18n import _


class InvalidRecord(ValueError):
    """A record whose structure is not what the judge expects; ``where`` says where."""


class NotFinite(InvalidRecord):
    """A value that must be finite holds inf or NaN; ``where`` is its place in the record."""

    def __init__(self, where: str) -> None:
        super().__init__(_("{where} holds inf or NaN").format(where=where))
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


def check(spec, value, where: str | None = None) -> None:
    """Raise ``InvalidRecord`` (or ``NotFinite``) unless ``value`` fits ``spec``; ``where`` names the
    value in words ("the record" by default)."""
    where = _("the record") if where is None else where
    kind = type(spec)
    if kind is Tensor:
        _tensor(spec, value, where)
    elif kind is Number:
        if type(value) is bool or not isinstance(value, (int, float)) or (spec.integer and type(value) is not int):
            text = _("{where} is not an integer") if spec.integer else _("{where} is not a number")
            raise InvalidRecord(text.format(where=where))
        if spec.finite and isinstance(value, float) and not math.isfinite(value):
            raise NotFinite(where)
    elif kind is Text:
        if type(value) is not str or len(value) > spec.max_length:
            text = _("{where} is not a text of at most {length} characters")
            raise InvalidRecord(text.format(where=where, length=spec.max_length))
    elif kind is Flag:
        if type(value) is not bool:
            raise InvalidRecord(_("{where} is not true or false").format(where=where))
    elif kind is Optional:
        if value is not None:
            check(spec.spec, value, where)
    elif kind is OneOf:
        _one_of(spec, value, where)
    elif kind is ListOf:
        _list(spec, value, where)
    elif kind is Items:
        if type(value) is not list or len(value) != len(spec.specs):
            raise InvalidRecord(_("{where} is not a list of {n} items").format(where=where, n=len(spec.specs)))
        for i, (inner, item) in enumerate(zip(spec.specs, value)):
            check(inner, item, f"{where}[{i}]")
    elif kind is Fields:
        _fields(spec, value, where)
    elif spec is None:
        if value is not None:
            raise InvalidRecord(_("{where} is not empty").format(where=where))
    else:
        raise TypeError(f"not a spec: {spec!r}")  # a judge's own mistake, not the record's


def _tensor(spec: Tensor, value, where: str) -> None:
    import torch  # here, not at the top: the grader's process imports this package without torch (see JUDGES)

    if not isinstance(value, torch.Tensor):
        raise InvalidRecord(_("{where} is not a tensor").format(where=where))
    dtype = str(value.dtype).removeprefix("torch.")
    if spec.dtypes is not None and dtype not in spec.dtypes:
        raise InvalidRecord(_("{where} is a {dtype} tensor").format(where=where, dtype=dtype))
    if spec.shape is not None and tuple(value.shape) != tuple(spec.shape):
        text = _("{where} has shape {got}, not {want}")
        raise InvalidRecord(text.format(where=where, got=tuple(value.shape), want=tuple(spec.shape)))
    if value.numel() > spec.max_numel:
        raise InvalidRecord(_("{where} holds more than {n} values").format(where=where, n=spec.max_numel))
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
    raise not_finite or InvalidRecord(_("{where} has none of the forms the judge reads").format(where=where))


def _list(spec: ListOf, value, where: str) -> None:
    if type(value) is not list:
        raise InvalidRecord(_("{where} is not a list").format(where=where))
    if spec.length is not None and len(value) != spec.length:
        raise InvalidRecord(
            _("{where} has {got} items, not {want}").format(where=where, got=len(value), want=spec.length)
        )
    if len(value) > spec.max_length:
        raise InvalidRecord(_("{where} has more than {n} items").format(where=where, n=spec.max_length))
    for i, item in enumerate(value):
        check(spec.spec, item, f"{where}[{i}]")


def _fields(spec: Fields, value, where: str) -> None:
    if type(value) is not dict:
        raise InvalidRecord(_("{where} is not a dict").format(where=where))
    unknown = set(value) - set(spec.keys)
    missing = set(spec.keys) - set(value) - set(spec.optional)
    if unknown:  # the keys cut where the whole reason used to be cut, 200 characters after "has "
        keys = ", ".join(sorted(unknown)[:3])[: 200 - len("unknown keys ")]
        raise InvalidRecord(_("{where} has unknown keys {keys}").format(where=where, keys=keys))
    if missing:
        keys = ", ".join(sorted(missing))[: 200 - len("missing ")]
        raise InvalidRecord(_("{where} has missing {keys}").format(where=where, keys=keys))
    for key, inner in spec.keys.items():
        if key in value:
            check(inner, value[key], f"{where}.{key}")
