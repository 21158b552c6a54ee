"""Quiet by default: the warnings a newcomer read as trouble, fixed where they start, or, where the course
cannot fix them, left out of the log of the Jupyter servers the course starts, and only there.

* "Kernel is running over TCP without encryption" (ipykernel, at every kernel start, also in
  ``nbgrader validate``).  Fixed: the kernel manager gives each kernel CurveZMQ keys when the kernel
  says it takes them (jupyter_client's ``KernelManager.transport_encryption = "auto"``, which a Jupyter
  server takes from ``MappingKernelManager.transport_encryption``; ipykernel's
  kernelspec declares ``supported_encryption: ["curve"]``), so its sockets are encrypted and there is
  nothing to warn about.  ``encrypt_kernels`` sets it only where pyzmq has CurveZMQ: jupyter_client
  refuses the setting elsewhere, and a kernel that does not start is worse than a warning.  Not ipc
  sockets instead: jupyter_server names them after the runtime folder, and a long home folder's path
  passes the 107 bytes a socket name may have.  The grader's sandboxed kernels already use ipc
  sockets in their short job folder (autograder/grading/kernel.py).
* "The websocket_ping_timeout (90000) cannot be longer than the websocket_ping_interval (30000)"
  (tornado, at the first websocket, e.g. a notebook's kernel).  jupyter_server's own defaults: its
  keep-alive pings read these in milliseconds, tornado reads the same values in seconds
  (jupyter-server/jupyter_server#1612).  No setting suits both readings: a timeout no longer than the
  interval makes jupyter_server close a healthy websocket whenever its timer fires late, and an
  interval of 0 stops the pings that keep a websocket open through a proxy.  So ``quiet_server``
  drops exactly that message at WARNING, in the servers the course starts (hub/etc/jupyter/
  jupyter_server_config.py, which ``course.py lab`` and the hub load), unless the server logs at DEBUG
  (``--debug``): a developer who asks for everything gets everything.
* "Formgrader config is not serializable" (nbgrader, each time *Manage Assignments* opens): the
  formgrader's debug panel prints its configuration as JSON, and the course's post-convert hook is a
  function bound to the course root.  Fixed in nbgrader_config.py: ``FormgradeExtension.debug`` only
  when the server logs at DEBUG (the formgrader reads the course folder's nbgrader_config.py after the
  command line, so ``server_debugging`` is how a developer turns the panel, and its warning, back on).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

import zmq
from tornado.log import gen_log

# Start of tornado's message (the numbers and the sentence after it vary): websocket.py, ping_timeout.
WEBSOCKET_PING = "The websocket_ping_timeout ("


def encrypt_kernels(c) -> None:
    """Kernels started under the config ``c`` talk over CurveZMQ-encrypted sockets where pyzmq can."""
    if zmq.has("curve"):
        c.KernelManager.transport_encryption = "auto"  # a kernel nbclient starts (nbgrader validate)
        c.MappingKernelManager.transport_encryption = "auto"  # a Jupyter server's, passed to each kernel


class KnownNoise(logging.Filter):
    """Drops a WARNING record whose message starts with one of ``starts``, unless ``debugging()``.

    Not the logger's level: traitlets keeps an application's loggers at DEBUG and its handlers at the
    level asked for, so only the application knows whether a developer asked for debug output."""

    def __init__(self, starts: tuple[str, ...], debugging: Callable[[], bool]):
        super().__init__()
        self.starts = starts
        self.debugging = debugging

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING or not record.getMessage().startswith(self.starts):
            return True
        return self.debugging()


def server_debugging() -> bool:
    """Whether the Jupyter server of this process logs at DEBUG (``--debug``, ``--log-level=DEBUG``)."""
    serverapp = sys.modules.get("jupyter_server.serverapp")  # not imported: no server here (nbgrader's CLI)
    if serverapp is None:
        return False
    # Not ServerApp.instance(): traitlets keeps one application per process, and in `nbgrader validate`
    # that one is nbgrader's, which .instance() would raise on (and a config file that raises is skipped).
    server = getattr(serverapp.ServerApp, "_instance", None)
    return isinstance(server, serverapp.ServerApp) and server.log_level <= logging.DEBUG


def quiet_server(c) -> None:
    """What a Jupyter server the course starts needs to say nothing a newcomer did not cause."""
    encrypt_kernels(c)
    if not any(isinstance(f, KnownNoise) for f in gen_log.filters):  # config files may be loaded twice
        gen_log.addFilter(KnownNoise((WEBSOCKET_PING,), server_debugging))
