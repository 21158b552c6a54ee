"""Every Jupyter server the course starts (each hub user's, the grading server, ``course.py lab``) says
nothing a newcomer did not cause: encrypted kernel sockets, and tornado's websocket-setting warning left
out unless the server runs with --debug.  Why each: autograder/quiet.py.

Its terminals run the server's own Python: jupyter_server (jupyter_server_terminals) starts the
account's shell as a login shell when the server has no terminal of its own, as under the hub, and
Debian's /etc/profile then sets PATH afresh, so the documented ``python -m autograder grade`` in the
grading server's terminal said ``python: not found``.  An interactive bash reads terminal.bashrc
beside this file instead: what a login shell reads, then the server's PATH (the hub's
"<environment>/bin:/usr/bin:/bin") in front again.  A machine with no bash keeps jupyter_server's
default."""

import os
import shutil

from autograder.quiet import quiet_server

c = get_config()  # noqa: F821 - provided by Jupyter when it loads this file
quiet_server(c)

BASH = shutil.which("bash", path="/usr/bin:/bin")
if BASH:
    TERMINAL_RC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "terminal.bashrc")
    c.ServerApp.terminado_settings = {"shell_command": [BASH, "--rcfile", TERMINAL_RC, "-i"]}

# Inside the LMS's page, when the hub's LTI login allows it (autograder/lms_frame.py says why).
from autograder.lms_frame import allow_lms_frame  # noqa: E402

allow_lms_frame(c)
