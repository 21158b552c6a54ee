"""autograder/quiet.py: the one known message is dropped, nothing else, and never when debugging."""

from __future__ import annotations

import logging

import pytest
import zmq
from traitlets.config import Config

from autograder.quiet import WEBSOCKET_PING, KnownNoise, encrypt_kernels, server_debugging

TORNADO = (
    "The websocket_ping_timeout (90000) cannot be longer than the websocket_ping_interval (30000).\n"
    "Setting websocket_ping_timeout=30000"
)


def record(message: str, level: int = logging.WARNING) -> logging.LogRecord:
    return logging.LogRecord("tornado.general", level, __file__, 1, message, None, None)


def test_tornados_websocket_setting_warning_is_dropped_when_not_debugging():
    assert not KnownNoise((WEBSOCKET_PING,), lambda: False).filter(record(TORNADO))


def test_it_is_kept_for_a_developer_who_asked_for_debug_output():
    assert KnownNoise((WEBSOCKET_PING,), lambda: True).filter(record(TORNADO))


@pytest.mark.parametrize(
    "message, level",
    [
        ("Uncaught exception in websocket handler", logging.WARNING),  # another warning, same logger
        ("Could not open static file 'x'", logging.WARNING),
        (TORNADO, logging.ERROR),  # the same words at another level are not the known message
        ("Note: " + TORNADO, logging.WARNING),  # nor the words quoted inside another message
    ],
)
def test_every_other_message_passes(message, level):
    assert KnownNoise((WEBSOCKET_PING,), lambda: False).filter(record(message, level))


def test_kernels_are_encrypted_where_pyzmq_can():
    c = Config()
    encrypt_kernels(c)
    expected = "auto" if zmq.has("curve") else None
    assert c.KernelManager.get("transport_encryption") == expected
    assert c.MappingKernelManager.get("transport_encryption") == expected


def test_without_a_jupyter_server_in_the_process_nobody_is_debugging():
    assert server_debugging() is False  # pytest is an application of no kind: no server, no error
