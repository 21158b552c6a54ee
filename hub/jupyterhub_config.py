"""JupyterHub for one class of this course, on one machine.

Who: ``roster.toml`` (``AUTOGRAD_ROSTER``) lists the instructors, the teaching assistants and the
students, by their account names on this machine (PAM logs them in with their own passwords;
swap ``c.JupyterHub.authenticator_class`` for your institution's, e.g. LTI or OAuth, and keep
the groups).  Instructors are hub admins.

What each gets:

* students: their own JupyterLab (the course's environment, the same pins as requirements.txt),
  with nbgrader's *Assignments* tab: fetch, work, submit, fetch feedback, through the exchange;
* instructors and TAs: the course's shared grading server, a hub service named after the
  course (``/services/<course>/``), running as the course's grader account in the course folder,
  with nbgrader's formgrader; it is there that ``python -m autograder grade`` runs (a terminal in
  that server), into the gradebook on PostgreSQL.

Settings (environment variables, read when the hub starts; see the README's hub section):

``AUTOGRAD_ROSTER``       the roster (default: hub/roster.toml beside this file)
``AUTOGRAD_COURSE_ROOT``  the course folder, a clone of this repository owned by the grader account
``AUTOGRAD_GRADER_USER``  that account (default: grader-<course id>)
``AUTOGRAD_DB_URL``       the gradebook, e.g. postgresql://autograd:secret@127.0.0.1:5432/autograd_course
``AUTOGRAD_EXCHANGE_KIND`` how assignments, submissions and feedback travel between users:
                          ``file`` (the default): nbgrader's exchange folder, AUTOGRAD_EXCHANGE, on this
                          machine (who submitted is the file's owner: autograder/grading/exchange.py);
                          ``ngshare``: the hub runs ngshare (hub/ngshare_service.py) as its service
                          ``ngshare`` and every server uses ngshare_exchange: who submitted is the hub
                          login of the token that sent it, so it holds where every user runs as the
                          same uid (Kubernetes) and needs no shared volume
``AUTOGRAD_EXCHANGE``     nbgrader's exchange folder, for ``file`` (default /srv/nbgrader/exchange)
``AUTOGRAD_NGSHARE_PORT`` for ``ngshare``: its port (default 10101; ngshare listens on every interface,
                          and answers only requests that carry a hub token)
``AUTOGRAD_NGSHARE_DB_URL`` for ``ngshare``: its database (default: ngshare.sqlite in the hub's state
                          folder, AUTOGRAD_HUB_STATE or hub/); the files it keeps are in ngshare-files/
                          there.  Not PostgreSQL: ngshare 0.6.0's tables cannot be made there (its
                          association tables' TEXT columns reference INTEGER keys: "foreign key
                          constraint ... cannot be implemented", tried with PostgreSQL 15)
``AUTOGRAD_HUB_IP``, ``AUTOGRAD_HUB_PORT``, ``AUTOGRAD_SERVICE_PORT``  where the hub and the grading server listen
``AUTOGRAD_HUB_API_PORT``, ``AUTOGRAD_PROXY_API_PORT``  the hub's and the proxy's own ports on 127.0.0.1
                          (JupyterHub's defaults, 8081 and 8001, unless set: two hubs on one machine)
``AUTOGRAD_PROXY``        the configurable-http-proxy command (default: found on PATH)
``AUTOGRAD_AUTH``         pam (default), or lti13: logins from the LMS (hub/lti.py lists its settings)
"""

import importlib.util
import os
import sys

c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file

# What the hub and every server it starts create is private unless made otherwise on purpose: the
# hub's database and cookie secret (in hub/ unless AUTOGRAD_HUB_STATE says elsewhere), the grading
# server's files in the course folder (the formgrader's collect, generate and feedback, and what
# its terminals run), and users' own files.  nbgrader sets the modes of what it puts in the
# exchange itself, so students still fetch releases and feedback.
os.umask(0o077)

HERE = os.path.dirname(os.path.abspath(__file__))
COURSE_ID = "autograd-course"  # nbgrader's course id: the exchange's folder and the service's name
ROSTER_PATH = os.path.abspath(os.environ.get("AUTOGRAD_ROSTER", os.path.join(HERE, "roster.toml")))

