"""JupyterHub for the classes of this course, on one machine: one course, or several side by side.

Who: ``roster.toml`` (``AUTOGRADER_ROSTER``, read by hub/roster.py) lists each course's instructors,
teaching assistants and students, by their account names on this machine (PAM logs them in with
their own passwords; AUTOGRADER_AUTH=lti13 takes logins from the LMS instead, and keeps the groups).
With one course its instructors are hub admins; with several, nobody of the roster is (a hub
admin may open every server and service, so an instructor could open another course's formgrader).

What each gets:

* students: their own JupyterLab (the course's environment, the same pins as requirements.txt),
  with nbgrader's *Assignments* tab: fetch, work, submit, fetch feedback, through the exchange,
  for every course they are a student of (the hub's groups ``nbgrader-<course>`` say which:
  nbgrader's JupyterHubAuthPlugin asks the hub; a course's files sit in ``<course>/<assignment>``);
* instructors and TAs of a course: its shared grading server, a hub service named after the
  course (``/services/<course>/``), running as the course's grader account in the course's folder,
  with nbgrader's formgrader; it is there that ``python -m autograder grade`` runs (a terminal in
  that server), into the course's own gradebook on PostgreSQL.  Only the course's group
  ``formgrade-<course>`` may open it.

Settings: environment variables ``AUTOGRADER_<name>``, read once when the hub starts, each declared
with its default and help in autograder/settings.py (groups ``hub``, ``capacity`` and ``lti``):
``python -m autograder settings`` prints them with their values, docs/instructor.md tables them.
What their one line of help leaves out:

``AUTOGRADER_COURSE_ROOT``  with one course, a clone of this repository owned by the grader account
                          (default: the roster's ``root``, else /srv/<course id>); with several,
                          each course's ``root`` in the roster says it
``AUTOGRADER_DB_URL``       e.g. postgresql://autograd:secret@127.0.0.1:5432/autograd_course; with several
                          courses it names each course's own database by ``{course}``
                          (postgresql://...:5432/gradebook_{course})
``AUTOGRADER_EXCHANGE_KIND`` ``file``: nbgrader's exchange folder, AUTOGRADER_EXCHANGE, on this
                          machine (who submitted is the file's owner: autograder/grading/exchange.py);
                          ``ngshare``: the hub runs ngshare (hub/ngshare_service.py) as its service
                          ``ngshare`` and every server uses ngshare_exchange: who submitted is the hub
                          login of the token that sent it, so it holds where every user runs as the
                          same uid (Kubernetes) and needs no shared volume
``AUTOGRADER_NGSHARE_PORT`` ngshare listens on every interface, and answers only requests that carry a
                          hub token
``AUTOGRADER_NGSHARE_DB_URL`` the files ngshare keeps are in ngshare-files/ in the hub's state folder.
                          Not PostgreSQL: ngshare 0.6.0's tables cannot be made there (its
                          association tables' TEXT columns reference INTEGER keys: "foreign key
                          constraint ... cannot be implemented", tried with PostgreSQL 15)
``AUTOGRADER_SERVICE_PORT`` the next course's grading server's is the next port, in roster order
``AUTOGRADER_HUB_API_PORT``, ``AUTOGRADER_PROXY_API_PORT``  JupyterHub's defaults are 8081 and 8001: set
                          them for two hubs on one machine
``AUTOGRADER_AUTH``         lti13: hub/lti.py says how the LMS's logins work

A class that logs in at once, and what each student may use: hub/capacity.py says why and how.
"""

import dataclasses
import importlib.util
import os
import pwd
import sys

from autograder.settings import SETTINGS, renamed

c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file

# What the hub and every server it starts create is private unless made otherwise on purpose: the
# hub's database and cookie secret (in hub/ unless AUTOGRADER_HUB_STATE says elsewhere), the grading
# server's files in the course folder (the formgrader's collect, generate and feedback, and what
# its terminals run), and users' own files.  nbgrader sets the modes of what it puts in the
# exchange itself, so students still fetch releases and feedback.
os.umask(0o077)

# Every setting below is AUTOGRADER_<name>; a deprecated AUTOGRAD_<name> still counts (with a warning
# in the hub's log) where the new name is unset: the new names are written into the environment, which
# the servers and services the hub starts inherit.
os.environ.update(renamed(os.environ))
# The hub's settings (autograder/settings.py, group "hub"; `python -m autograder settings` lists them),
# read once: a value that does not fit stops the hub here, naming it.
HUB = SETTINGS.read(only=[setting.name for setting in SETTINGS.group("hub")])

HERE = os.path.dirname(os.path.abspath(__file__))
ROSTER_PATH = os.path.abspath(HUB.roster or os.path.join(HERE, "roster.toml"))

