"""``python -m autograder publish ASSIGNMENT``: each student's score, posted to the LMS's gradebook
with LTI Advantage Assignment and Grade Services (AGS 2.0, https://www.imsglobal.org/spec/lti-ags/v2p0).

The scores are the gradebook's, with ``nbgrader export``'s totals (``csv_export.assignment_scores``:
the raw score less the late penalty, never below zero).  Each one goes to the platform's line item
for the assignment as an AGS score (§3.4)::

    POST <line item URL>/scores
    Authorization: Bearer <access token>
    Content-Type: application/vnd.ims.lis.v1.score+json

    {"userId": "<the student's LMS user id>", "scoreGiven": 7.0, "scoreMaximum": 10.0,
     "activityProgress": "Completed", "gradingProgress": "FullyGraded",
     "timestamp": "2026-12-03T03:40:12.345678+00:00"}

The access token comes from the platform's token endpoint by OAuth 2 client credentials with a
JWT client assertion (1EdTech Security Framework §4.1): a JWT signed (RS256) with the tool's
private key, ``iss`` = ``sub`` = the client id, ``aud`` = the token URL (or ``auth_audience``),
``kid`` = the key's id, asking for the AGS scopes it needs (``score``; with a line items URL also
``lineitem``, to find or create the assignment's column).  The platform checks the assertion
against the public key registered for the tool (its JWK, or the tool's key set URL).

**pylti1p3 does the protocol.**  Its ``ServiceConnector`` (token request, client assertion,
bearer calls) and ``AssignmentsGradesService`` (line items, scores) take a plain ``Registration``
and need no launch, so they run as a service here, from the instructor's command line; this module
only reads the settings and the gradebook, decides what to post and keeps the ledger.

Settings: on a hub with LTI 1.3 logins, nothing to write: the hub keeps the course's LMS record
(``lms_record.py``; the folder in ``AUTOGRADER_LMS_RECORD``, or ``--record DIR``), from which come
the registration (issuer, client id, deployment id, token and key set URLs, from the hub's settings
and the launches), the tool's private key (``tool_key.pem``, made by the hub; ``publish --jwks``
prints its public half), ``lineitems`` (the AGS claim of the launches: the LMS sends it only with
the tool's Assignment and Grade Services turned on), the line item of each assignment an LMS link
names (one line item per assignment), and the users (student id = hub account -> the ``sub`` of
their launches).  ``lti.toml``, if there is one too, wins key by key (its ``[users]`` and the users
CSV per student).  Without a hub: ``lti.toml`` in the course folder (``--config`` for another path), e.g.::

    # The tool's registration in the LMS (the platform shows these when the tool is added).
    issuer = "https://canvas.instructure.com"
    client_id = "10000000000042"
    deployment_id = "42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"
    auth_token_url = "https://canvas.example.edu/login/oauth2/token"
    key_set_url = "https://canvas.example.edu/api/lti/security/jwks"
    # auth_audience = "..."          # only if the platform wants another aud than the token URL
    private_key_file = "lti_private_key.pem"   # the tool's RSA key, PEM (relative to this file;
    #                                # chmod 600; .gitignore keeps it, lti.toml and lms_users.csv out of git)
    # key_id = "course-key-1"        # the kid registered with the public key (default: its
    #                                # RFC 7638 thumbprint, as pylti1p3 computes it)
    lineitems = "https://canvas.example.edu/api/lti/courses/7/line_items"   # the course's column list
    users_csv = "lms_users.csv"      # optional: student_id,lms_user_id rows

    [assignments.lesson1_requires_grad]
    lineitem = "https://canvas.example.edu/api/lti/courses/7/line_items/31"   # this column, as is

    [assignments.lesson2_backward]
    resource_id = "lesson2_backward" # default: the assignment id; looked up in `lineitems`,
    label = "Lesson 2: backward()"   # and created with this label if the LMS has no such column

    [users]                          # nbgrader student id = the LMS user id (the `sub` of the
    alice = "535fa085-f8a3-4b1b-b4dd-b2f3ab4cf4b4"   # student's LTI launches)

An assignment without a table of its own uses ``lineitems`` with its id as the resource id.  The
user ids come from ``[users]``, then ``users_csv`` (or ``--users``; a CSV with ``student_id`` and
``lms_user_id`` columns; later entries win).  ``deployment_id`` and ``key_set_url`` name the
registration (they are what a launch checks); AGS service calls do not send them.

**Idempotent.**  What was posted is kept in ``.autograder/published/<assignment>.json`` (one entry
per student: user id, line item, score, status, time; merged under a lock, replaced atomically).
A student is posted again only when the score, the maximum, the user id or the line item changed,
or the last post failed; ``--force`` posts everyone again.  With nothing to post, the platform is
not contacted at all.  A platform keeps the score with the latest timestamp, so posting again is
harmless, only useless.  Two students given one LMS user id get nothing posted (a score would
reach the wrong person): both are named.

Students with no submission get nothing (the LMS keeps its own value) unless ``--missing-as-zero``;
a submission that needs manual grading waits for it (its total is not final).
"""

