"""LTI 1.3 logins: students and staff come from the LMS (Canvas, Moodle, ...) instead of PAM.

The login itself is jupyterhub-ltiauthenticator's ``LTI13Authenticator`` (the OpenID Connect
third-party initiated login, the id_token's signature against the platform's JWKS, its issuer,
audience, expiry and nonce), as hub/lti_web.py's ``CourseLTI13Authenticator``.  This module adds
what the course needs on top, after that check:

* the deployment: the launch's ``deployment_id`` must be one the hub's settings name (a platform
  holds many installs of a tool; only the ones registered for this hub may log anyone in);
* which course of the roster the launch belongs to: the launch's context claim (the LMS course)
  must be a course's ``lti_context`` in the roster (hub/roster.py); any other is refused;
* which groups the user is in there, from the launch's roles: Instructor → the course's
  instructors (and its formgrader), TeachingAssistant → its TAs (and its formgrader), Learner →
  its students; a launch with none of these roles is refused;
* the account name, from a configurable claim, made safe (hub/roster.py's account names), and the
  system account itself at the first launch, for the local spawners (hub/lti_accounts.py);
* what the launch tells about the course and the person (the AGS line items URL, the LMS's ``sub``,
  name and email), kept in the course's LMS record for ``publish``, the exports and the gradebook
  (autograder/grading/lms_record.py), so nobody copies ids by hand;
* a deep-linking launch (the LMS's assignment dialog) gets the page to choose lessons
  (hub/deep_linking.py), from the course's instructors and TAs only;
* a launch is used once: the same id_token posted again is refused, even with its cookies.

Settings (environment variables, read by ``configure`` when the hub starts; AUTOGRADER_AUTH=lti13):

``AUTOGRADER_LTI_ISSUER``         the platform's issuer, e.g. https://canvas.instructure.com
``AUTOGRADER_LTI_CLIENT_ID``      the client id the platform gave the tool (several: comma-separated)
``AUTOGRADER_LTI_DEPLOYMENT_ID``  the deployment id(s) the platform gave the tool's installs (comma-separated)
``AUTOGRADER_LTI_AUTHORIZE_URL``  the platform's OIDC authorization endpoint
``AUTOGRADER_LTI_JWKS_URL``       the platform's public keys (JWKS)
``AUTOGRADER_LTI_TOKEN_URL``      the platform's OAuth 2 token endpoint (for ``publish``; kept in the record)
``AUTOGRADER_LTI_USERNAME_CLAIM`` the claim that names the user (default ``sub``); ``email``, or a key
                                inside a claim after ``#``, e.g. Moodle's login name
                                ``https://purl.imsglobal.org/spec/lti/claim/ext#user_username``
``AUTOGRADER_LTI_URI_SCHEME``     https or http for the hub's own URLs (default: as the request came)
``AUTOGRADER_LTI_CREATE_ACCOUNTS`` 1: make each user's system account at their first launch (the default
                                when the hub runs as root with a local spawner); 0: the accounts exist already
``AUTOGRADER_LTI_IN_FRAME``       1: the hub and every server it starts may be shown inside the LMS's page:
                                cookies ``SameSite=None; Secure`` and the LMS allowed as a frame ancestor
                                (the default with AUTOGRADER_LTI_URI_SCHEME=https); 0: launch in a new tab
``AUTOGRADER_LTI_FRAME_ANCESTORS`` the LMS origins that may frame it (default: the issuer's and the
                                authorization URL's; Canvas: add your Canvas's own, https://canvas.example.edu)
``AUTOGRADER_LMS_RECORDS``        the folder of each course's LMS record and tool key (default: lms/ in the
                                hub's state folder)

Importing this module changes nothing; ``configure`` does.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import pwd
import re
import stat
import sys
import time
import unicodedata
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
CONTEXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/context"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
MESSAGE_TYPE_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/message_type"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTRUCTOR = f"{MEMBERSHIP}#Instructor"
TEACHING_ASSISTANT = {f"{MEMBERSHIP}#TeachingAssistant", f"{MEMBERSHIP}/Instructor#TeachingAssistant"}
LEARNER = {f"{MEMBERSHIP}#Learner", f"{MEMBERSHIP}/Learner#Learner"}
ACCOUNT = re.compile(r"[a-z_][a-z0-9_.-]{0,31}")  # hub/roster.py's account names (useradd's rules)

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # the hub's folder is no package: its files import each other from beside them
    sys.path.insert(0, HERE)
import deep_linking  # noqa: E402
import lti_accounts  # noqa: E402
import roster  # noqa: E402


class LaunchRefused(ValueError):
    """The launch is genuine but cannot log anyone in here; the message says why, for the user."""


@dataclass(frozen=True)
class Membership:
    course: str  # the roster's course id
    role: str  # instructors, tas or students
    groups: tuple[str, ...]


def account_name(value: str) -> str:
    """A safe account name for a claim's value: the value itself if it already is one, in lower case
    (so a login name the roster uses stays the same), else its letters and digits with a short hash of the whole
    value, so that two values never share an account (``Alice@Example.edu`` → ``alice-example.edu-dd36b1bc``)."""
    if not isinstance(value, str) or not value.strip():
        raise LaunchRefused("the launch names no user")
    if ACCOUNT.fullmatch(value.lower()):
        return value.lower()  # JupyterHub's user names ignore case
    digest = hashlib.sha256(value.encode()).hexdigest()[:8]
    ascii_value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    base = re.sub(r"[^a-z0-9_.-]+", "-", ascii_value.lower()).strip("-.")
    if not base or not re.match(r"[a-z_]", base):
        base = "u-" + base
    return f"{base[:23].rstrip('-.')}-{digest}"


def username(claims: Mapping, claim: str = "sub") -> str:
    """The account name from ``claim`` (``sub``, ``email``, or ``<claim>#<key>`` for a key inside one)."""
    name, _, key = claim.partition("#")
    value = claims.get(name)
    if key:
        value = value.get(key) if isinstance(value, Mapping) else None
    if not value:
        raise LaunchRefused(f"the launch has no {claim!r} claim to name the user by (AUTOGRADER_LTI_USERNAME_CLAIM)")
    return account_name(str(value))


def course_role(roles: Sequence[str]) -> str | None:
    """The course role of a launch's roles: a teaching assistant (an Instructor with the TA sub-role
    counts as a TA, the smaller of the two) before an instructor before a learner."""
    roles = set(roles or ())
    if roles & TEACHING_ASSISTANT:
        return "tas"
    if INSTRUCTOR in roles:
        return "instructors"
    if roles & LEARNER:
        return "students"
    return None


def membership(claims: Mapping, courses: Sequence) -> Membership:
    """The course and groups of an LTI 1.3 launch (its decoded, checked id_token claims), given the
    roster's courses (hub/roster.py's ``Course``: ``id``, ``lti_context``, ``groups()``).  The groups
    are the roster's own for that role, e.g. ``students-<id>`` and ``nbgrader-<id>`` for a Learner.
    Raises ``LaunchRefused`` for an LMS course no roster course names, or a role the course lacks."""
    context = claims.get(CONTEXT_CLAIM) or {}
    context_id = context.get("id") if isinstance(context, Mapping) else None
    by_context = {course.lti_context: course for course in courses if course.lti_context}
    if not context_id:
        raise LaunchRefused("the launch names no LMS course (no context claim): launch the tool from a course")
    if context_id not in by_context:
        title = context.get("title") or context.get("label") or ""
        raise LaunchRefused(f"the LMS course {title + ' ' if title else ''}(context id {context_id!r}) is not a course "
                            f'of this hub: its roster needs lti_context = "{context_id}" in that course')  # fmt: skip
    course = by_context[context_id]
    role = course_role(claims.get(ROLES_CLAIM) or [])
    if role is None:
        raise LaunchRefused(f"course {course.id} takes instructors, teaching assistants and learners; the launch's "
                            f"roles are {', '.join(claims.get(ROLES_CLAIM) or []) or 'none'}")  # fmt: skip
    # The roster's own answer to "which groups is one person of this role in?"
    alone = replace(course, **{"instructors": (), "tas": (), "students": (), role: ("someone",)})
    groups = tuple(name for name, members in alone.groups().items() if members)
    return Membership(course.id, role, groups)


class UsedLaunches:
    """The nonces of launches already used, until their id_token could no longer be accepted anyway:
    ltiauthenticator checks the nonce against a cookie, which a copied request carries along."""

    def __init__(self, keep_seconds: float = 3600):
        self.keep_seconds = keep_seconds
        self.seen: dict[str, float] = {}

    def first_use(self, claims: Mapping) -> bool:
        now = time.time()
        self.seen = {nonce: until for nonce, until in self.seen.items() if until > now}
        key = f"{claims.get('iss')} {claims.get('nonce')}"
        if key in self.seen:
            return False
        self.seen[key] = max(float(claims.get("exp") or 0), now) + self.keep_seconds
        return True


def check_deployment(claims: Mapping, deployments: frozenset[str]) -> None:
    """Refuse a launch from a deployment (an install of the tool in the LMS) the hub was not given."""
    deployment = claims.get(DEPLOYMENT_CLAIM)
    if not isinstance(deployment, str) or deployment not in deployments:
        raise LaunchRefused(f"this launch came from deployment {deployment!r} of the LMS, which this hub does "
                            "not take: an admin adds it to AUTOGRADER_LTI_DEPLOYMENT_ID if that install is "
                            "theirs")  # fmt: skip


@dataclass
class Platform:
    """What the hub knows of the LMS and of its own courses, from its settings (``configure``)."""

    issuer: str
    deployments: frozenset[str]
    token_url: str = ""
    jwks_url: str = ""
    claim: str = "sub"
    create_accounts: bool = False
    records: str = ""
    graders: dict[str, str] = field(default_factory=dict)  # course id -> its grader account
    reserved: frozenset[str] = frozenset()  # the hub's own accounts and services: never an LMS user's

    def check_account(self, name: str, sub: str, courses: Sequence) -> None:
        """Refuse a launch whose account would be one it must not be: the hub's own (a grader, a
        service, root), a system account, an account made for someone outside the LMS (with
        accounts made at launch: not in lti_accounts.LMS_GROUP), or one another LMS user launched as."""
        if name in self.reserved:
            raise LaunchRefused(f"the account name {name!r} is one of this hub's own: an admin names LMS users "
                                "by another claim (AUTOGRADER_LTI_USERNAME_CLAIM=sub)")  # fmt: skip
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            entry = None
        if entry is not None and entry.pw_uid < lti_accounts.uid_min():
            raise LaunchRefused(f"the account name {name!r} is a system account of this machine: an admin names LMS "
                                "users by another claim (AUTOGRADER_LTI_USERNAME_CLAIM=sub)")  # fmt: skip
        if entry is not None and self.create_accounts and not lti_accounts.in_group(name, lti_accounts.LMS_GROUP):
            group = lti_accounts.LMS_GROUP
            raise LaunchRefused(f"an account {name!r} exists on this machine and was not made for an LMS user: "
                                f"an admin who means it for this one adds it to the group {group}")  # fmt: skip
        for course in courses:
            known = self.people(course.id).get(name, {}).get("sub")
            if known and known != sub:
                raise LaunchRefused(f"the account {name!r} belongs to another LMS user: an admin looks at the LMS "
                                    "records (AUTOGRADER_LMS_RECORDS) and the hub's log")  # fmt: skip

    def people(self, course: str) -> dict:
        """The people of a course's LMS record (none if it has none yet, or cannot be read)."""
        from autograder.grading.lms_record import LmsRecordError, RecordFolder

        try:
            record = RecordFolder(os.path.join(self.records, course)).load() if self.records else None
        except (LmsRecordError, OSError):
            return {}
        return (record or {}).get("people", {})

    def record_group(self, course: str) -> int | None:
        """The group that may read the course's record: its grader account's (as root only)."""
        if os.geteuid() != 0:
            return None
        try:
            return pwd.getpwnam(self.graders.get(course, "")).pw_gid
        except KeyError:
            return None

    def keep(self, claims: Mapping, course: str, account: str, role: str) -> None:
        """Add what the launch tells to the course's LMS record (autograder/grading/lms_record.py)."""
        from autograder.grading.lms_record import RecordFolder, record_launch

        audience = claims.get("aud")
        client_id = audience if isinstance(audience, str) else claims.get("azp") or (audience or [""])[0]
        platform = {"issuer": self.issuer, "client_id": str(client_id),
                    "deployment_id": str(claims.get(DEPLOYMENT_CLAIM)), "auth_token_url": self.token_url,
                    "key_set_url": self.jwks_url}  # fmt: skip
        folder = RecordFolder(os.path.join(self.records, course))
        now = datetime.datetime.now(datetime.timezone.utc).isoformat()
        record = record_launch(folder.load(), course=course, account=account, role=role, claims=claims,
                               platform=platform, now=now)  # fmt: skip
        folder.save(record, group_id=self.record_group(course))


def post_auth_hook(courses: Sequence, platform: Platform, used: UsedLaunches):
    """The Authenticator.post_auth_hook: the account name, course groups and admin flag of a launch
    that ltiauthenticator accepted, or a 403 that says why it cannot log in here.  On the way it makes
    the user's system account (if asked to), keeps the launch in the course's LMS record, and marks a
    deep-linking launch on the handler, which then answers with the lesson chooser (hub/lti_web.py)."""
    from tornado.web import HTTPError

    async def hook(authenticator, handler, authentication: dict) -> dict:
        claims = authentication.get("auth_state") or {}
        try:
            if not used.first_use(claims):
                raise LaunchRefused("this launch was already used: launch the tool again from the LMS")
            check_deployment(claims, platform.deployments)
            name = username(claims, platform.claim)
            member = membership(claims, courses)
            platform.check_account(name, str(claims.get("sub") or ""), courses)
            linking = None
            if claims.get(MESSAGE_TYPE_CLAIM) == deep_linking.REQUEST_TYPE:
                if member.role == "students":
                    raise LaunchRefused(f"only the instructors and teaching assistants of {member.course} add lessons")
                linking = deep_linking.DeepLinkingRequest.from_claims(claims, member.course)
        except (LaunchRefused, deep_linking.DeepLinkingRefused) as refused:
            authenticator.log.warning("LTI 1.3 launch refused: %s", refused)
            raise HTTPError(403, str(refused)) from None
        if name in authenticator.blocked_users:
            raise HTTPError(403, f"{name} may not log in to this hub")
        if platform.create_accounts:
            try:
                if await lti_accounts.ensure_account(name, claims.get("name")):
                    authenticator.log.info("LTI 1.3 launch: made the system account %s", name)
                # staff read the course folder through its instructors' group; a learner, even one who
                # was staff at an earlier launch, is not in it (their server would read the solutions)
                await lti_accounts.set_group(name, f"instructors-{member.course}", member.role != "students")
            except lti_accounts.AccountError as error:
                authenticator.log.error("LTI 1.3 launch: %s", error)
                raise HTTPError(500, f"the hub could not make the account {name}: its log says why") from None
        try:
            platform.keep(claims, member.course, name, member.role)
        except Exception:  # the login goes on: a record not kept costs a publish, not the lesson
            authenticator.log.exception("LTI 1.3 launch: the LMS record of course %s was not kept", member.course)
        if linking is not None and handler is not None:
            handler.deep_linking = linking
        authenticator.log.info("LTI 1.3 launch: %s is one of course %s's %s", name, member.course, member.role)
        # The hub sets a user's groups to the ones returned here: keep those of their other courses
        # (a student of two courses launches from one at a time), and replace this course's.
        this_course = set(next(c for c in courses if c.id == member.course).groups())
        user = handler.find_user(name) if handler is not None else None
        kept = [group.name for group in user.groups if group.name not in this_course] if user is not None else []
        return {
            **authentication,
            "name": name,
            "groups": sorted({*kept, *member.groups}),
            # As with PAM (hub/jupyterhub_config.py), a lone course's instructors are the hub's admins;
            # with several courses nobody is (an admin may open every course's formgrader).
            "admin": (member.role == "instructors" and len(courses) == 1) or name in authenticator.admin_users,
        }

    return hook


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def prepare_records(platform: Platform, courses: Sequence) -> None:
    """Each LTI course's record folder, and its tool key, before the first launch: the key set URL
    answers at once, so the LMS can be registered before anyone launches.  The top folder can be
    passed through by the graders, not listed; a course's folder is its grader's group's to read."""
    from autograder.grading.lms_record import RecordFolder

    missing, folder = [], platform.records
    while not os.path.lexists(folder):  # made here: passable by the graders whatever the hub's umask
        missing.append(folder)
        folder = os.path.dirname(folder)
    os.makedirs(platform.records, mode=0o711, exist_ok=True)
    for folder in missing:
        os.chmod(folder, 0o711)
    top = os.lstat(platform.records)
    if stat.S_ISLNK(top.st_mode) or top.st_uid != os.geteuid():
        raise ValueError(f"AUTOGRADER_LMS_RECORDS: {platform.records} must be a folder of the hub's own account")
    os.chmod(platform.records, 0o711)
    for course in courses:
        if not course.lti_context:
            continue
        folder = os.path.join(platform.records, course.id)
        os.makedirs(folder, mode=0o750, exist_ok=True)
        group = platform.record_group(course.id)
        if group is not None:
            sharing = [p.pw_name for p in pwd.getpwall() if p.pw_gid == group and p.pw_name != course.grader]
            if sharing:
                raise ValueError(f"course {course.id}: its grader account {course.grader}'s group is also the group "
                                 f"of {', '.join(sharing[:3])}, who would read its LMS record and tool key: give "
                                 f"{course.grader} a group of its own (groupadd, usermod --gid)")  # fmt: skip
            os.chown(folder, 0, group)
        os.chmod(folder, 0o750)
        record = RecordFolder(folder)
        record.private_key(create=True, group_id=group)
        for path in (record.key_path, record.record_path):  # as the grader account is now, not as it was
            if group is not None and os.path.isfile(path) and not os.path.islink(path):
                os.chown(path, 0, group)
                os.chmod(path, 0o640)


@dataclass(frozen=True)
class Setup:
    """What the rest of the hub's configuration needs from the LTI login."""

    environment: dict  # for every server the hub starts (the frame ancestors)
    records: str  # the folder of the courses' LMS records: each course's is records/<course id>


def configure(c, settings: Mapping[str, str], courses: Sequence | None = None, state: str | None = None) -> Setup:
    """Log in through LTI 1.3 with hub/jupyterhub_config.py's ``c``: the platform from ``settings``
    (the environment), the courses from the roster (``courses``, or AUTOGRADER_ROSTER's).  The LMS
    decides who may log in (any launch from a roster course's LMS course, from a deployment the
    settings name), and each login sets the user's groups."""
    import lti_web

    from autograder.settings import LTI, LTI_REQUIRED, SETTINGS, renamed

    # The deprecated AUTOGRAD_* names still count; every value is checked before any is used.
    settings = SETTINGS.read(renamed(settings), only=[*(s.name for s in LTI), "roster", "spawner"])
    missing = [SETTINGS[name].env for name in LTI_REQUIRED if not settings[name].value]
    if missing:
        raise ValueError(f"AUTOGRADER_AUTH=lti13 needs {', '.join(missing)} (the platform's settings; see hub/lti.py)")
    if courses is None:
        courses = roster.load(settings.roster or os.path.join(HERE, "roster.toml"), lms=True)
    if not any(course.lti_context for course in courses):
        raise ValueError('AUTOGRADER_AUTH=lti13: no course of the roster has lti_context = "<the LMS course\'s id>"')
    local = settings.spawner in ("cgroup", "local", "systemd")
    create = settings.lti_create_accounts
    create = local and os.geteuid() == 0 if create is None else create
    if create and os.geteuid() != 0:
        raise ValueError("AUTOGRADER_LTI_CREATE_ACCOUNTS=1 needs the hub to run as root (it runs useradd)")
    platform = Platform(
        issuer=settings.lti_issuer,
        deployments=frozenset(d.strip() for d in settings.lti_deployment_id.split(",") if d.strip()),
        token_url=settings.lti_token_url, jwks_url=settings.lti_jwks_url,
        claim=settings.lti_username_claim, create_accounts=create,
        records=os.path.abspath(settings.lms_records or os.path.join(state or HERE, "lms")),
        graders={course.id: course.grader for course in courses},
        reserved=frozenset({"root", "ngshare", *(c.grader for c in courses), *(c.service for c in courses)}),
    )  # fmt: skip
    prepare_records(platform, courses)
    if create:
        lti_accounts.make_lms_group()

    c.JupyterHub.authenticator_class = lti_web.CourseLTI13Authenticator
    c.LTI13Authenticator.issuer = platform.issuer
    c.LTI13Authenticator.client_id = {i.strip() for i in settings.lti_client_id.split(",") if i.strip()}
    c.LTI13Authenticator.authorize_url = settings.lti_authorize_url
    c.LTI13Authenticator.jwks_endpoint = settings.lti_jwks_url
    c.CourseLTI13Authenticator.course_roots = {course.id: course.root for course in courses if course.lti_context}
    c.CourseLTI13Authenticator.lms_records = platform.records
    # ltiauthenticator names the user by a top-level claim (a nested one would give it a dict);
    # the hook below gives the account its name from ``claim`` in any case.
    c.LTI13Authenticator.username_key = "sub" if "#" in platform.claim else platform.claim
    scheme = settings.lti_uri_scheme
    if scheme:
        c.LTI13Authenticator.uri_scheme = scheme
    # The LMS says who takes part: the roster's account lists are PAM's, not the LMS's, and its
    # names make nobody an admin here (a lone course's instructors become admins as they launch).
    c.Authenticator.allow_all = True
    c.Authenticator.allowed_users = set()
    c.Authenticator.admin_users = set()
    # Groups come from each launch (JupyterHub forbids load_groups then; load_roles' groups remain).
    c.Authenticator.manage_groups = True
    c.JupyterHub.load_groups = {}
    c.Authenticator.post_auth_hook = post_auth_hook(courses, platform, UsedLaunches())
    return Setup(frame_settings(c, settings, scheme), platform.records)


def frame_settings(c, settings, scheme: str) -> dict:
    """Inside the LMS's page: the hub's cookies (and, through the spawner, every server's) are
    third-party cookies there, kept by current browsers only as ``SameSite=None; Secure;
    Partitioned`` (autograder/lms_frame.py), and browsers show a page in another site's frame
    only if its Content-Security-Policy names that site as a frame ancestor.  Returns the environment
    the servers read (hub/etc/jupyter/jupyter_server_config.py sets their header from it)."""
    in_frame = settings.lti_in_frame
    if not (scheme == "https" if in_frame is None else in_frame):
        return {}
    if scheme == "http":
        raise ValueError("AUTOGRADER_LTI_IN_FRAME=1 needs the hub on https: its cookies are then Secure, which a "
                         "browser drops from an http site (AUTOGRADER_LTI_URI_SCHEME is http)")  # fmt: skip
    given = settings.lti_frame_ancestors.replace(",", " ").split()
    origins = given or sorted({o for o in (_origin(settings.lti_issuer), _origin(settings.lti_authorize_url)) if o})
    from autograder.lms_frame import FRAME_COOKIES, allow_partitioned_cookies, frame_ancestors

    # the servers check it again the same way, from their environment
    ancestors = frame_ancestors(" ".join(["'self'", *origins]), "AUTOGRADER_LTI_FRAME_ANCESTORS")
    allow_partitioned_cookies()
    policy = f"frame-ancestors {ancestors}"
    # (an unset Dict setting is a LazyConfigValue: ``update`` merges these keys in when the hub loads)
    c.JupyterHub.tornado_settings.update({"cookie_options": dict(FRAME_COOKIES),
                                          "headers": {"Content-Security-Policy": policy}})  # fmt: skip
    return {"AUTOGRADER_FRAME_ANCESTORS": ancestors}