# The roster, read and checked by hub/roster.py.  The hub's folder is no package: its files import
# each other from beside them (hub/lti.py, hub/install.py and hub/ngshare_service.py do the same).
if HERE not in sys.path:
    sys.path.insert(0, HERE)
import capacity  # noqa: E402
import roster  # noqa: E402

# Under LTI the LMS says who teaches and studies: a course with an lti_context needs nobody listed.
LMS = HUB.auth == "lti13"
COURSES = roster.load(ROSTER_PATH, lms=LMS)
SEVERAL = len(COURSES) > 1
if not SEVERAL:  # one course: its folder and grader account may also come from the environment
    COURSES = [dataclasses.replace(COURSES[0], root=HUB.course_root or COURSES[0].root,
                                   grader=HUB.grader_user or COURSES[0].grader)]  # fmt: skip
INSTRUCTORS, TAS, STUDENTS = (roster.everyone(COURSES, role) for role in roster.ROLES)
STATE = HUB.hub_state or HERE
EXCHANGE_KIND = HUB.exchange_kind
NGSHARE_PORT = HUB.ngshare_port
SERVICE_PORT = HUB.service_port
# Every user runs the course's environment: the Python this hub runs in.
BIN = os.path.dirname(sys.executable)
SINGLEUSER = os.path.join(BIN, "jupyterhub-singleuser")

c.JupyterHub.ip = HUB.hub_ip
c.JupyterHub.port = HUB.hub_port
c.JupyterHub.cookie_secret_file = os.path.join(STATE, "jupyterhub_cookie_secret")
c.JupyterHub.db_url = "sqlite:///" + os.path.join(STATE, "jupyterhub.sqlite")
if HUB.hub_api_port:
    c.JupyterHub.hub_port = HUB.hub_api_port
if HUB.proxy_api_port:
    c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{HUB.proxy_api_port}"
if HUB.proxy:
    c.ConfigurableHTTPProxy.command = [HUB.proxy]

# Who may log in, and in which groups.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = set(INSTRUCTORS + TAS + STUDENTS)
c.Authenticator.admin_users = set() if SEVERAL else set(INSTRUCTORS)
# Everyone of a role in any course, then each course's own groups (hub/roster.py's Course.groups):
# formgrade-<course> may use its formgrader, nbgrader-<course> are its students (nbgrader's names).
c.JupyterHub.load_groups = {"instructors": {"users": INSTRUCTORS}, "tas": {"users": TAS},
                            "students": {"users": STUDENTS}}  # fmt: skip
for course in COURSES:
    c.JupyterHub.load_groups.update({name: {"users": users} for name, users in course.groups().items()})
c.JupyterHub.load_roles = [
    {
        "name": f"formgrade-{course.id}",
        "groups": [f"formgrade-{course.id}"],
        "scopes": [f"access:services!service={course.service}", "list:services",
                   f"read:services!service={course.service}"],
    }
    for course in COURSES
] + [
    # A user's server may read its user's groups (nbgrader's course list asks the hub) and list the
    # hub's services.
    {"name": "server", "scopes": ["inherit"]},
]  # fmt: skip
LTI = None
if LMS:  # logins from the LMS instead: hub/lti.py
    spec = importlib.util.spec_from_file_location("hub_lti", os.path.join(HERE, "lti.py"))
    sys.modules["hub_lti"] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules["hub_lti"])
    LTI = sys.modules["hub_lti"].configure(c, os.environ, COURSES, STATE)

# Everyone's JupyterLab: the course's environment, JupyterLab by default, and the hub's Jupyter
# settings (hub/etc/jupyter: nbgrader's exchange and course id, the formgrader allowed in a frame).
COMMON_ENVIRONMENT = {
    "PATH": f"{BIN}:/usr/bin:/bin",
    "JUPYTER_CONFIG_PATH": os.path.join(HERE, "etc", "jupyter"),
    "AUTOGRADER_EXCHANGE": HUB.exchange,
    # hub/etc/jupyter/nbgrader_config.py and the course's nbgrader_config.py choose the exchange by it.
    "AUTOGRADER_EXCHANGE_KIND": EXCHANGE_KIND,
}
if LTI is not None:  # shown inside the LMS's page: every server allows it as a frame ancestor
    COMMON_ENVIRONMENT.update(LTI.environment)
# Users' servers know their one course; with several, none (empty): they ask the hub for their groups.
USER_ENVIRONMENT = {**COMMON_ENVIRONMENT, "AUTOGRADER_COURSE_ID": "" if SEVERAL else COURSES[0].id}
if EXCHANGE_KIND == "ngshare":  # every server talks to ngshare directly, with its own hub token
    COMMON_ENVIRONMENT["AUTOGRADER_NGSHARE_URL"] = f"http://127.0.0.1:{NGSHARE_PORT}/services/ngshare"