from __future__ import annotations

import csv
import datetime
import os
from dataclasses import dataclass, field

import tomllib

from ..settings import SETTINGS
from .ledger import FOLDER, merge_json, read_json
from .lms_record import ENVIRONMENT, LmsRecordError, RecordFolder

CONFIG_NAME = "lti.toml"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
HTTP_SECONDS = 30.0
REGISTRATION_KEYS = ("issuer", "client_id", "deployment_id", "auth_token_url", "key_set_url")
TOP_KEYS = {*REGISTRATION_KEYS, "auth_audience", "private_key_file", "key_id", "lineitems", "users_csv", "assignments",
            "users"}  # fmt: skip
ASSIGNMENT_KEYS = {"lineitem", "lineitems", "resource_id", "label"}


class PublishError(Exception):
    """The settings cannot be used, or the platform refused the tool; nothing was posted."""


# -- settings ----------------------------------------------------------------------------------
@dataclass
class Settings:
    issuer: str
    client_id: str
    deployment_id: str
    auth_token_url: str
    key_set_url: str
    private_key: str  # PEM
    key_id: str | None = None
    auth_audience: str | None = None
    lineitems: str | None = None
    assignments: dict[str, dict] = field(default_factory=dict)
    users: dict[str, str] = field(default_factory=dict)
    path: str = ""  # where the settings came from, for messages
    record: str | None = None  # the LMS record (lms.json) among them

    def target(self, assignment: str) -> dict:
        """{"lineitem": URL} or {"lineitems": URL, "resource_id": ..., "label": ...} for the assignment."""
        table = self.assignments.get(assignment, {})
        if table.get("lineitem"):
            return {"lineitem": table["lineitem"]}
        lineitems = table.get("lineitems") or self.lineitems
        if not lineitems:
            why = (" (no LTI launch carried the AGS claim: turn on the tool's Assignment and Grade Services in "
                   "the LMS, then launch it once)") if self.record else ""  # fmt: skip
            raise PublishError(
                f"{self.path}: no line item for {assignment}: give [assignments.{assignment}] a lineitem URL, "
                f"or set lineitems (the course's line items URL) to find it by resource id{why}"
            )
        return {"lineitems": lineitems, "resource_id": table.get("resource_id") or assignment,
                "label": table.get("label") or assignment}  # fmt: skip


