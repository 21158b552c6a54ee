"""Text from a submission, as an instructor's terminal may show it: every control character visible.

Student ids are folder names, grading notes quote file names and cell ids, failure reasons quote
nbgrader's errors about a student's file: all of it is the student's text, and a terminal obeys the
control characters in it.  ``ESC[2J`` clears the screen and ``ESC[H`` moves the cursor home, so a
name could wipe the lines above it and print a summary of its own; a carriage return overwrites a
line; the bidi overrides (U+202E ...) show a name backwards, so that what the instructor reads is
not what is there.  ``terminal_safe`` writes every such character as a visible escape (``\\x1b``,
``\\u202e``), the way Python's ``repr`` would, and leaves everything else (accents, CJK, emoji) as
it is.

``grade``'s summary and progress lines and the class table (``report.class_table``) pass each
field through it; ``TerminalSafeLogFormatter`` does it for the messages nbgrader's own commands
log (``collect``, ``autograde``, ``export``, ``zip_collect``), as nbgrader_config.py sets it for
their console.  Their colours (the formatter's own escapes) stay; only the message is escaped.
"""

from __future__ import annotations

import logging
import re

from tornado.log import LogFormatter

# C0 controls, DEL, C1 controls; the Unicode marks that reorder or hide text: the Arabic letter mark,
# the left-to-right and right-to-left marks, the bidi embeddings, overrides and isolates, and the
# line and paragraph separators (a line break to some terminals, none to the reader of a log).
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
UNSAFE_BUT_NEWLINE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _visible(match: re.Match) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text, keep_newlines: bool = False) -> str:
    """``text`` (made a string) with every control character and bidi mark written as an escape;
    a newline too, unless ``keep_newlines`` (for a message whose lines are all the grader's)."""
    return (UNSAFE_BUT_NEWLINE if keep_newlines else UNSAFE).sub(_visible, str(text))


class TerminalSafeLogFormatter(LogFormatter):
    """nbgrader's console log format (tornado's ``LogFormatter``, colours and all), with each
    message and traceback made ``terminal_safe``: their lines stay lines, nothing else controls
    the terminal."""

    def format(self, record: logging.LogRecord) -> str:
        safe = logging.makeLogRecord(record.__dict__)
        safe.msg, safe.args = terminal_safe(record.getMessage(), keep_newlines=True), None
        if record.exc_info and not record.exc_text:
            safe.exc_text = self.formatException(record.exc_info)
        if safe.exc_text:
            safe.exc_text = terminal_safe(safe.exc_text, keep_newlines=True)
        safe.exc_info = None
        return super().format(safe)