c.Spawner.cmd = [SINGLEUSER]
c.Spawner.default_url = "/lab"
c.Spawner.environment = dict(USER_ENVIRONMENT)


def before_spawn(spawner):
    """Every user's home is private (many systems make homes readable by all, and a student's work
    lives there: nbgrader's exchange is the only way it should travel).  Students also get
    hub/etc/student: nbgrader's assignment list only (no formgrader, no "create assignment"
    toolbar); instructors and TAs grade through their course's service.  Who is staff is read from
    the hub's groups (a formgrade-<course> group), which LTI logins set from the launch too."""
    try:
        home = pwd.getpwnam(spawner.user.name).pw_dir
        if os.path.isdir(home) and os.stat(home).st_uid == pwd.getpwnam(spawner.user.name).pw_uid:
            os.chmod(home, 0o700)
    except (KeyError, OSError):
        pass  # no local account yet (the spawner says so), or a home managed elsewhere
    if not any(group.name.startswith("formgrade-") for group in spawner.user.groups):
        paths = [os.path.join(HERE, "etc", "student"), COMMON_ENVIRONMENT["JUPYTER_CONFIG_PATH"]]
        spawner.environment["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)


c.Spawner.pre_spawn_hook = before_spawn

# Each course's grading server, shared by its instructors and TAs: JupyterLab as its grader account,
# in its course folder, with the formgrader; the course id and the gradebook's URL reach the course
# folder's nbgrader_config.py through the environment.
DB_URL = HUB.db_url
if SEVERAL and DB_URL and "{course}" not in DB_URL:
    raise ValueError(
        "AUTOGRADER_DB_URL names one database, and the roster has several courses: each course keeps its own "
        "gradebook, so write {course} where its name goes (postgresql://.../gradebook_{course})"
    )


def home_of(account: str) -> str:
    try:
        return pwd.getpwnam(account).pw_dir
    except KeyError:  # made later, or known to another machine only (a pod)
        return os.path.join("/home", account)


c.JupyterHub.services = []
for number, course in enumerate(COURSES):
    service_environment = {
        **COMMON_ENVIRONMENT,
        "AUTOGRADER_COURSE_ID": course.id,
        "JUPYTERHUB_DEFAULT_URL": "/lab",
        "HOME": (None if SEVERAL else HUB.grader_home) or home_of(course.grader),
    }
    if LTI is not None and course.lti_context:  # what the launches told: publish and the exports read it
        service_environment["AUTOGRADER_LMS_RECORD"] = os.path.join(LTI.records, course.id)
    if DB_URL:
        service_environment["AUTOGRADER_DB_URL"] = DB_URL.replace("{course}", course.id.replace("-", "_"))
    c.JupyterHub.services.append(
        {
            "name": course.service,
            "url": f"http://127.0.0.1:{SERVICE_PORT + number}",
            "command": [SINGLEUSER, f"--ServerApp.root_dir={course.root}"],
            "user": course.grader,
            "cwd": course.root,
            "environment": service_environment,
            "oauth_no_confirm": True,
        }
    )

if EXCHANGE_KIND == "ngshare":
    # ngshare knows a user by the hub login of the token a request carries; its only admin is the
    # service itself (it enrols the roster at every start), and the grading service, whose token
    # the formgrader's release, collect and feedback carry, is the course's first instructor.
    # ngshare does not tell a user from a service of the same name: no roster name may be one.
    clash = {"ngshare", *(course.service for course in COURSES)} & set(INSTRUCTORS + TAS + STUDENTS)
    if clash:
        raise ValueError(f"the roster names {sorted(clash)}: these are the hub's services' names")
    ngshare_db = HUB.ngshare_db_url or "sqlite:///" + os.path.join(STATE, "ngshare.sqlite")
    command = [sys.executable, os.path.join(HERE, "ngshare_service.py"), "--roster", ROSTER_PATH, "--database",
               ngshare_db, "--storage", os.path.join(STATE, "ngshare-files")]  # fmt: skip
    command += [argument for course in COURSES for argument in ("--course", course.id)] + (["--lms"] if LMS else [])
    # No "user": it runs as the hub's account, like the hub's own database (0600 under umask 077).
    c.JupyterHub.services.append(
        {"name": "ngshare", "url": f"http://127.0.0.1:{NGSHARE_PORT}", "command": command, "cwd": STATE}
    )

# Last, because it adds to the services and roles above: the spawn limit and timeouts, the spawner
# that holds each student to their limits, the idle culler, and who may start a class's servers.
capacity.configure(c, capacity.Capacity.from_environment(os.environ), COURSES, HERE)
