"""What a setting is, and how one set of them is read: the mechanism of the course's one registry.

The registry itself, every setting of the course in one table, is the grader's
(``autograder/settings.py``).  The mechanism lives here, on the job side, for one reason: the limits a
job runs under (``gradebox.limits``) are settings too, and the job side may not import the grader.  So
the limits are declared here, beside ``Limits``, with this module's ``Setting``, and the grader's
registry re-exports them with its own.  A job never reads a setting from its environment: the grader
reads them, and hands a job what it needs as data (its request's limits, its server's options).

A setting is declared once: its name, type, default, one line of help, the environment variable it
is read from (if any), the nbgrader trait it is read from (if any), and its bounds or choices.
``Settings.read`` reads every one of them from an environment and an nbgrader config in one go:
the config wins over the environment, which wins over the default (a value in nbgrader_config.py is
the course's own choice, written down; the environment is the machine's).  A value that does not fit
is an error naming where it came from, the value and what is expected, and no value is returned
until every one is read: nothing is half-applied.  An empty variable of a number or a flag counts as
unset (a deployment's file may list a variable with no value); an empty text is a value.

The environment variables all begin ``AUTOGRADER_``; the old prefix ``AUTOGRAD_`` is still read
where the new name is unset, with a ``FutureWarning`` (shown by default, so it lands in the hub's log).

This module imports nothing but the standard library (it is imported where ``gradebox.limits`` is).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

PREFIX = "AUTOGRADER_"
OLD_PREFIX = "AUTOGRAD_"
DEFAULT, ENVIRONMENT, CONFIG = "default", "environment", "nbgrader config"
TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


class SettingError(ValueError):
    """One or more settings whose value does not fit; each line names the setting, the value and
    what is expected.  ``problems`` holds each as (where, value, expected)."""

    def __init__(self, problems: list[tuple[str, object, str]]) -> None:
        super().__init__("\n".join(f"{where}={value!r}: expected {expected}" for where, value, expected in problems))
        self.problems = problems


@dataclass(frozen=True)
class Setting:
    """One setting, declared once.  ``default`` may be a function of nothing, for a default that
    depends on the machine (``default_text`` then says it in words, for help and docs).  ``parse``
    turns a text into a value, raising ValueError, where the type alone does not (a size such as
    2G); ``expect`` says what a value must be where ``expected`` would not say it well; a ``secret``
    one (a database URL with its password) is never shown whole."""

    name: str
    kind: type
    default: object
    help: str
    group: str
    env: str | None = None
    trait: str | None = None
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    default_text: str | None = None
    parse: Callable[[str], object] | None = None
    expect: str | None = None
    secret: bool = False

    def default_value(self) -> object:
        return self.default() if callable(self.default) else self.default

    def expected(self) -> str:
        """What a value must be, in words: for an error, and for the help of the command."""
        if self.expect:
            return self.expect
        if self.choices:
            return "one of " + ", ".join(map(str, self.choices))
        words = {int: "a whole number", float: "a number", bool: "1 or 0", str: "text"}[self.kind]
        if self.low is not None and self.high is not None:
            return f"{words} from {_plain(self.low)} to {_plain(self.high)}"
        if self.low is not None:
            return f"{words}, {_plain(self.low)} or more"
        return words

    def convert(self, value: object, where: str, text: bool = True) -> object:
        """``value`` (text from the environment, or, not ``text``, a value from nbgrader's config,
        which must have this setting's type already) as this setting's type, checked; a
        ``SettingError`` naming ``where`` if it does not fit."""
        if not text and isinstance(value, str) and self.kind is not str:
            raise SettingError([(where, value, f"{self.expected()}, not a text ({self.help})")])
        try:
            found = self.parse(value) if self.parse and isinstance(value, str) else _parse(self.kind, value)
        except ValueError:
            found = None
        if found is None or not self._fits(found):
            raise SettingError([(where, value, f"{self.expected()} ({self.help})")])
        return found

    def _fits(self, value: object) -> bool:
        if self.choices:
            return value in self.choices
        if self.kind in (int, float):
            return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)
        return True


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _parse(kind: type, value: object) -> object:
    if isinstance(value, str):
        value = value if kind is str else value.strip()
        if kind is bool:
            return True if value.lower() in TRUE else False if value.lower() in FALSE else None
        return kind(value)
    if kind is bool:
        return value if isinstance(value, bool) else None
    if kind is int:
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if kind is float:
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    return value if isinstance(value, kind) else None


@dataclass(frozen=True)
class Value:
    """A setting's value, and where it came from: ``default``, ``environment`` or ``nbgrader config``
    (``origin`` names the variable or trait)."""

    setting: Setting
    value: object
    source: str
    origin: str = ""


class Values(Mapping):
    """Every setting's ``Value``, by name; ``values.jobs`` is the value itself."""

    def __init__(self, found: Mapping[str, Value]) -> None:
        self._found = dict(found)

    def __getitem__(self, name: str) -> Value:
        return self._found[name]

    def __iter__(self):
        return iter(self._found)

    def __len__(self) -> int:
        return len(self._found)

    def __getattr__(self, name: str) -> object:
        try:
            return self._found[name].value
        except KeyError:
            raise AttributeError(f"no setting {name!r}") from None


class Settings:
    """One table of settings, each declared once, and the one place they are read."""

    def __init__(self, settings: Iterable[Setting]) -> None:
        self.settings: dict[str, Setting] = {}
        for setting in settings:
            if setting.name in self.settings:
                raise ValueError(f"the setting {setting.name!r} is declared twice")
            self.settings[setting.name] = setting

    def __getitem__(self, name: str) -> Setting:
        return self.settings[name]

    def __iter__(self):
        return iter(self.settings.values())

    def group(self, group: str) -> list[Setting]:
        return [s for s in self if s.group == group]

    def default(self, name: str) -> object:
        return self.settings[name].default_value()

    def read(self, environ: Mapping[str, str] | None = None, config: Mapping | None = None,
             only: Iterable[str] | None = None) -> Values:  # fmt: skip
        """Every setting (or those named in ``only``) from ``config`` (nbgrader's, a traitlets
        ``Config``), else ``environ`` (default ``os.environ``), else its default.  Raises one
        ``SettingError`` listing every value that does not fit, before returning any."""
        environ = os.environ if environ is None else environ
        chosen = [self.settings[name] for name in only] if only is not None else list(self)
        found, problems = {}, []
        for setting in chosen:
            try:
                found[setting.name] = _value(setting, environ, config)
            except SettingError as error:
                problems += error.problems
        if problems:
            raise SettingError(problems)
        return Values(found)

    def value(self, name: str, environ: Mapping[str, str] | None = None, config: Mapping | None = None) -> object:
        """One setting's value (see ``read``)."""
        return self.read(environ, config, only=[name])[name].value


def _value(setting: Setting, environ: Mapping[str, str], config: Mapping | None) -> Value:
    if setting.trait and config is not None:
        section, key = setting.trait.split(".")
        values = config.get(section) if isinstance(config, Mapping) else None
        if isinstance(values, Mapping) and key in values:
            where = f"c.{setting.trait}"
            return Value(setting, setting.convert(values[key], where, text=False), CONFIG, where)
    if setting.env:
        name = _present(setting.env, environ)
        if name is not None and (setting.kind is str or environ[name].strip()):  # an empty number: unset
            return Value(setting, setting.convert(environ[name], name), ENVIRONMENT, name)
    return Value(setting, setting.default_value(), DEFAULT)


def _present(env: str, environ: Mapping[str, str]) -> str | None:
    """The name ``env`` is set under: itself, else its deprecated ``AUTOGRAD_`` twin (with a warning)."""
    if env in environ:
        return env
    old = OLD_PREFIX + env[len(PREFIX) :] if env.startswith(PREFIX) else None
    if old is not None and old in environ:
        warnings.warn(f"{old} is deprecated: set {env} instead (the old name will stop working)", FutureWarning,
                      stacklevel=4)  # fmt: skip
        return old
    return None


def renamed(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with every deprecated ``AUTOGRAD_<name>`` also under ``AUTOGRADER_<name>`` (unless
    that is set): what a program that passes its settings on gives its children."""
    found = dict(environ)
    for old in [key for key in environ if key.startswith(OLD_PREFIX)]:
        new = PREFIX + old[len(OLD_PREFIX) :]
        if new not in found:
            warnings.warn(f"{old} is deprecated: set {new} instead (the old name will stop working)", FutureWarning,
                          stacklevel=2)  # fmt: skip
            found[new] = environ[old]
    return found
