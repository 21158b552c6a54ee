"""The guide of every explorer: a few steps, each with what to do and what to look at once done.

One model and one set of controls for the four explorers, so a student who learnt the guide in
lesson 1 finds it behaving the same in lesson 3:

* After each action the explorer calls :meth:`Guide.observe` with what its steps read (the state,
  or the newest run and all runs) and the name of the action. Every step that action completes is
  passed, in order (a student who did things out of order is not asked for what is already there).
* A completed step leaves a ✓ note with what to look at, computed from the real values at that
  moment. The next action that completes nothing removes it: its numbers described the step done
  and would no longer be true of the state after another click, and "✓ Step k done." said again
  under the next step's first action would read as if that action had done it (the heading already
  says which step the student is on).
* An action that is not part of the current step (``GuideStep.actions``; an empty tuple means
  "one action does it", so any other action is off-script) gets a word: "That was not this step's
  action: this step asks you to …".
* One control skips a step (:data:`SKIP`, disabled once the guide is finished) and one starts over
  (:data:`RESTART`); the explorers' views build both with :func:`gradlessons.guide_view.guide_controls`.

No widget library is imported here: the view (``guide_view.py``) only displays this state.

Language (issue 37): a step's texts are English msgids, marked where they are written; an explorer
translates its steps once, when it is built (:func:`localized`), so a lesson that chose Portuguese
after ``gradlessons`` was imported still gets Portuguese.  A text that quotes a control names it by a
``{placeholder}`` filled with the control's translated label, so the prose and the button agree in
every language.  The guide's own words ("Step 2 of 4", the ✓ note) are translated as they are written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import reduce

from gradlessons.i18n import N_, _, ngettext

# i18n: a button under the explorer's guide: go on to the next step without doing this one
SKIP = N_("skip step")
# i18n: a button under the explorer's guide: go back to its first step
RESTART = N_("restart guide")
# i18n: {restart} is the translated label of the "restart guide" button
FINISHED_TEMPLATE = N_(
    "Every control keeps working: explore freely, or click `{restart}` to go through the steps again."
)
#: The finished text in English (what the English tests compare); :func:`finished_text` is the one shown.
FINISHED = FINISHED_TEMPLATE.format(restart=RESTART)


def finished_text() -> str:
    """The text under a finished guide, in today's language, quoting the restart button's label."""
    return _(FINISHED_TEMPLATE).format(restart=_(RESTART))


def localized(steps: Sequence[GuideStep], **labels: str) -> list[GuideStep]:
    """``steps`` with their prompt, ``asks`` and fixed look translated (a look that is a function
    translates itself when called).  ``labels`` fill the ``{placeholders}`` with which a text quotes
    a control (already translated), so the text names the button as the button reads."""
    return _rewritten(steps, _, labels)


def filled(steps: Sequence[GuideStep], **labels: str) -> tuple[GuideStep, ...]:
    """``steps`` in English with their ``{placeholders}`` filled by ``labels``: the text an English
    explorer shows, for a module-level table tests read (an explorer uses :func:`localized`)."""
    return tuple(_rewritten(steps, str, labels))


def _rewritten(steps: Sequence[GuideStep], say_text: Callable[[str], str], labels: dict) -> list[GuideStep]:
    def say(text: str) -> str:
        if not text:
            return text
        return say_text(text).format(**labels) if labels else say_text(text)

    return [
        replace(
            step,
            prompt=say(step.prompt),
            asks=say(step.asks),
            look=step.look if callable(step.look) else say(step.look),
        )
        for step in steps
    ]


@dataclass(frozen=True)
class GuideStep:
    """One step of a guide.

    Attributes:
        prompt: What to do (plain text; code between backticks, **bold** allowed).
        done: Called with the explorer's context after every action; True once the step is done.
        look: What to look at once it is done: a text, or a function of the same context that builds
            it from the real values.
        asks: The step's action in a few words, for the off-script note ("click `optimizer.step()`").
        actions: The actions that belong to this step although they may not complete it yet (the
            first of three clicks); empty when one action does it.
    """

    prompt: str
    done: Callable[..., bool]
    look: Callable[..., str] | str
    asks: str = ""
    actions: tuple[str, ...] = ()


class Guide:
    """Which step the student is on, and the note under it.

    Attributes:
        steps: The steps, in order.
        index: The current step (``len(steps)`` once finished).
        note: The line about the latest action: a ✓ note (only under the action that completed the
            step), an off-script word, or "".
        looks: ``(step number, what to look at)`` of each step the latest action completed; emptied by
            the next action that completes none (its values would no longer be the state's).
        start: Where the current step began, by ``clock`` (e.g. the length of the explorer's history),
            so that a step can look at the actions made since.
    """

    def __init__(self, steps: Sequence[GuideStep], finished: str | None = None, clock: Callable[[], int] | None = None):
        if not steps:
            raise ValueError("a guide needs at least one step")
        self.steps = tuple(steps)
        self.finished_text = finished_text() if finished is None else finished
        self.clock = clock
        self.restart()

    # ------------------------------------------------------------------ reading

    @property
    def finished(self) -> bool:
        return self.index >= len(self.steps)

    @property
    def current(self) -> GuideStep | None:
        return None if self.finished else self.steps[self.index]

    @property
    def heading(self) -> str:
        if self.finished:
            # i18n: the heading of the explorer's guide once every step is done
            return _("Finished")
        return _("Step {number} of {total}").format(number=self.index + 1, total=len(self.steps))

    @property
    def prompt(self) -> str:
        return self.finished_text if self.finished else self.steps[self.index].prompt

    # ------------------------------------------------------------------ acting

    def observe(self, *context, action: str | None = None) -> bool:
        """After an action: pass every step it completed; True when it completed at least one."""
        done = []
        while not self.finished and self.steps[self.index].done(*context):
            step = self.steps[self.index]
            look = step.look(*context) if callable(step.look) else step.look
            done.append((self.index + 1, look))
            self._move(self.index + 1)
        self.looks = done
        if done:
            # i18n: joins two step numbers, or a list of them and one more ("1 and 2", "1 and 2 and 3")
            numbers = reduce(
                lambda a, b: _("{earlier} and {later}").format(earlier=a, later=b), (str(k) for k, _l in done)
            )
            done_text = ngettext("Step {numbers} done.", "Steps {numbers} done.", len(done)).format(numbers=numbers)
            self.note = f"✓ {done_text} " + " ".join(look for _k, look in done)
            return True
        step = self.current
        if step is not None and action is not None and action not in step.actions:
            asked = step.asks or _lower(step.prompt)
            # i18n: {asked} is the step's action, e.g. "click `optimizer.step()`" (a phrase that completes the sentence)
            self.note = _("That was not this step's action: this step asks you to {asked}").format(asked=asked)
            self.note += "" if asked.endswith((".", "?", "!")) else "."
        else:
            self.note = ""  # the ✓ note of the step before was about the state before this action
        return False

    def skip(self, *context) -> None:
        """Go to the next step without doing this one (nothing once finished); with the explorer's
        context, the steps after it that are already done are passed too."""
        if self.finished:
            return
        skipped = _("Step {number} skipped.").format(number=self.index + 1)
        self.looks = []
        self._move(self.index + 1)
        self.note = skipped
        if context and self.observe(*context):
            self.note = f"{skipped} {self.note}"
        else:
            self.note = skipped

    def restart(self) -> None:
        self.note = ""
        self.looks = []
        self._move(0)

    def _move(self, index: int) -> None:
        self.index = index
        self.start = self.clock() if self.clock else 0


def _lower(prompt: str) -> str:
    text = prompt.strip()
    return (text[:1].lower() + text[1:]) if text else text