def read_users_csv(path: str) -> dict[str, str]:
    """student_id -> lms_user_id from a CSV with those two columns (others are ignored)."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            rows = list(csv.DictReader(f))
            columns = set(rows[0]) if rows else set()
    except OSError as error:
        raise PublishError(f"cannot read the users CSV {path}: {error.strerror}") from None
    if rows and not {"student_id", "lms_user_id"} <= columns:
        has = ", ".join(sorted(columns))
        raise PublishError(f"{path}: needs the columns student_id and lms_user_id (it has {has})")
    return {r["student_id"].strip(): r["lms_user_id"].strip() for r in rows if r["student_id"] and r["lms_user_id"]}


def _read_toml(path: str, record: RecordFolder | None) -> dict | None:
    """lti.toml's settings; None when there is none but a record folder is given."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        if record is not None:
            return None
        raise PublishError(f"no LTI settings: no {path} and no LMS record. On a hub with LTI logins the hub keeps "
                           f"them (give --record DIR, or set {ENVIRONMENT}); else write {path} "
                           "(see `python -m autograder publish -h`) or give --config") from None  # fmt: skip
    except tomllib.TOMLDecodeError as error:
        raise PublishError(f"{path}: {error}") from None
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise PublishError(f"{path}: unknown setting(s) {', '.join(sorted(unknown))}")
    return data


def _from_record(folder: RecordFolder, data: dict) -> tuple[dict, dict, dict[str, str]]:
    """The record's registration and lineitems (as lti.toml's keys), its line items per assignment
    (the links that name one, when they agree) and its users (student id -> ``sub``)."""
    try:
        record = folder.load() or {}
    except LmsRecordError as error:
        raise PublishError(str(error)) from None
    platform, ags = record.get("platform", {}), record.get("ags", {})
    found = {k: platform[k] for k in REGISTRATION_KEYS if platform.get(k)}
    if ags.get("lineitems"):
        found["lineitems"] = ags["lineitems"]
    if not data.get("private_key_file"):
        try:
            found["private_key"] = folder.private_key()
        except LmsRecordError as error:
            raise PublishError(str(error)) from None
    columns: dict[str, set[str]] = {}
    for link in record.get("links", {}).values():
        if link.get("assignment") and link.get("lineitem"):
            columns.setdefault(link["assignment"], set()).add(link["lineitem"])
    assignments = {name: {"lineitem": urls.pop()} for name, urls in columns.items() if len(urls) == 1}
    users = {student: person["sub"] for student, person in record.get("people", {}).items() if person.get("sub")}
    return found, assignments, users


def load_settings(path: str, users_csv: str | None = None, record: str | None = None) -> Settings:
    """The settings of ``path`` (lti.toml, see the module's docstring) and of the hub's LMS record
    folder ``record`` (lms_record.py), checked; lti.toml wins key by key, its ``[users]`` and the
    users CSV per student.  PublishError says what is wrong."""
    folder = RecordFolder(record) if record else None
    data = _read_toml(path, folder)
    where = " and ".join(([path] if data is not None else []) + ([folder.record_path] if folder else []))
    data = data or {}
    found, record_assignments, users = _from_record(folder, data) if folder else ({}, {}, {})
    found |= {k: v for k, v in data.items() if k in TOP_KEYS - {"assignments", "users"}}
    missing = [k for k in REGISTRATION_KEYS if not isinstance(found.get(k), str) or not found[k]]
    if "private_key" not in found and not (isinstance(data.get("private_key_file"), str) and data["private_key_file"]):
        missing.append("private_key_file")
    if missing:
        hint = " (no LTI launch has reached the hub for this course yet: launch the tool from the LMS once)"
        raise PublishError(f"{where}: missing {', '.join(missing)} (the tool's registration in the LMS)"
                           + (hint if folder else ""))  # fmt: skip
    here = os.path.dirname(os.path.abspath(path))
    private_key = found.get("private_key", "")
    if data.get("private_key_file"):
        key_path = os.path.join(here, data["private_key_file"])
        try:
            with open(key_path, encoding="utf-8") as f:
                private_key = f.read()
        except OSError as error:
            raise PublishError(f"{path}: cannot read private_key_file {key_path}: {error.strerror}") from None
        if "PRIVATE KEY-----" not in private_key:
            raise PublishError(f"{key_path} is not a PEM private key")
    assignments = data.get("assignments", {})
    for name, table in assignments.items():
        if not isinstance(table, dict) or set(table) - ASSIGNMENT_KEYS:
            raise PublishError(f"{path}: [assignments.{name}] takes only {', '.join(sorted(ASSIGNMENT_KEYS))}")
    users.update({str(k): str(v) for k, v in data.get("users", {}).items()})
    for csv_path in [p for p in (data.get("users_csv") and os.path.join(here, data["users_csv"]), users_csv) if p]:
        users.update(read_users_csv(csv_path))
    return Settings(
        issuer=found["issuer"], client_id=found["client_id"], deployment_id=found["deployment_id"],
        auth_token_url=found["auth_token_url"], key_set_url=found["key_set_url"], private_key=private_key,
        key_id=found.get("key_id") or None, auth_audience=found.get("auth_audience") or None,
        lineitems=found.get("lineitems") or None, assignments={**record_assignments, **assignments}, users=users,
        path=where, record=folder.record_path if folder else None,
    )  # fmt: skip


