"""The LMS record: what the LTI 1.3 launches of one course told the hub, so that ``publish``, the
Canvas and Moodle exports and ``grade`` need no table copied by hand.

Under ``AUTOGRADER_AUTH=lti13`` the hub (root) keeps, per course, a folder of its own,
``<records>/<course id>/`` (records = ``AUTOGRADER_LMS_RECORDS``, default ``<hub state folder>/lms``),
mode 0750 root:<the course grader account's primary group>; the grading service finds it in
``AUTOGRADER_LMS_RECORD``.  Two files there, written only by the hub, atomically (a temporary file
made with O_EXCL|O_NOFOLLOW in the same folder, then ``os.replace``), mode 0640, the same group: the
grader reads them and cannot write them.

``lms.json``, the record (``record_launch`` makes the next one from each accepted launch)::

    {"version": 1,
     "course": "autograd-course",
     "platform": {"issuer": "https://canvas.instructure.com", "client_id": "10000000000042",
                  "deployment_id": "42:8865aa05...", "auth_token_url": "https://sso.canvaslms.com/login/oauth2/token",
                  "key_set_url": "https://sso.canvaslms.com/api/lti/security/jwks"},
     "context": {"id": "4dde05e8ca1973bcca9bffc13e1548820eee93a3", "title": "Autograd", "label": "AG101"},
     "ags": {"lineitems": "https://canvas.example.edu/api/lti/courses/7/line_items",
             "scope": ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
                       "https://purl.imsglobal.org/spec/lti-ags/scope/score"]},
     "people": {"<hub account name = nbgrader student id>":
                  {"sub": "535fa085-...", "name": "Ada Lovelace", "given_name": "Ada", "family_name": "Lovelace",
                   "email": "ada@example.edu", "role": "students", "last_launch": "2026-12-05T07:30:00+00:00"}},
     "links": {"<resource_link id>": {"title": "Lesson 1", "assignment": "lesson1_requires_grad" or null,
                                     "lineitem": "https://.../line_items/31" or null}}}

Where each value comes from:

* ``platform``: the hub's settings (issuer, client id, token and key set URLs) and the launch's
  ``deployment_id`` (already checked by the hub) and client id (``aud``, or ``azp`` when ``aud`` is
  a list), which win over the settings';
* ``context``: the claim ``.../lti/claim/context`` (``id``, ``title``, ``label``);
* ``ags``: the claim ``.../lti-ags/claim/endpoint`` (``lineitems``, ``scope``); a launch without it
  leaves ``ags`` as it was (the LMS sends it only when the tool's AGS services are on);
* ``people``: ``sub``, ``name``, ``given_name``, ``family_name``, ``email`` (Moodle and Canvas send
  the last four only with the privacy settings that share them: what an earlier launch gave is kept
  when a later one omits it), and, when the LMS sends them, ``username`` (Moodle's login name, the
  claim ``.../lti/claim/ext`` key ``user_username``) and ``sis_id`` (the claim ``.../lti/claim/lis``
  key ``person_sourcedid``, Canvas's SIS user id); ``role`` (instructors, tas, students) and
  ``last_launch`` are the hub's;
* ``links``: the claim ``.../lti/claim/resource_link`` (``id``, ``title``), the custom claim's
  ``assignment`` when it is one of the course's assignment ids (``ASSIGNMENTS``), and the AGS
  claim's ``lineitem``.

The claims were signed by the LMS, but an LMS passes on what its users typed (a name, an email):
only strings of sane length without control characters are kept (URLs up to ``MAX_URL``, other
text up to ``MAX_TEXT``), lists of such strings for ``scope``; anything else is dropped, never
raised on.

``tool_key.pem``: the course's tool RSA private key (2048 bits, PKCS8 PEM), made by the hub the
first time it is needed.  Its public half is what the LMS knows the tool by (the hub serves every
course's at ``/hub/lti13/jwks``; ``publish --jwks`` prints the same JWK), with kid = its RFC 7638
thumbprint, as pylti1p3's ``Registration`` computes it for ``publish``'s client assertions.
"""

from __future__ import annotations

import datetime
import json
import os
import stat
from collections.abc import Mapping

from ..i18n import EDITION_SUFFIXES
from ..settings import SETTINGS

