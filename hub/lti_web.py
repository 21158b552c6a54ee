"""The hub's LTI 1.3 pages on top of jupyterhub-ltiauthenticator's: one authenticator class,
``CourseLTI13Authenticator``, that adds or replaces these handlers (all under ``/hub/lti13/``):

* ``oauth_callback`` (ltiauthenticator's, extended): a deep-linking launch (hub/deep_linking.py) is
  answered with the page to choose lessons instead of a redirect into the hub;
* ``deep_link`` (new): the chosen lessons, posted by that page, go back to the LMS as a signed
  ``LtiDeepLinkingResponse`` (an auto-submitting form to the LMS's return URL);
* ``jwks`` (new): the tool's public keys, one per course (autograder/grading/lms_record.py's
  ``tool_key.pem``), the URL to give the LMS as the tool's key set: it checks the deep-linking
  responses and ``publish``'s client assertions with them.  Every key of a registration's key set
  may do whatever the registration may, in any of its courses; ``jwks?course=<id>`` gives one
  course's key alone, for a course registered on its own;
* ``config`` (ltiauthenticator's, corrected): the tool's settings in Canvas's JSON format, with
  the target link URI under the hub's prefix (ltiauthenticator gives the bare host), the key set
  URL, the AGS scopes ``publish`` needs, and deep-linking placements.

What the deep-link page posts back is only the lesson ids and a value the hub signed itself (with
its cookie secret, for ten minutes, naming the logged-in instructor and what the LMS asked for): a
forged or replayed form, or one posted by another user, is refused.
"""

from __future__ import annotations

import html
import json
import os
import secrets
import sys
import time

from jupyterhub.handlers import BaseHandler
from jupyterhub.utils import url_path_join
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.constants import LTI13_GENERAL_REQUIRED_CLAIMS
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13ConfigHandler
from ltiauthenticator.lti13.validator import LTI13LaunchValidator
from ltiauthenticator.utils import convert_request_to_dict
from tornado.httputil import url_concat
from tornado.web import HTTPError
from traitlets import Dict, Unicode

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)
import deep_linking  # noqa: E402

TAB_NAME = "autograder-lti-tab"
TAB_DAYS = 2 / (24 * 60)  # two minutes: the frame's page opens the tab at once, or on one click
SIGNED_NAME = "autograder-deep-linking"
SIGNED_DAYS = 10 / (24 * 60)  # ten minutes: the instructor chooses a lesson, then posts
AGS_SCOPES = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
              "https://purl.imsglobal.org/spec/lti-ags/scope/score"]  # fmt: skip


def _hub_url(handler) -> str:
    """The hub's own URL as the browser sees it, with its prefix (``https://hub.example.edu/hub/``)."""
    scheme = handler.authenticator.get_uri_scheme(handler.request)
    return f"{scheme}://{handler.request.host}{handler.hub.base_url}"


def auto_post_page(action: str, fields: dict, title: str) -> str:
    """A page that posts ``fields`` to ``action`` by itself (and by a button without JavaScript)."""
    inputs = "".join(f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">'
                     for name, value in fields.items())  # fmt: skip
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
            f'<body onload="document.forms[0].submit()"><form method="post" action="{html.escape(action)}">'
            f'{inputs}<noscript><button type="submit">Continue</button></noscript></form></body></html>')  # fmt: skip


class SpecValidator(LTI13LaunchValidator):
    """ltiauthenticator's checks of an id_token, with a deep-linking request's required claims as
    the specification lists them (LTI 1.3 §5.3 and Deep Linking 2.0 §4.4): ltiauthenticator 1.6.3
    also requires the claims the specification makes optional there (``azp``, ``tool_platform``,
    ``launch_presentation``), so it refuses what Canvas and Moodle send."""

    DEEP_LINKING_REQUIRED = (*LTI13_GENERAL_REQUIRED_CLAIMS, deep_linking.SETTINGS_CLAIM)

    def validate_id_token(self, id_token):
        if id_token.get(f"{deep_linking.LTI_CLAIM}/message_type") != deep_linking.REQUEST_TYPE:
            return super().validate_id_token(id_token)
        self._check_arg_not_missing(id_token, self.DEEP_LINKING_REQUIRED)
        self._check_lti_version(id_token)
        self._check_context_label(id_token)
        self._check_if_iat_is_too_old(id_token)


