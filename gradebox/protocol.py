"""The wire between the grader and the warm server, and between a job and the grader.

Grader <-> server: one Unix socket pair of kind SOCK_SEQPACKET (each message arrives whole, with the
descriptors sent beside it).  A request is one JSON object; a spawn request carries the job's
descriptors (``socket.send_fds``).  Every reply is one JSON object.  The server ends when the
grader's end closes, however the grader ends.

Grader -> job: the descriptors the grader opened before the job started, which the job finds at
fixed numbers:

* ``PLAN_FD`` (0): what the job is to do (a JSON document), read-only in spirit;
* ``LOG_FD`` (1 and 2): what the job prints;
* ``RECORD_FD`` (3): the records the job sends back, as frames (``write_frame``).

Each is an anonymous file (``memfd_create``) made by the grader: it has no path anywhere, so a job
cannot swap it for a link, and the grader reads it back from its own descriptor (``read_frames``,
``tail``), never by name.  A job cannot reach any other job's files: its mount namespace holds only
its own folder (``confine``).
"""

from __future__ import annotations

import json
import os
import socket

from .limits import RECORD

PLAN_FD, LOG_FD, RECORD_FD = 0, 1, 3
MAX_MESSAGE = 64 * 1024  # a request or a reply: a few hundred bytes; plans and records travel as files
OUTPUT_LIMIT_EXIT = 86  # a kernel's exit status when it printed more than its output limit
SETUP_FAILED = 70  # a job's exit status when it could not confine itself


def channel() -> tuple[socket.socket, socket.socket]:
    """(the grader's end, the server's end)."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


def send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:
    data = json.dumps(message).encode()
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def receive(sock: socket.socket) -> tuple[dict | None, list[int]]:
    """The next message and the descriptors that came with it; (None, []) when the other end closed."""
    data, fds, _, _ = socket.recv_fds(sock, MAX_MESSAGE, 8)
    if not data:
        for fd in fds:
            os.close(fd)
        return None, []
    return json.loads(data), fds


def anonymous_file(name: str, data: bytes = b"") -> int:
    """A new anonymous file (no path anywhere) holding ``data``, read and written at offset 0."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# ---- records: frames written by the job, read by the grader ----------------------------------


def write_frame(name: str, data: bytes, fd: int = RECORD_FD) -> None:
    """In the job: one record on the record file, a header line (its name and size), then its bytes."""
    os.write(fd, json.dumps({"name": name, "size": len(data)}).encode() + b"\n")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_frames(fd: int, limit: int = RECORD.max_bytes) -> list[tuple[str, bytes]]:
    """In the grader: the frames a job wrote, in order, from the grader's own descriptor on the file.
    A frame cut short (the job was stopped while writing it) or malformed ends the reading; what came
    before it counts.  The file's size is the job's to choose, so at most ``RECORD.max_frames`` frames of at
    most ``limit`` bytes each are read, from positions the reading itself computes."""
    frames, offset = [], 0
    size = os.fstat(fd).st_size
    while len(frames) < RECORD.max_frames and offset < size:
        header = os.pread(fd, 512, offset)
        end = header.find(b"\n")
        if end < 0:
            break
        try:
            meta = json.loads(header[:end])
            name, length = str(meta["name"])[:100], int(meta["size"])
        except (ValueError, KeyError, TypeError):
            break
        if not 0 < length <= limit:
            break
        data = os.pread(fd, length, offset + end + 1)
        if len(data) != length:
            break
        frames.append((name, data))
        offset += end + 1 + length
    return frames


def tail(fd: int, size: int = 2000) -> str:
    """The end of a job's log, from the grader's descriptor."""
    length = os.fstat(fd).st_size
    return os.pread(fd, size, max(0, length - size)).decode(errors="replace")