# The roster, read and checked by hub/roster.py (beside this file; the hub's folder is no package).
if "hub_roster" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("hub_roster", os.path.join(HERE, "roster.py"))
    sys.modules["hub_roster"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["hub_roster"])
COURSES = sys.modules["hub_roster"].load(ROSTER_PATH)
COURSE = next((course for course in COURSES if course.id == COURSE_ID), None)
if COURSE is None:
    # This hub serves the course autograd-course: its grading service, groups and exchange folder.
    # A roster's other courses are known to LTI logins (hub/lti.py), but get no service here yet.
    raise ValueError(f"{ROSTER_PATH} has no course {COURSE_ID!r} (it has {[course.id for course in COURSES]}): "
                     "write its people at the top of the roster, or in a table [courses.autograd-course]")  # fmt: skip
INSTRUCTORS, TAS, STUDENTS = (list(getattr(COURSE, role)) for role in ("instructors", "tas", "students"))
STATE = os.environ.get("AUTOGRAD_HUB_STATE", HERE)
EXCHANGE_KIND = os.environ.get("AUTOGRAD_EXCHANGE_KIND", "file")
if EXCHANGE_KIND not in ("file", "ngshare"):
    raise ValueError(f"AUTOGRAD_EXCHANGE_KIND is {EXCHANGE_KIND!r}: it must be 'file' or 'ngshare'")
NGSHARE_PORT = int(os.environ.get("AUTOGRAD_NGSHARE_PORT", "10101"))
COURSE_ROOT = os.environ.get("AUTOGRAD_COURSE_ROOT", "/srv/" + COURSE_ID)
GRADER = os.environ.get("AUTOGRAD_GRADER_USER", "grader-" + COURSE_ID)
SERVICE_PORT = int(os.environ.get("AUTOGRAD_SERVICE_PORT", "9999"))
# Every user runs the course's environment: the Python this hub runs in.
BIN = os.path.dirname(sys.executable)
SINGLEUSER = os.path.join(BIN, "jupyterhub-singleuser")

c.JupyterHub.ip = os.environ.get("AUTOGRAD_HUB_IP", "0.0.0.0")
c.JupyterHub.port = int(os.environ.get("AUTOGRAD_HUB_PORT", "8000"))
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "jupyterhub_cookie_secret")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(STATE, "jupyterhub.sqlite")
if os.environ.get("AUTOGRAD_HUB_API_PORT"):
    c.JupyterHub.hub_port = int(os.environ["AUTOGRAD_HUB_API_PORT"])
if os.environ.get("AUTOGRAD_PROXY_API_PORT"):
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{int(os.environ['AUTOGRAD_PROXY_API_PORT'])}"
if os.environ.get("AUTOGRAD_PROXY"):
    c.ConfigurableHTTPProxy.command = [os.environ["AUTOGRAD_PROXY"]]

# Who may log in, and in which groups.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = set(INSTRUCTORS + TAS + STUDENTS)
c.Authenticator.admin_users = set(INSTRUCTORS)
c.JupyterHub.load_groups = {
    "instructors": {"users": INSTRUCTORS},
    "tas": {"users": TAS},
    "students": {"users": STUDENTS},
    # nbgrader looks for this group name: who may grade the course through its formgrader.
    f"formgrade-{COURSE_ID}": {"users": INSTRUCTORS + TAS},
}
c.JupyterHub.load_roles = [
    {
        "name": f"formgrade-{COURSE_ID}",
        "groups": [f"formgrade-{COURSE_ID}"],
        "scopes": [f"access:services!service={COURSE_ID}", "list:services", f"read:services!service={COURSE_ID}"],
    },
    # A user's server may list the hub's services (nbgrader's course list asks which exist).
    {"name": "server", "scopes": ["inherit"]},
]
if os.environ.get("AUTOGRAD_AUTH", "pam") == "lti13":  # logins from the LMS instead: hub/lti.py
    import importlib.util

    spec = importlib.util.spec_from_file_location("hub_lti", os.path.join(HERE, "lti.py"))
    sys.modules["hub_lti"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules["hub_lti"])
    sys.modules["hub_lti"].configure(c, os.environ)