class CourseCallbackHandler(LTI13CallbackHandler):
    """ltiauthenticator's launch callback; a deep-linking launch gets the lesson chooser.
    hub/lti.py's post_auth_hook sets ``self.deep_linking`` when the launch asks for a link."""

    deep_linking: deep_linking.DeepLinkingRequest | None = None

    def decode_and_validate_launch_request(self):
        """ltiauthenticator's own steps, in its order, with SpecValidator's claim checks."""
        validator = SpecValidator(parent=self.app)
        args = convert_request_to_dict(self.request.arguments)
        validator.validate_auth_response(args)
        self.check_state()  # the state cookie of this browser's login: no forged cross-site post
        id_token = validator.verify_and_decode_jwt(
            encoded_jwt=args.get("id_token"), issuer=self.authenticator.issuer, audience=self.authenticator.client_id,
            jwks_endpoint=self.authenticator.jwks_endpoint, jwks_algorithms=self.authenticator.jwks_algorithms,
        )  # fmt: skip
        validator.validate_id_token(id_token)
        validator.validate_azp_claim(id_token, self.authenticator.client_id)
        self.check_nonce(id_token)  # a replayed id_token: its nonce is not this browser's
        return id_token

    async def redirect_to_next_url(self, user):
        if self.deep_linking is None and self.request.headers.get("Sec-Fetch-Dest") in ("iframe", "frame"):
            return await self.offer_a_tab(user)
        if self.deep_linking is None:
            return await super().redirect_to_next_url(user)
        request = self.deep_linking
        lessons = deep_linking.course_lessons(self.authenticator.course_roots.get(request.course, ""))
        signed = self.create_signed_value(SIGNED_NAME, json.dumps({"user": user.name, "request": request.to_json()}))
        page = await self.render_template(
            "lti_deep_linking.html", lessons=lessons, course=request.course, signed=signed.decode(),
            multiple=request.accept_multiple, action=url_path_join(self.hub.base_url, "lti13", "deep_link"),
        )  # fmt: skip
        self.finish(page)

    async def offer_a_tab(self, user):
        """Inside the LMS's frame: the page that goes on in the frame if the browser lets JupyterLab
        keep its storage there, and otherwise opens the lesson in a tab (hub/templates/lti_in_frame.html)."""
        next_url = self.get_next_url(user)
        ticket = json.dumps({"user": user.name, "next": next_url, "once": secrets.token_urlsafe(16)})
        signed = self.create_signed_value(TAB_NAME, ticket).decode()
        tab_url = url_concat(url_path_join(self.hub.base_url, "lti13", "tab"), {"ticket": signed})
        self.finish(await self.render_template("lti_in_frame.html", next_url=next_url, tab_url=tab_url))


class TabHandler(BaseHandler):
    """A launch that began in the LMS's frame goes on in a tab of its own: the browser's cookies of
    the frame are not the tab's (they are partitioned by the LMS's site), so the tab logs the user in
    with the one-time ticket the frame's page carried: signed by the hub, for this user, for two
    minutes, and used once."""

    used: dict[str, float] = {}

    async def get(self):
        value = self.get_secure_cookie(TAB_NAME, self.get_argument("ticket", ""), max_age_days=TAB_DAYS)
        ticket = json.loads(value) if value else None
        now = time.time()
        for once, until in list(self.used.items()):
            if until < now:
                del self.used[once]
        if not ticket or ticket["once"] in self.used:
            raise HTTPError(403, "this link to the lesson has expired or was used: launch the tool again from the LMS")
        self.used[ticket["once"]] = now + TAB_DAYS * 86400
        user = self.find_user(ticket["user"])
        if user is None:
            raise HTTPError(403, "launch the tool again from the LMS")
        self.set_login_cookie(user)
        self.redirect(ticket["next"])  # the callback's own get_next_url: a path on this hub