# -- the platform, through pylti1p3 ------------------------------------------------------------
def _session():
    """A requests session whose calls time out (pylti1p3 passes none) and say who is calling."""
    import requests

    class Session(requests.Session):
        def request(self, *args, **kwargs):
            kwargs.setdefault("timeout", HTTP_SECONDS)
            return super().request(*args, **kwargs)

    session = Session()
    session.headers["User-Agent"] = "autograd-course-autograder (pylti1p3)"
    return session


def public_key_pem(private_key: str) -> str:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(private_key.encode(), password=None)
    public = key.public_key()
    return public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def registration(settings: Settings):
    """pylti1p3's Registration of the tool, with the kid the platform knows the key by."""
    from pylti1p3.registration import Registration

    class ToolRegistration(Registration):
        def get_kid(self):
            return settings.key_id or super().get_kid()

    found = ToolRegistration()
    found.set_issuer(settings.issuer).set_client_id(settings.client_id).set_auth_token_url(settings.auth_token_url)
    found.set_key_set_url(settings.key_set_url).set_tool_private_key(settings.private_key)
    found.set_tool_public_key(public_key_pem(settings.private_key))
    if settings.auth_audience:
        found.set_auth_audience(settings.auth_audience)
    return found


def jwks(settings: Settings) -> dict:
    """The tool's public key set, to register in the LMS (``publish --jwks`` prints it)."""
    keys = registration(settings).get_jwks()
    return {"keys": [{**k, "kid": settings.key_id or k["kid"]} for k in keys]}


def tool_jwks(path: str, record: str | None = None) -> dict:
    """``publish --jwks``: the key set of lti.toml's key when it names one, else of the record
    folder's ``tool_key.pem`` (printable before any launch: the LMS needs it to register the tool)."""
    folder = RecordFolder(record) if record else None
    data = _read_toml(path, folder)
    if folder is None or (data or {}).get("private_key_file"):
        return jwks(load_settings(path, record=record))
    try:
        return {"keys": [folder.jwk()]}
    except LmsRecordError as error:
        raise PublishError(str(error)) from None


def _why(error: Exception) -> str:
    """One line on a failed call: the HTTP status and the start of the platform's answer."""
    response = getattr(error, "response", None)
    if response is not None and hasattr(response, "status_code"):
        body = " ".join((response.text or "").split())[:200]
        return f"HTTP {response.status_code} from {response.url}" + (f": {body}" if body else "")
    return f"{type(error).__name__}: {error}"


