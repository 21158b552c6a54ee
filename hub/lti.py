"""LTI 1.3 logins: students and staff come from the LMS (Canvas, Moodle, ...) instead of PAM.

The login itself is jupyterhub-ltiauthenticator's ``LTI13Authenticator`` (the OpenID Connect
third-party initiated login, the id_token's signature against the platform's JWKS, its issuer,
audience, expiry and nonce).  This module adds what the course needs on top, after that check:

* which course of the roster the launch belongs to: the launch's context claim (the LMS course)
  must be a course's ``lti_context`` in the roster (hub/roster.py); any other is refused;
* which groups the user is in there, from the launch's roles: Instructor → the course's
  instructors (and its formgrader), TeachingAssistant → its TAs (and its formgrader), Learner →
  its students; a launch with none of these roles is refused;
* the account name, from a configurable claim, made safe (hub/roster.py's account names);
* a launch is used once: the same id_token posted again is refused, even with its cookies.

Settings (environment variables, read by ``configure`` when the hub starts; AUTOGRADER_AUTH=lti13):

``AUTOGRADER_LTI_ISSUER``         the platform's issuer, e.g. https://canvas.instructure.com
``AUTOGRADER_LTI_CLIENT_ID``      the client id the platform gave the tool (several: comma-separated)
``AUTOGRADER_LTI_AUTHORIZE_URL``  the platform's OIDC authorization endpoint
``AUTOGRADER_LTI_JWKS_URL``       the platform's public keys (JWKS)
``AUTOGRADER_LTI_USERNAME_CLAIM`` the claim that names the user (default ``sub``); ``email``, or a key
                                inside a claim after ``#``, e.g. Moodle's login name
                                ``https://purl.imsglobal.org/spec/lti/claim/ext#user_username``
``AUTOGRADER_LTI_URI_SCHEME``     https or http for the hub's own URLs (default: as the request came)

Importing this module changes nothing; ``configure`` does.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

ROLES_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/roles"
CONTEXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/context"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
INSTRUCTOR = f"{MEMBERSHIP}#Instructor"
TEACHING_ASSISTANT = {f"{MEMBERSHIP}#TeachingAssistant", f"{MEMBERSHIP}/Instructor#TeachingAssistant"}
LEARNER = {f"{MEMBERSHIP}#Learner", f"{MEMBERSHIP}/Learner#Learner"}
ACCOUNT = re.compile(r"[a-z_][a-z0-9_.-]{0,31}")  # hub/roster.py's account names (useradd's rules)

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:  # the hub's folder is no package: its files import each other from beside them
    sys.path.insert(0, HERE)
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


def post_auth_hook(courses: Sequence, claim: str, used: UsedLaunches):
    """The Authenticator.post_auth_hook: the account name, course groups and admin flag of a launch
    that ltiauthenticator accepted, or a 403 that says why it cannot log in here."""
    from tornado.web import HTTPError

    def hook(authenticator, handler, authentication: dict) -> dict:
        claims = authentication.get("auth_state") or {}
        try:
            if not used.first_use(claims):
                raise LaunchRefused("this launch was already used: launch the tool again from the LMS")
            name = username(claims, claim)
            member = membership(claims, courses)
        except LaunchRefused as refused:
            authenticator.log.warning("LTI 1.3 launch refused: %s", refused)
            raise HTTPError(403, str(refused)) from None
        if name in authenticator.blocked_users:
            raise HTTPError(403, f"{name} may not log in to this hub")
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


def configure(c, settings: Mapping[str, str]) -> None:
    """Log in through LTI 1.3 with hub/jupyterhub_config.py's ``c``: the platform from ``settings``
    (the environment), the courses from the roster (AUTOGRADER_ROSTER).  The LMS decides who may log
    in (any launch from a roster course's LMS course), and each login sets the user's groups."""
    from autograder.settings import renamed

    settings = renamed(settings)  # the deprecated AUTOGRAD_* names still count
    missing = [name for name in ("AUTOGRADER_LTI_ISSUER", "AUTOGRADER_LTI_CLIENT_ID", "AUTOGRADER_LTI_AUTHORIZE_URL",
                                 "AUTOGRADER_LTI_JWKS_URL") if not settings.get(name)]  # fmt: skip
    if missing:
        raise ValueError(f"AUTOGRADER_AUTH=lti13 needs {', '.join(missing)} (the platform's settings; see hub/lti.py)")
    courses = roster.load(settings.get("AUTOGRADER_ROSTER", os.path.join(HERE, "roster.toml")))
    if not any(course.lti_context for course in courses):
        raise ValueError('AUTOGRADER_AUTH=lti13: no course of the roster has lti_context = "<the LMS course\'s id>"')
    claim = settings.get("AUTOGRADER_LTI_USERNAME_CLAIM", "sub")

    c.JupyterHub.authenticator_class = "ltiauthenticator.lti13.auth.LTI13Authenticator"
    c.LTI13Authenticator.issuer = settings["AUTOGRADER_LTI_ISSUER"]
    c.LTI13Authenticator.client_id = {i.strip() for i in settings["AUTOGRADER_LTI_CLIENT_ID"].split(",") if i.strip()}
    c.LTI13Authenticator.authorize_url = settings["AUTOGRADER_LTI_AUTHORIZE_URL"]
    c.LTI13Authenticator.jwks_endpoint = settings["AUTOGRADER_LTI_JWKS_URL"]
    # ltiauthenticator names the user by a top-level claim (a nested one would give it a dict);
    # the hook below gives the account its name from ``claim`` in any case.
    c.LTI13Authenticator.username_key = "sub" if "#" in claim else claim
    if settings.get("AUTOGRADER_LTI_URI_SCHEME"):
        c.LTI13Authenticator.uri_scheme = settings["AUTOGRADER_LTI_URI_SCHEME"]
    # The LMS says who takes part: the roster's account lists are PAM's, not the LMS's.
    c.Authenticator.allow_all = True
    c.Authenticator.allowed_users = set()
    # Groups come from each launch (JupyterHub forbids load_groups then; load_roles' groups remain).
    c.Authenticator.manage_groups = True
    c.JupyterHub.load_groups = {}
    c.Authenticator.post_auth_hook = post_auth_hook(courses, claim, UsedLaunches())