RECORD_NAME = "lms.json"
KEY_NAME = "tool_key.pem"
ENVIRONMENT = "AUTOGRADER_LMS_RECORD"  # this course's record folder, in the grading service's environment
VERSION = 1
# The course's assignment ids (COURSE_CONTRACT.md: one per lesson, fixed), then each lesson's editions
# in other languages (``lesson3_zeroing_grad_pt_br``: graded, linked and published like the English one).
LESSONS = ("lesson1_requires_grad", "lesson2_backward", "lesson3_zeroing_grad", "lesson4_no_grad")
ASSIGNMENTS = LESSONS + tuple(lesson + suffix for suffix in EDITION_SUFFIXES.values() for lesson in LESSONS)
ROLES = ("instructors", "tas", "students")

CONTEXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/context"
DEPLOYMENT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
LINK_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/resource_link"
CUSTOM_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/custom"
EXT_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/ext"
LIS_CLAIM = "https://purl.imsglobal.org/spec/lti/claim/lis"

MAX_TEXT = 256  # a name, an email, an id: longer is not a person's
MAX_URL = 2048
MAX_SCOPES = 32
MAX_BYTES = 32 * 1024 * 1024  # a record larger than this is not one
PLATFORM_KEYS = ("issuer", "client_id", "deployment_id", "auth_token_url", "key_set_url")
PERSON_KEYS = ("sub", "name", "given_name", "family_name", "email", "username", "sis_id")
URL_KEYS = {"auth_token_url", "key_set_url", "lineitems", "lineitem"}


class LmsRecordError(Exception):
    """The record folder or one of its files cannot be used; the message names the path and why."""


# -- the record, from a launch -----------------------------------------------------------------
def clean(value, limit: int = MAX_TEXT) -> str | None:
    """``value`` if it is a non-empty string of at most ``limit`` characters without control
    characters, else None (an odd claim is dropped, never raised on)."""
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        return None
    if any(ord(c) < 32 or 127 <= ord(c) < 160 or c in "\u2028\u2029" for c in value):
        return None
    return value.strip()


def _url(value) -> str | None:
    value = clean(value, MAX_URL)
    return value if value and value.startswith(("https://", "http://")) else None


def _scopes(value) -> list[str] | None:
    if not isinstance(value, list) or len(value) > MAX_SCOPES:
        return None
    kept = [clean(s, MAX_URL) for s in value]
    return [s for s in kept if s] if all(kept) else None


def _mapping(value) -> Mapping:
    return value if isinstance(value, Mapping) else {}


def _kept(old: Mapping, new: dict) -> dict:
    """``old`` with the values ``new`` has (a None in ``new`` keeps the old value)."""
    return {**old, **{k: v for k, v in new.items() if v is not None}}


def _client_id(claims: Mapping) -> str | None:
    aud = claims.get("aud")
    return clean(aud) if isinstance(aud, str) else clean(claims.get("azp"))