class AgsClient:
    """The LMS's AGS endpoints for one line item, called as the tool (pylti1p3 service mode)."""

    def __init__(self, settings: Settings, assignment: str, max_score: float) -> None:
        from pylti1p3.assignments_grades import AssignmentsGradesService
        from pylti1p3.service_connector import ServiceConnector

        self.target = settings.target(assignment)
        scopes = [SCORE_SCOPE] if "lineitem" in self.target else [LINEITEM_SCOPE, SCORE_SCOPE]
        service_data = {"scope": scopes, **{k: v for k, v in self.target.items() if k in ("lineitem", "lineitems")}}
        self.session = _session()
        self.connector = ServiceConnector(registration(settings), requests_session=self.session)
        self.service = AssignmentsGradesService(self.connector, service_data)
        self.scopes, self.max_score = scopes, max_score

    def close(self) -> None:
        """Close the connections the session keeps open for the next call."""
        self.session.close()

    def connect(self) -> str:
        """Get the access token and the line item's URL; PublishError if the platform says no."""
        import requests
        from pylti1p3.exception import LtiException

        try:
            self.connector.get_access_token(self.scopes)
        except (LtiException, requests.RequestException, ValueError, KeyError) as error:
            raise PublishError(f"the LMS gave no access token: {_why(error)}") from None
        if "lineitem" in self.target:
            self.lineitem = self.target["lineitem"]
            return self.lineitem
        from pylti1p3.lineitem import LineItem

        wanted = LineItem().set_resource_id(self.target["resource_id"]).set_label(self.target["label"])
        wanted.set_score_maximum(self.max_score)
        try:
            found = self.service.find_or_create_lineitem(wanted, find_by="resource_id")
        except (LtiException, requests.RequestException, ValueError) as error:
            raise PublishError(f"no line item for resource id {self.target['resource_id']!r}: {_why(error)}") from None
        if not found.get_id():
            raise PublishError(f"the LMS returned a line item without an id for {self.target['resource_id']!r}")
        self.lineitem = found.get_id()
        return self.lineitem

    def post(self, user_id: str, given: float, maximum: float, timestamp: str) -> None:
        """Post one score; raises with the platform's answer if it is refused."""
        from pylti1p3.grade import Grade
        from pylti1p3.lineitem import LineItem

        grade = Grade().set_user_id(user_id).set_score_given(given).set_score_maximum(maximum)
        grade.set_activity_progress("Completed").set_grading_progress("FullyGraded").set_timestamp(timestamp)
        self.service.put_grade(grade, LineItem({"id": self.lineitem}))


# -- what to post, and the ledger --------------------------------------------------------------
@dataclass
class PostResult:
    """What publishing did with one student's score."""

    student: str
    status: str  # posted, unchanged, failed, no submission, needs manual grading, would post
    score: float | None = None
    max_score: float | None = None
    message: str = ""

    def line(self) -> str:
        score = f" {self.score:g}/{self.max_score:g}" if self.score is not None else ""
        return f"{self.status:<20} {self.student}{score}" + (f"  {self.message}" if self.message else "")


@dataclass
class PublishSummary:
    assignment: str
    lineitem: str | None
    outcomes: list[PostResult]

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    def lines(self) -> list[str]:
        order = ("failed", "posted", "would post", "unchanged", "needs manual grading", "no submission")
        shown = sorted(self.outcomes, key=lambda o: (order.index(o.status), o.student))
        counts = ", ".join(f"{self.count(s)} {s}" for s in order if self.count(s))
        where = f" to {self.lineitem}" if self.lineitem else ""
        return [o.line() for o in shown] + [f"{self.assignment}{where}: {counts or 'no students'}"]


def published_path(course: str, assignment: str) -> str:
    return os.path.join(course, FOLDER, "published", f"{assignment}.json")


