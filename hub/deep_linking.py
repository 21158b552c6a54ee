"""LTI Deep Linking 2.0 (https://www.imsglobal.org/spec/lti-dl/v2p0): an instructor adds a lesson
from the LMS's own dialog (Canvas's assignment selection, Moodle's "Select content").

The LMS launches the tool with an ``LtiDeepLinkingRequest`` instead of a resource link; the hub logs
the instructor in as for any launch (hub/lti.py checks the signature, the course and the role), then
answers with a page listing the course's lessons.  The instructor ticks one (or several, if the LMS
accepts several), and the hub sends the browser back to the LMS's ``deep_link_return_url`` with an
``LtiDeepLinkingResponse``: a JWT signed with the course's tool key (its public half is in the hub's
``/hub/lti13/jwks``), holding one ``ltiResourceLink`` per lesson, each with a line item whose
``resourceId`` is the lesson's assignment id and whose ``scoreMaximum`` is its points.  The LMS makes
the link and the gradebook column; ``python -m autograder publish`` later finds that column by the
same resource id, so nothing is copied by hand.

This module is the protocol's pure part: what a request asks for, which lessons are offered, and the
response's claims and JWT.  hub/lti_web.py serves the page and the form post.
"""

from __future__ import annotations

import json
import os
import secrets
import stat
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass

DL_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim"
LTI_CLAIM = "https://purl.imsglobal.org/spec/lti/claim"
SETTINGS_CLAIM = f"{DL_CLAIM}/deep_linking_settings"
REQUEST_TYPE = "LtiDeepLinkingRequest"
RESPONSE_TYPE = "LtiDeepLinkingResponse"
RESPONSE_SECONDS = 600  # how long the LMS may take to receive the response once it is signed
NOTEBOOK_BYTES = 4_000_000  # a released lesson is far smaller; anything larger is not read


class DeepLinkingRefused(ValueError):
    """The deep-linking request cannot be answered; the message says why, for the instructor."""


@dataclass(frozen=True)
class DeepLinkingRequest:
    """What the LMS asked for, from the launch's checked claims: enough to answer it later."""

    course: str
    issuer: str  # the platform: the response's audience
    client_id: str  # the tool: the response's issuer
    deployment_id: str
    return_url: str
    data: str | None  # opaque, to be sent back unchanged
    accept_multiple: bool

    @classmethod
    def from_claims(cls, claims: Mapping, course: str) -> DeepLinkingRequest:
        settings = claims.get(SETTINGS_CLAIM)
        if not isinstance(settings, Mapping):
            raise DeepLinkingRefused("the LMS sent a deep-linking request without its settings claim")
        return_url = settings.get("deep_link_return_url")
        if not isinstance(return_url, str) or not return_url.startswith(("https://", "http://")):
            raise DeepLinkingRefused("the LMS's deep-linking request has no return URL to send the lesson to")
        accepted = settings.get("accept_types") or []
        if "ltiResourceLink" not in accepted:
            raise DeepLinkingRefused(f"this LMS dialog accepts {', '.join(map(str, accepted)) or 'nothing'}, "
                                     "not the links to a lesson the hub makes (ltiResourceLink)")  # fmt: skip
        audience = claims.get("aud")
        client_id = audience if isinstance(audience, str) else claims.get("azp") or (audience or [None])[0]
        data = settings.get("data")
        return cls(
            course=course, issuer=str(claims["iss"]), client_id=str(client_id),
            deployment_id=str(claims.get(f"{LTI_CLAIM}/deployment_id") or ""), return_url=return_url,
            data=data if isinstance(data, str) else None, accept_multiple=settings.get("accept_multiple") is not False,
        )  # fmt: skip

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> DeepLinkingRequest:
        return cls(**json.loads(text))


@dataclass(frozen=True)
class Lesson:
    assignment: str  # the nbgrader assignment id, the line item's resourceId
    title: str
    points: float