def _stamp(now) -> str:
    if isinstance(now, datetime.datetime):
        now = now if now.tzinfo else now.replace(tzinfo=datetime.timezone.utc)
        return now.isoformat(timespec="seconds")
    return clean(now) or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def record_launch(record: dict | None, *, course: str, account: str, role: str, claims: Mapping,
                  platform: Mapping, now) -> dict:  # fmt: skip
    """The record after one accepted launch of ``account`` (hub user name = nbgrader student id) as
    ``role`` in ``course``: ``record`` (None: none yet) is not changed.  ``platform`` holds the hub's
    settings (``PLATFORM_KEYS``); ``now`` is the launch's time (a datetime)."""
    old, claims = record or {}, _mapping(claims)
    new = {"version": VERSION, "course": course}
    platform_values = {k: (_url if k in URL_KEYS else clean)(platform.get(k)) for k in PLATFORM_KEYS}
    platform_values["deployment_id"] = clean(claims.get(DEPLOYMENT_CLAIM)) or platform_values["deployment_id"]
    platform_values["client_id"] = _client_id(claims) or platform_values["client_id"]
    platform_values["issuer"] = platform_values["issuer"] or clean(claims.get("iss"), MAX_URL)
    new["platform"] = _kept(_mapping(old.get("platform")), platform_values)
    context = _mapping(claims.get(CONTEXT_CLAIM))
    new["context"] = _kept(_mapping(old.get("context")), {k: clean(context.get(k)) for k in ("id", "title", "label")})

    ags_claim = claims.get(AGS_CLAIM)
    ags = dict(_mapping(old.get("ags")))
    if isinstance(ags_claim, Mapping):  # a launch without the claim leaves ags as it was
        ags = _kept(ags, {"lineitems": _url(ags_claim.get("lineitems")), "scope": _scopes(ags_claim.get("scope"))})
    new["ags"] = ags

    people = {name: dict(person) for name, person in _mapping(old.get("people")).items()}
    ext, lis = _mapping(claims.get(EXT_CLAIM)), _mapping(claims.get(LIS_CLAIM))
    person = {k: clean(claims.get(k)) for k in PERSON_KEYS[:5]}
    if person["email"] and "@" not in person["email"]:
        person["email"] = None
    person |= {"username": clean(ext.get("user_username")), "sis_id": clean(lis.get("person_sourcedid"))}
    person |= {"role": role if role in ROLES else None, "last_launch": _stamp(now)}
    people[account] = _kept(people.get(account, {}), person)
    new["people"] = people

    links = {key: dict(link) for key, link in _mapping(old.get("links")).items()}
    link_claim = _mapping(claims.get(LINK_CLAIM))
    link_id = clean(link_claim.get("id"))
    if link_id:
        assignment = _mapping(claims.get(CUSTOM_CLAIM)).get("assignment")
        lineitem = _url(ags_claim.get("lineitem")) if isinstance(ags_claim, Mapping) else None
        link = {"title": clean(link_claim.get("title")),
                "assignment": assignment if assignment in ASSIGNMENTS else None, "lineitem": lineitem}  # fmt: skip
        earlier = links.get(link_id, {"title": None, "assignment": None, "lineitem": None})
        links[link_id] = _kept(earlier, link)
    new["links"] = links
    return new


# -- the record, read back ---------------------------------------------------------------------
def _text_map(value, what: str, nullable: bool = False) -> str | None:
    """Why ``value`` is not a mapping of strings (or None), or None if it is one."""
    if not isinstance(value, dict):
        return f"{what} is not an object"
    for key, item in value.items():
        if not (isinstance(item, str) or (nullable and item is None) or (key == "scope" and _is_scope(item))):
            return f"{what}.{key} is not a string"
    return None


def _is_scope(value) -> bool:
    return isinstance(value, list) and all(isinstance(s, str) for s in value)


def check(record, path: str = RECORD_NAME) -> dict:
    """``record`` if it is the format of this module's docstring, else LmsRecordError saying why."""
    why = None
    if not isinstance(record, dict):
        why = "not a JSON object"
    elif record.get("version") != VERSION:
        why = f"version {record.get('version')!r}, not {VERSION}"
    elif not isinstance(record.get("course"), str):
        why = "no course id"
    else:
        why = (_text_map(record.get("platform", {}), "platform") or _text_map(record.get("context", {}), "context")
               or _text_map(record.get("ags", {}), "ags"))  # fmt: skip
        for group in ("people", "links"):
            items = record.get(group, {})
            if why is None and not isinstance(items, dict):
                why = f"{group} is not an object"
            for key, item in items.items() if why is None else ():
                why = why or _text_map(item, f"{group}[{key!r}]", nullable=group == "links")
    if why:
        raise LmsRecordError(f"{path}: not an LMS record ({why})")
    return record


def person_of(record: Mapping | None, student: str) -> dict:
    """What the record knows of ``student`` (an nbgrader student id = hub account), or {}."""
    return dict(((record or {}).get("people") or {}).get(student) or {})


