"""Every Jupyter server the course starts (each hub user's, the grading server, ``course.py lab``) says
nothing a newcomer did not cause: encrypted kernel sockets, and tornado's websocket-setting warning left
out unless the server runs with --debug.  Why each: autograder/quiet.py."""

from autograder.quiet import quiet_server

quiet_server(get_config())  # noqa: F821 - provided by Jupyter when it loads this file