def now() -> str:
    """AGS's timestamp: ISO 8601 with sub-second precision and a time zone offset (§3.4.8)."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")


def publish(
    course: str,
    assignment: str,
    config: str | None = None,
    users_csv: str | None = None,
    students: list[str] | None = None,
    missing_as_zero: bool = False,
    force: bool = False,
    dry_run: bool = False,
    record: str | None = None,
) -> PublishSummary:
    """Post the assignment's scores to the LMS; see the module's docstring.  ``record``: the hub's LMS
    record folder of the course (default: ``AUTOGRADER_LMS_RECORD``'s).  Raises PublishError
    (or GradeError) when nothing can be posted: the settings, the course or the token.  A refused
    post is not an error: it is that student's outcome, and the others are posted."""
    from nbgrader.api import Gradebook

    from .course_assignment import CourseAssignment
    from .csv_export import assignment_scores

    view = CourseAssignment(course, assignment)
    record = record or SETTINGS.value("lms_record") or None
    settings = load_settings(config or os.path.join(view.folder, CONFIG_NAME), users_csv, record)
    with Gradebook(view.coursedir.db_url, view.coursedir.course_id) as gb:
        scores = assignment_scores(gb, assignment, students)
        max_score = gb.find_assignment(assignment).max_score
    ledger_file = published_path(view.folder, assignment)
    ledger = read_json(ledger_file)
    outcomes = [PostResult(name, "failed", message="not a student of the gradebook")
                for name in students or [] if name not in {s.student for s in scores}]  # fmt: skip
    to_post = []
    # Two students with one LMS user id would post both scores to one person (the last one staying):
    # neither is posted until the settings say who is who.
    ids = [settings.users[s.student] for s in scores if s.student in settings.users]
    shared = {user for user in ids if ids.count(user) > 1}
    for s in scores:
        if not s.submitted and not missing_as_zero:
            outcomes.append(
                PostResult(s.student, "no submission", message="nothing posted (--missing-as-zero posts 0)")
            )
        elif s.needs_manual_grade:
            outcomes.append(PostResult(s.student, "needs manual grading", s.score, s.max_score,
                                       "not final: grade it in the formgrader, then publish again"))  # fmt: skip
        elif s.student not in settings.users:
            launched = " (not in the LMS record: they have not launched the tool yet)" if settings.record else ""
            why = f"no LMS user id{launched}: add it to [users] in lti.toml or to the users CSV"
            outcomes.append(PostResult(s.student, "failed", s.score, s.max_score, why))
        elif settings.users[s.student] in shared:
            user = settings.users[s.student]
            others = sorted(o.student for o in scores if settings.users.get(o.student) == user and o is not s)
            why = f"LMS user id {user} is also given to {', '.join(others)}: nothing posted"
            outcomes.append(PostResult(s.student, "failed", s.score, s.max_score, why))
        else:
            to_post.append(s)
    target = settings.target(assignment)
    where = target.get("lineitem") or f"{target['lineitems']} resourceId={target['resource_id']}"
    changed = []
    for s in to_post:
        user, last = settings.users[s.student], ledger.get(s.student, {})
        same = (last.get("status") == "posted" and last.get("user_id") == user and last.get("target") == where
                and last.get("score_given") == s.score and last.get("score_maximum") == s.max_score)  # fmt: skip
        if same and not force:
            outcomes.append(PostResult(s.student, "unchanged", s.score, s.max_score, f"posted {last.get('time', '')}"))
        elif dry_run:
            outcomes.append(PostResult(s.student, "would post", s.score, s.max_score, f"as LMS user {user}"))
        else:
            changed.append(s)
    lineitem = target.get("lineitem")
    if not changed:  # the platform is contacted only when there is something to post
        return PublishSummary(assignment, lineitem, outcomes)
    platform = AgsClient(settings, assignment, max_score)
    try:
        return _post_all(platform, changed, settings, where, ledger_file, outcomes, assignment)
    finally:
        platform.close()  # its kept-alive connections, which would otherwise wait for the garbage collector


def _post_all(platform, changed, settings, where, ledger_file, outcomes, assignment) -> PublishSummary:
    lineitem = platform.connect()
    for s in changed:
        user, stamp = settings.users[s.student], now()
        entry = {"user_id": user, "target": where, "lineitem": lineitem, "score_given": s.score,
                 "score_maximum": s.max_score, "time": stamp}  # fmt: skip
        try:
            platform.post(user, s.score, s.max_score, stamp)
        except Exception as error:  # noqa: BLE001 - one refused post is reported, the others go on
            why = _why(error)
            merge_json(ledger_file, {s.student: {**entry, "status": "failed", "error": why}})
            outcomes.append(PostResult(s.student, "failed", s.score, s.max_score, why))
            continue
        merge_json(ledger_file, {s.student: {**entry, "status": "posted"}})
        outcomes.append(PostResult(s.student, "posted", s.score, s.max_score, f"as LMS user {user}"))
    return PublishSummary(assignment, lineitem, outcomes)