# -- the folder --------------------------------------------------------------------------------
class RecordFolder:
    """One course's record folder: ``lms.json`` and ``tool_key.pem``, written by the hub only."""

    def __init__(self, path: str) -> None:
        self.path = os.path.abspath(path)

    @classmethod
    def of_course(cls, given: str | None = None) -> RecordFolder | None:
        """The folder given (``--record``), else ``AUTOGRADER_LMS_RECORD``'s, else None."""
        path = given or SETTINGS.value("lms_record")
        return cls(path) if path else None

    @property
    def record_path(self) -> str:
        return os.path.join(self.path, RECORD_NAME)

    @property
    def key_path(self) -> str:
        return os.path.join(self.path, KEY_NAME)

    # reading: the grader, or the hub
    def _read(self, name: str) -> bytes | None:
        path = os.path.join(self.path, name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise LmsRecordError(f"cannot read {path}: {error.strerror}") from None
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise LmsRecordError(f"{path} is not a regular file")
            data = f.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise LmsRecordError(f"{path}: larger than {MAX_BYTES} bytes, not an LMS record")
        return data

    def load(self) -> dict | None:
        """The record, None if there is none yet; LmsRecordError if the file is not one."""
        data = self._read(RECORD_NAME)
        if data is None:
            return None
        try:
            record = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise LmsRecordError(f"{self.record_path}: not an LMS record (not JSON: {error})") from None
        return check(record, self.record_path)

    # writing: the hub only
    def _folder(self, group_id: int | None) -> int:
        """The folder, opened (made 0750 if missing); refused if it is a link or not ours."""
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        try:
            os.mkdir(self.path, 0o750)
        except FileExistsError:
            pass
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError as error:  # ELOOP: a symbolic link; ENOTDIR: a file
            raise LmsRecordError(f"refusing the record folder {self.path}: {error.strerror}") from None
        info = os.fstat(fd)
        if info.st_uid != os.geteuid():
            os.close(fd)
            raise LmsRecordError(f"refusing the record folder {self.path}: owned by uid {info.st_uid}, "
                                 f"not {os.geteuid()} (the hub's)")  # fmt: skip
        if group_id is not None and info.st_gid != group_id:
            os.fchown(fd, -1, group_id)
        os.fchmod(fd, 0o750)
        return fd

    def _write(self, name: str, data: bytes, group_id: int | None, replace: bool = True) -> bool:
        """Write ``name`` whole, 0640, through a temporary file in the folder; with ``replace``
        False, only if there is none yet (False then: another writer was first)."""
        folder = self._folder(group_id)
        partial = f".{name}.{os.getpid()}.{os.urandom(4).hex()}"
        try:
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o640, dir_fd=folder)
            try:
                with open(fd, "wb", closefd=False) as f:
                    if group_id is not None:
                        os.fchown(fd, -1, group_id)
                    os.fchmod(fd, 0o640)
                    f.write(data)
                    f.flush()
                    os.fsync(fd)
            finally:
                os.close(fd)
            if replace:
                os.replace(partial, name, src_dir_fd=folder, dst_dir_fd=folder)
                return True
            try:
                os.link(partial, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
                return True
            except FileExistsError:
                return False
        finally:
            try:
                os.unlink(partial, dir_fd=folder)
            except FileNotFoundError:
                pass
            os.close(folder)

    def save(self, record: dict, group_id: int | None = None) -> None:
        """Replace the record (checked first), atomically; ``group_id``: the grader's group."""
        check(record, self.record_path)
        self._write(RECORD_NAME, (json.dumps(record, indent=1, sort_keys=True) + "\n").encode(), group_id)

    def private_key(self, create: bool = False, group_id: int | None = None) -> str:
        """The tool's private key (PEM); with ``create``, made the first time (RSA 2048, PKCS8)."""
        data = self._read(KEY_NAME)
        if data is None and create:
            self._write(KEY_NAME, new_private_key().encode(), group_id, replace=False)
            data = self._read(KEY_NAME)  # ours, or the one another launch made first
        if data is None:
            raise LmsRecordError(f"no tool key at {self.key_path}: the hub makes it at the first LTI launch "
                                 "(or run publish with lti.toml's private_key_file)")  # fmt: skip
        pem = data.decode("utf-8", "replace")
        if "PRIVATE KEY-----" not in pem:
            raise LmsRecordError(f"{self.key_path} is not a PEM private key")
        return pem

    def jwk(self) -> dict:
        """The public JWK of the course's tool key (kid, alg RS256, use sig)."""
        return tool_jwk(self.private_key())


# -- the tool's key ----------------------------------------------------------------------------
def new_private_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()  # fmt: skip


def tool_jwk(private_pem: str) -> dict:
    """The public JWK of a tool key, as pylti1p3's ``Registration.get_jwk`` gives it (so its kid, the
    RFC 7638 thumbprint, is the one publish's client assertions carry): kty, n, e, kid, alg, use."""
    from jwcrypto.jwk import JWK

    public = JWK.from_pem(private_pem.encode())
    jwk = json.loads(public.export_public())
    return {**jwk, "kid": public.thumbprint(), "alg": "RS256", "use": "sig"}