# Everyone's JupyterLab: the course's environment, JupyterLab by default, and the hub's Jupyter
# settings (hub/etc/jupyter: nbgrader's exchange and course id, the formgrader allowed in a frame).
COMMON_ENVIRONMENT = {
    "PATH": f"{BIN}:/usr/bin:/bin",
    "JUPYTER_CONFIG_PATH": os.path.join(HERE, "etc", "jupyter"),
    "AUTOGRAD_EXCHANGE": os.environ.get("AUTOGRAD_EXCHANGE", "/srv/nbgrader/exchange"),
    # hub/etc/jupyter/nbgrader_config.py and the course's nbgrader_config.py choose the exchange by it.
    "AUTOGRAD_EXCHANGE_KIND": EXCHANGE_KIND,
}
if EXCHANGE_KIND == "ngshare":  # every server talks to ngshare directly, with its own hub token
    COMMON_ENVIRONMENT["AUTOGRAD_NGSHARE_URL"] = f"http://127.0.0.1:{NGSHARE_PORT}/services/ngshare"
c.Spawner.cmd = [SINGLEUSER]
c.Spawner.default_url = "/lab"
c.Spawner.environment = dict(COMMON_ENVIRONMENT)


def before_spawn(spawner):
    """Every user's home is private (many systems make homes readable by all, and a student's work
    lives there: nbgrader's exchange is the only way it should travel).  Students also get
    hub/etc/student: nbgrader's assignment list only (no formgrader, no "create assignment"
    toolbar); instructors and TAs grade through the course's service."""
    import pwd

    try:
        home = pwd.getpwnam(spawner.user.name).pw_dir
        if os.path.isdir(home) and os.stat(home).st_uid == pwd.getpwnam(spawner.user.name).pw_uid:
            os.chmod(home, 0o700)
    except (KeyError, OSError):
        pass  # no local account yet (the spawner says so), or a home managed elsewhere
    if spawner.user.name in STUDENTS:
        paths = [os.path.join(HERE, "etc", "student"), COMMON_ENVIRONMENT["JUPYTER_CONFIG_PATH"]]
        spawner.environment["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)


c.Spawner.pre_spawn_hook = before_spawn

# The course's grading server, shared by instructors and TAs: JupyterLab as the grader account,
# in the course folder, with the formgrader; the gradebook URL reaches nbgrader_config.py there.
service_environment = {
    **COMMON_ENVIRONMENT,
    "JUPYTERHUB_DEFAULT_URL": "/lab",
    "HOME": os.environ.get("AUTOGRAD_GRADER_HOME", os.path.join("/home", GRADER)),
}
if os.environ.get("AUTOGRAD_DB_URL"):
    service_environment["AUTOGRADER_DB_URL"] = os.environ["AUTOGRAD_DB_URL"]
c.JupyterHub.services = [
    {
        "name": COURSE_ID,
        "url": f"http://127.0.0.1:{SERVICE_PORT}",
        "command": [SINGLEUSER, f"--ServerApp.root_dir={COURSE_ROOT}"],
        "user": GRADER,
        "cwd": COURSE_ROOT,
        "environment": service_environment,
        "oauth_no_confirm": True,
    }
]

if EXCHANGE_KIND == "ngshare":
    # ngshare knows a user by the hub login of the token a request carries; its only admin is the
    # service itself (it enrols the roster at every start), and the grading service, whose token
    # the formgrader's release, collect and feedback carry, is the course's first instructor.
    # ngshare does not tell a user from a service of the same name: no roster name may be one.
    clash = {COURSE_ID, "ngshare"} & set(INSTRUCTORS + TAS + STUDENTS)
    if clash:
        raise ValueError(f"the roster names {sorted(clash)}: these are the hub's services' names")
    ngshare_db = os.environ.get("AUTOGRAD_NGSHARE_DB_URL") or "sqlite:///" + os.path.join(STATE, "ngshare.sqlite")
    command = [sys.executable, os.path.join(HERE, "ngshare_service.py"), "--course", COURSE_ID, "--roster",
               ROSTER_PATH, "--instructor", COURSE_ID, "--database", ngshare_db, "--storage",
               os.path.join(STATE, "ngshare-files")]  # fmt: skip
    # No "user": it runs as the hub's account, like the hub's own database (0600 under umask 077).
    c.JupyterHub.services.append(
        {"name": "ngshare", "url": f"http://127.0.0.1:{NGSHARE_PORT}", "command": command, "cwd": STATE}
    )
