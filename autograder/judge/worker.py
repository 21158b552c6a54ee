"""A judging process: reads one check's records at a time from its parent, answers with the verdict.

It runs no student code, but it reads what student code wrote, so it runs within limits of its
own (``Limits.judge_memory_mb`` of address space, set before anything is imported; its parent
stops it after ``Limits.judge_seconds`` on one check): a record built to be slow or large to judge
costs that check, never the grader or the class.

The wire, on the two descriptors named on the command line (``multiprocessing.connection``
messages): the parent sends a JSON header (``exercise``, ``start``, ``seed``, ``ended``,
``limits``, ``count``) and then ``count`` records, one message each; the worker answers with one
JSON object (``code``, ``message``, ``review``).  JSON both ways: neither side unpickles anything
the other sends.  The header may name ``languages``: the verdict is judged once in each (the code and
review of the first stand) and the answer's ``messages`` holds the message in each.
"""

from __future__ import annotations

import json
import sys


def main(argv: list[str]) -> None:
    import resource

    read_fd, write_fd, memory = int(argv[0]), int(argv[1]), int(argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    from multiprocessing.connection import Connection

    import torch

    from gradebox import exercises  # noqa: F401 - preloaded: the scenarios every judge rebuilds
    from gradebox.limits import Limits

    from ..i18n import ENGLISH, _, checked, speaking
    from . import JUDGES, judge_safely

    JUDGES.load()  # every judge before "ready": the first check pays nothing
    torch.set_num_threads(1)  # as in the jobs, whose runs the references are compared with
    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    outbox.send_bytes(b'{"ready": true}')
    while True:
        try:
            header = json.loads(inbox.recv_bytes())
        except EOFError:
            return  # the grader is done
        records = [inbox.recv_bytes() for _record in range(int(header["count"]))]
        languages = [checked(lang) or ENGLISH for lang in header.get("languages") or [ENGLISH]]
        try:
            limits = Limits(**header["limits"])
            with speaking(languages[0]):
                verdict = judge_safely(header["exercise"], header["start"], int(header["seed"]), records,
                                       header.get("ended"), limits)  # fmt: skip
            messages = {languages[0]: verdict.message}
            for lang in languages[1:]:
                messages[lang] = _said_again(lang, verdict, header, records, limits)
            answer = {"code": verdict.code, "message": verdict.message, "review": verdict.review,
                      "messages": messages}  # fmt: skip
        except MemoryError:
            messages = {}
            for lang in languages:
                with speaking(lang):
                    messages[lang] = _("The grader could not judge the record of your run: judging it needed "
                                       "more memory than a check may use.")  # fmt: skip
            answer = {
                "code": "error",
                "message": messages[languages[0]],
                "messages": messages,
                "review": "the judge ran out of memory on this record",
            }
        except KeyError as error:
            answer = {"error": f"{error}"}
        outbox.send_bytes(json.dumps(answer).encode())


def _said_again(lang: str, verdict, header: dict, records: list[bytes], limits) -> str:
    """The first language's verdict in ``lang``: the same records judged again, writing in ``lang``.
    The first judgement stands: if this one fails (out of memory, a broken translation) or reaches
    another code or review, the learner reads the first message rather than a second opinion."""
    from ..i18n import speaking
    from . import judge_safely

    try:
        with speaking(lang):
            again = judge_safely(header["exercise"], header["start"], int(header["seed"]), records,
                                 header.get("ended"), limits)  # fmt: skip
    except Exception:  # MemoryError too: any failure here keeps the verdict already judged
        return verdict.message
    return again.message if (again.code, again.review) == (verdict.code, verdict.review) else verdict.message


if __name__ == "__main__":
    main(sys.argv[1:])