class DeepLinkHandler(BaseHandler):
    """The lessons chosen on the page: the response to the LMS, signed with the course's tool key."""

    def check_xsrf_cookie(self):
        return  # the signed value below is this form's proof: the hub made it for this user, minutes ago

    async def post(self):
        user = self.current_user
        if user is None:
            raise HTTPError(403, "log in from the LMS first: launch the tool from its assignment dialog")
        value = self.get_secure_cookie(SIGNED_NAME, self.get_body_argument("request", ""), max_age_days=SIGNED_DAYS)
        signed = json.loads(value) if value else None
        if not signed or signed.get("user") != user.name:
            raise HTTPError(403, "this form is not yours or has expired: open the dialog in the LMS again")
        request = deep_linking.DeepLinkingRequest.from_json(signed["request"])
        offered = {lesson.assignment: lesson for lesson in
                   deep_linking.course_lessons(self.authenticator.course_roots.get(request.course, ""))}  # fmt: skip
        chosen = self.get_body_arguments("lesson")
        unknown = [name for name in chosen if name not in offered]
        if unknown:
            raise HTTPError(400, f"{unknown[0]!r} is not a lesson of course {request.course}")
        try:
            claims = deep_linking.response_claims(request, [offered[name] for name in chosen], _hub_url(self))
        except deep_linking.DeepLinkingRefused as refused:
            raise HTTPError(400, str(refused)) from None
        folder = self.authenticator.record_folder(request.course)
        kid = self.authenticator.public_jwk(request.course)["kid"]
        token = deep_linking.signed_response(claims, folder.private_key(), kid)
        self.log.info("LTI deep linking: %s added %s to course %s", user.name, ", ".join(chosen), request.course)
        self.finish(auto_post_page(request.return_url, {"JWT": token}, "Back to the LMS"))

    async def get(self):
        raise HTTPError(405, "choose a lesson from the LMS's assignment dialog")


class JwksHandler(BaseHandler):
    """The tool's public key set: every course's key, for the LMS to check what the tool signs."""

    async def get(self):
        # ?course=<id>: that course's key alone, for a course with a registration (client id) of its own,
        # so that its key is no good for another course's line items (one registration's keys all are)
        courses = self.authenticator.chosen_courses(self.get_argument("course", ""))
        keys = [self.authenticator.public_jwk(course) for course in courses]
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "max-age=300")
        self.finish(json.dumps({"keys": keys}))


class CourseConfigHandler(LTI13ConfigHandler):
    """The tool's settings for the LMS, as ltiauthenticator gives them, corrected and completed."""

    async def get(self):
        hub_url = _hub_url(self)
        login = f"{hub_url}lti13/oauth_login"
        course = self.get_argument("course", "")  # a course registered on its own: its key set alone
        key_set = f"{hub_url}lti13/jwks" + (f"?course={self.authenticator.chosen_courses(course)[0]}" if course else "")
        placement = {"target_link_uri": hub_url, "message_type": "LtiDeepLinkingRequest"}
        config = {
            "title": self.authenticator.tool_name,
            "description": self.authenticator.tool_description,
            "oidc_initiation_url": login,
            "target_link_uri": hub_url,
            "redirect_uris": [f"{hub_url}lti13/oauth_callback"],
            "public_jwk_url": key_set,
            "scopes": AGS_SCOPES,
            "extensions": [{
                "platform": "canvas.instructure.com", "privacy_level": "public",
                "settings": {"placements": [
                    {"placement": "course_navigation", "message_type": "LtiResourceLinkRequest",
                     "target_link_uri": hub_url, "windowTarget": "_blank"},
                    {"placement": "assignment_selection", **placement},
                    {"placement": "link_selection", **placement},
                ]},
            }],
        }  # fmt: skip
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps(config))


class CourseLTI13Authenticator(LTI13Authenticator):
    """LTI13Authenticator with the course's pages; hub/lti.py's ``configure`` sets its traits."""

    callback_handler = CourseCallbackHandler
    config_handler = CourseConfigHandler
    course_roots = Dict(help="course id -> its folder, where the lessons it released are").tag(config=True)
    lms_records = Unicode(help="the folder of the courses' LMS records, one folder per course").tag(config=True)

    def record_folder(self, course: str):
        """The course's LMS record and tool key (autograder/grading/lms_record.py)."""
        from autograder.grading.lms_record import RecordFolder

        return RecordFolder(os.path.join(self.lms_records, course))

    def chosen_courses(self, wanted: str = "") -> list[str]:
        """Every LTI course of the hub, or only ``wanted`` (404 if it is none of them)."""
        courses = sorted(self.course_roots)
        if wanted and wanted not in courses:
            raise HTTPError(404, f"no LTI course {wanted!r} on this hub")
        return [wanted] if wanted else courses

    def public_jwk(self, course: str) -> dict:
        """The course's public key, read from its private key once (the key set is asked often)."""
        known = self.__dict__.setdefault("_public_jwks", {})
        if course not in known:
            known[course] = self.record_folder(course).jwk()
        return known[course]

    def get_handlers(self, app):
        return [*super().get_handlers(app), ("/lti13/deep_link", DeepLinkHandler), ("/lti13/jwks", JwksHandler),
                ("/lti13/tab", TabHandler)]  # fmt: skip