def _title(cells: list, assignment: str) -> str:
    """The lesson's first markdown heading, as its notebook shows it."""
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source")
        text = "".join(source) if isinstance(source, list) else str(source or "")
        for line in text.splitlines():
            if line.startswith("#"):
                return line.lstrip("#").strip()[:200] or assignment
    return assignment


def read_lesson(path: str, assignment: str, dir_fd: int | None = None) -> Lesson | None:
    """The lesson of a released notebook (title and points), or None if it cannot be read as one.
    The file is opened without following a link (``path`` relative to ``dir_fd`` if given), and read
    only up to NOTEBOOK_BYTES."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        raw = f.read(NOTEBOOK_BYTES + 1)
    if len(raw) > NOTEBOOK_BYTES:
        return None
    try:
        cells = json.loads(raw).get("cells", [])
    except (ValueError, AttributeError):
        return None
    points = 0.0
    for cell in cells if isinstance(cells, list) else []:
        grading = (cell.get("metadata") or {}).get("nbgrader") or {} if isinstance(cell, dict) else {}
        value = grading.get("points") if grading.get("grade") else None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 10_000:
            points += value
    return Lesson(assignment, _title(cells, assignment), points) if points > 0 else None


def _folder(name: str, dir_fd: int | None = None) -> int | None:
    try:
        return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    except OSError:
        return None


def course_lessons(course_root: str) -> list[Lesson]:
    """The lessons the course has released (``release/<id>/<id>.ipynb`` in its folder), by id.  The
    hub reads them as root from folders the grader account writes: every step is opened without
    following a link, so a folder swapped for a link to another course's does not lend its notebook."""
    release = _folder(os.path.join(course_root, "release"))
    if release is None:
        return []
    lessons = []
    try:
        for name in sorted(os.listdir(release)):
            folder = _folder(name, release)
            if folder is None:
                continue
            try:
                lesson = read_lesson(f"{name}.ipynb", name, dir_fd=folder)
            finally:
                os.close(folder)
            if lesson is not None:
                lessons.append(lesson)
    finally:
        os.close(release)
    return lessons


def content_item(lesson: Lesson, target_link_uri: str, course: str) -> dict:
    """One link to a lesson, with the gradebook column the LMS makes for it."""
    return {
        "type": "ltiResourceLink",
        "title": lesson.title,
        "url": target_link_uri,
        "custom": {"assignment": lesson.assignment},
        "lineItem": {"scoreMaximum": lesson.points, "label": lesson.title, "resourceId": lesson.assignment,
                     "tag": course},
    }  # fmt: skip


def response_claims(request: DeepLinkingRequest, lessons: list[Lesson], target_link_uri: str,
                    now: float | None = None) -> dict:  # fmt: skip
    """The claims of the LtiDeepLinkingResponse for ``lessons`` (Deep Linking 2.0 §4.2)."""
    if not lessons:
        raise DeepLinkingRefused("choose a lesson to add")
    if len(lessons) > 1 and not request.accept_multiple:
        raise DeepLinkingRefused("this LMS dialog takes one lesson at a time")
    issued = int(now if now is not None else time.time())
    claims = {
        "iss": request.client_id, "aud": request.issuer, "iat": issued, "exp": issued + RESPONSE_SECONDS,
        "nonce": secrets.token_urlsafe(16),
        f"{LTI_CLAIM}/message_type": RESPONSE_TYPE, f"{LTI_CLAIM}/version": "1.3.0",
        f"{LTI_CLAIM}/deployment_id": request.deployment_id,
        f"{DL_CLAIM}/content_items": [content_item(lesson, target_link_uri, request.course) for lesson in lessons],
        f"{DL_CLAIM}/msg": "Added " + ", ".join(lesson.title for lesson in lessons),
    }  # fmt: skip
    if request.data is not None:
        claims[f"{DL_CLAIM}/data"] = request.data
    return claims


def signed_response(claims: dict, private_key_pem: str, kid: str) -> str:
    """The response JWT, RS256 with the course's tool key, named by the kid the hub's JWKS gives it."""
    import jwt

    return jwt.encode(claims, private_key_pem, algorithm="RS256", headers={"kid": kid})
