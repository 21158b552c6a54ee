"""LTI 1.3 logins on a real JupyterHub: hub/jupyterhub_config.py with AUTOGRADER_AUTH=lti13, so the
login is jupyterhub-ltiauthenticator's LTI13Authenticator with hub/lti.py's course groups, and a
stand-in LMS on this machine (an HTTP server in the test: its JWKS and its OIDC authorization
endpoint, signing id_tokens with its own RSA key).  The test plays the browser of a launch as
Canvas and Moodle run it: the LMS starts the login at the hub (third-party initiated login), the
hub sends the browser to the LMS's authorization endpoint with a state and a nonce, and the LMS's
page posts the id_token back to the hub (form_post).  The hub's REST API then says who exists and
in which groups.

What is swapped in the hub's configuration: the grading service is only declared (nothing runs it;
no account is needed), a service token reads the hub's users and groups, and the hub's own ports.
"""

from __future__ import annotations

import contextlib
import html.parser
import importlib.util
import json
import os
import secrets
import shutil
import sys
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.conftest import ROOT
from tests.hub.conftest import COURSE_ID, SPRING_ID, proxy_command
from tests.hub.launch import COURSE_HUB_CONFIG, jupyterhub, wrapper
from tests.postgres import free_port

pytestmark = [pytest.mark.hub, pytest.mark.slow]

_spec = importlib.util.spec_from_file_location("hub_lti", os.path.join(ROOT, "hub", "lti.py"))
lti = sys.modules["hub_lti"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lti)

CLIENT_ID = "10000000000042"  # what Canvas shows as the developer key's client id
COURSE, OTHER_COURSE = COURSE_ID, SPRING_ID  # this run's: hub/lti.py adds staff to instructors-<course>
CONTEXTS = {COURSE: "ctx-4f2b8c0e", OTHER_COURSE: "ctx-7d1e9a33"}
# Under LTI the LMS says who teaches: the roster names the courses, their LMS courses and folders only.
ROSTER = f"""
[courses.{COURSE}]
lti_context = "{CONTEXTS[COURSE]}"
root = "{{base}}/course"

[courses.{OTHER_COURSE}]
root = "/srv/courses/spring"
lti_context = "{CONTEXTS[OTHER_COURSE]}"
"""
ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim"
LOGIN_COOKIE = "jupyterhub-hub-login"

SETTINGS = """
c.JupyterHub.services = [
    {"name": test["course"], "api_token": test["service_token"]},  # declared only: nothing runs it here
    {"name": "lti-test", "api_token": test["api_token"]},
]
c.JupyterHub.load_roles.append({"name": "lti-test", "services": ["lti-test"],
                                "scopes": ["list:users", "read:users", "list:groups", "read:groups", "read:servers"]})
c.ConfigurableHTTPProxy.api_url = test["proxy_api"]
"""


class StandInLMS:
    """The platform: its JWKS, and its OIDC authorization endpoint, which answers a login request
    with the page that posts an id_token for the launch the test prepared under that login_hint."""

    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.stranger = rsa.generate_private_key(public_exponent=65537, key_size=2048)  # not in the JWKS
        self.kid = "lms-key-1"
        self.launches: dict[str, dict] = {}  # login_hint -> the launch's claims and how to sign them
        self.requests: list[dict] = []  # the authorization requests the hub sent the browser with
        self.pages: dict[str, str] = {}  # path -> HTML: the LMS's own pages a browser test opens
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.issuer = self.url  # a platform's issuer is its own URL, e.g. https://canvas.instructure.com

    def _handler(self):
        lms = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/api/lti/security/jwks":
                    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(lms.key.public_key()))
                    keys = {"keys": [{**jwk, "kid": lms.kid, "alg": "RS256", "use": "sig"}]}
                    self._send(200, "application/json", json.dumps(keys))
                elif url.path == "/api/lti/authorize_redirect":
                    self._send(*lms.authorize(dict(urllib.parse.parse_qsl(url.query))))
                elif url.path in lms.pages:
                    self._send(200, "text/html", lms.pages[url.path])
                else:
                    self._send(404, "text/plain", "not here")

            def _send(self, status, kind, body):
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        return Handler

    def authorize(self, request: dict) -> tuple[int, str, str]:
        self.requests.append(request)
        launch = self.launches.get(request.get("login_hint", ""))
        expected = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none",
                    "client_id": CLIENT_ID}  # fmt: skip
        wrong = {k: request.get(k) for k, v in expected.items() if request.get(k) != v}
        if launch is None or wrong or not request.get("nonce") or not request.get("state"):
            return 400, "text/plain", f"invalid_request {wrong}"
        now = int(time.time())
        claims = {
            "iss": self.issuer, "aud": CLIENT_ID, "iat": now, "exp": now + 300, "nonce": request["nonce"],
            f"{CLAIM}/message_type": "LtiResourceLinkRequest", f"{CLAIM}/version": "1.3.0",
            f"{CLAIM}/deployment_id": "1:abc", f"{CLAIM}/target_link_uri": launch["target_link_uri"],
            f"{CLAIM}/resource_link": {"id": "rl-autograd-lesson1", "title": "Autograd lesson 1"},
            **launch["claims"],
        }  # fmt: skip
        key = self.stranger if launch.get("sign_with_stranger") else self.key
        id_token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": self.kid})
        fields = {"id_token": id_token, "state": request["state"]}
        inputs = "".join(f'<input type="hidden" name="{k}" value="{v}">' for k, v in fields.items())
        page = (f'<html><body onload="document.forms[0].submit()"><form method="post" '
                f'action="{request["redirect_uri"]}">{inputs}</form></body></html>')  # fmt: skip
        return 200, "text/html", page

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


class Form(html.parser.HTMLParser):
    """The auto-submitting form of the LMS's page, as a browser reads it."""

    def __init__(self, page: str):
        super().__init__()
        self.action, self.fields = None, {}
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.action = attrs["action"]
        elif tag == "input":
            self.fields[attrs["name"]] = attrs["value"]


@contextlib.contextmanager
def hub_with_lms(roster_text: str = ROSTER, **settings):
    """The course's hub with AUTOGRADER_AUTH=lti13 and the stand-in LMS as its platform; the first
    course's folder is ``<base>/course``, with the lessons the repository has released."""
    started = time.monotonic()
    base = tempfile.mkdtemp(prefix="autograd-lti-hub-", dir="/var/tmp")
    os.chmod(base, 0o755)  # the course's folder and the LMS records are passed through by their readers
    state = os.path.join(base, "state")
    os.makedirs(state)
    shutil.copytree(os.path.join(ROOT, "release"), os.path.join(base, "course", "release"))
    roster = os.path.join(state, "roster.toml")
    with open(roster, "w") as f:
        f.write(roster_text.replace("{base}", base))
    with StandInLMS() as lms:
        hub_port = free_port()
        hub_url = f"http://127.0.0.1:{hub_port}"
        # (JupyterHub 6.1 matches no API token of 64 characters or more: utils._TOKEN_MAX_LEN)
        test = {"course": COURSE, "service_token": secrets.token_hex(24), "api_token": secrets.token_hex(24),
                "proxy_api": f"http://127.0.0.1:{free_port()}"}  # fmt: skip
        environment = {
            "COURSE_HUB_CONFIG": COURSE_HUB_CONFIG, "HUB_TEST": json.dumps(test), "AUTOGRADER_ROSTER": roster,
            "AUTOGRADER_COURSE_ROOT": base, "AUTOGRADER_HUB_STATE": state, "AUTOGRADER_HUB_IP": "127.0.0.1",
            "AUTOGRADER_HUB_PORT": str(hub_port), "AUTOGRADER_HUB_API_PORT": str(free_port()),
            "AUTOGRADER_PROXY": proxy_command(), "NO_PROXY": "127.0.0.1,localhost",
            # the settings of the course's LTI login, as docs/instructor.md tells an admin to give them
            "AUTOGRADER_AUTH": "lti13", "AUTOGRADER_LTI_ISSUER": lms.issuer, "AUTOGRADER_LTI_CLIENT_ID": CLIENT_ID,
            "AUTOGRADER_LTI_AUTHORIZE_URL": f"{lms.url}/api/lti/authorize_redirect",
            "AUTOGRADER_LTI_JWKS_URL": f"{lms.url}/api/lti/security/jwks", "AUTOGRADER_LTI_DEPLOYMENT_ID": "1:abc",
            "AUTOGRADER_LTI_TOKEN_URL": f"{lms.url}/login/oauth2/token", "AUTOGRADER_LTI_CREATE_ACCOUNTS": "0",
            **settings,
        }  # fmt: skip
        try:
            with jupyterhub(state, wrapper(state, SETTINGS), environment, "lti-hub.log") as hub:
                print(f"\nthe LTI hub answered after {time.monotonic() - started:.1f} s")
                yield {"url": hub_url, "lms": lms, "token": test["api_token"], "log": hub.log, "base": base,
                       "records": os.path.join(state, "lms")}  # fmt: skip
        finally:
            shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def lti_hub():
    """Users named by the default claim, ``sub`` (Canvas's: an opaque id)."""
    with hub_with_lms() as hub:
        yield hub


@pytest.fixture(scope="module")
def moodle_hub():
    """Users named by their Moodle login name, which Moodle sends inside its ``ext`` claim."""
    with hub_with_lms(AUTOGRADER_LTI_USERNAME_CLAIM=f"{CLAIM}/ext#user_username") as hub:
        yield hub


def api(hub: dict, path: str) -> requests.Response:
    return requests.get(f"{hub['url']}/hub/api{path}", headers={"Authorization": f"token {hub['token']}"}, timeout=10)


def browser() -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # straight to 127.0.0.1, whatever proxy the environment names
    return session


def launch(hub: dict, claims: dict, method: str = "POST", session=None, **how) -> dict:
    """One launch from the LMS, as the user's browser goes through it; returns what a later replay
    needs (the posted form, the hub's cookies at that moment) and the hub's final answer."""
    session = session or browser()
    hint = secrets.token_hex(8)
    target = f"{hub['url']}/hub/"
    hub["lms"].launches[hint] = {"claims": claims, "target_link_uri": target, **how}
    # 1. the LMS's page sends the browser to the tool's OpenID Connect initiation URL
    initiation = {"iss": hub["lms"].issuer, "login_hint": hint, "target_link_uri": target,
                  "lti_message_hint": f"msg-{hint}", "client_id": CLIENT_ID, "lti_deployment_id": "1:abc"}  # fmt: skip
    url = f"{hub['url']}/hub/lti13/oauth_login"
    answer = session.request(method, url, **({"data": initiation} if method == "POST" else {"params": initiation}),
                             allow_redirects=False, timeout=10)  # fmt: skip
    assert answer.status_code == 302, f"{answer.status_code} {answer.text[:500]}\n{hub['log']()}"
    # 2. the hub sends it to the LMS's authorization endpoint, with a state and a nonce
    authorize = answer.headers["Location"]
    assert authorize.startswith(f"{hub['lms'].url}/api/lti/authorize_redirect?"), authorize
    page = session.get(authorize, timeout=10)
    assert page.status_code == 200, page.text
    form = Form(page.text)
    # 3. the LMS's page posts the id_token and the state back to the hub
    assert form.action == f"{hub['url']}/hub/lti13/oauth_callback"
    cookies = session.cookies.get_dict()
    answer = session.post(form.action, data=form.fields, allow_redirects=False, timeout=30)
    return {"form": form, "cookies": cookies, "answer": answer, "session": session}


def person(context: str, *roles: str, sub: str | None = None, **more) -> dict:
    return {"sub": sub or f"user-{secrets.token_hex(4)}", f"{CLAIM}/roles": list(roles),
            f"{CLAIM}/context": {"id": context, "label": "AG101", "title": "Autograd"}, **more}  # fmt: skip


def logged_in(done: dict) -> bool:
    return done["answer"].status_code == 302 and LOGIN_COOKIE in done["answer"].cookies


def assert_refused(hub: dict, done: dict, status: int, user: str | None = None, says: str = "") -> None:
    answer = done["answer"]
    assert answer.status_code == status, f"{answer.status_code} {answer.text[-800:]}\n{hub['log']()}"
    assert LOGIN_COOKIE not in answer.cookies
    assert says in answer.text
    if user:
        assert api(hub, f"/users/{user}").status_code == 404  # nobody was made


def groups_of(hub: dict, name: str) -> list[str]:
    answer = api(hub, f"/users/{name}")
    assert answer.status_code == 200, f"{answer.status_code} {answer.text}\n{hub['log']()}"
    return sorted(answer.json()["groups"])


def test_instructor_gets_its_groups(lti_hub):
    sub = "7d0b1d5e-3c4a-4e1f-9a53-2f64c0b1a9e2"  # Canvas's sub: an opaque id
    done = launch(lti_hub, person(CONTEXTS[COURSE], f"{ROLE}#Instructor", sub=sub))
    assert logged_in(done), f"{done['answer'].status_code} {done['answer'].text[-800:]}\n{lti_hub['log']()}"
    name = "u-7d0b1d5e-3c4a-4e1f-9a-045f9a00"  # a safe account name: its start, and a hash of it all
    assert lti.account_name(sub) == name
    assert groups_of(lti_hub, name) == [f"formgrade-{COURSE}", f"instructors-{COURSE}"]
    # The roster has two courses: a hub admin could open the other course's formgrader.
    assert api(lti_hub, f"/users/{name}").json()["admin"] is False
    # the hub's login cookie lets the browser in: the hub sends it on to its home
    assert done["answer"].headers["Location"].endswith("/hub/")
    assert done["session"].get(f"{lti_hub['url']}/hub/home", allow_redirects=False).status_code == 200


def test_ta_gets_ta_groups_not_admin(lti_hub):
    # Moodle and Canvas send the principal role with the sub-role: the TA sub-role decides.
    claims = person(CONTEXTS[COURSE], f"{ROLE}#Instructor", f"{ROLE}/Instructor#TeachingAssistant", sub="ta1")
    done = launch(lti_hub, claims, method="GET")
    assert logged_in(done), done["answer"].text[-800:]
    assert groups_of(lti_hub, "ta1") == [f"formgrade-{COURSE}", f"tas-{COURSE}"]
    assert api(lti_hub, "/users/ta1").json()["admin"] is False


def test_learner_joins_its_course(lti_hub):
    done = launch(lti_hub, person(CONTEXTS[OTHER_COURSE], f"{ROLE}#Learner", sub="Student.One"))
    assert logged_in(done), done["answer"].text[-800:]
    assert groups_of(lti_hub, "student.one") == [f"nbgrader-{OTHER_COURSE}", f"students-{OTHER_COURSE}"]
    assert api(lti_hub, "/users/student.one").json()["admin"] is False


def test_second_launch_keeps_first(lti_hub):
    for context in (CONTEXTS[COURSE], CONTEXTS[OTHER_COURSE]):
        done = launch(lti_hub, person(context, f"{ROLE}#Learner", sub="student.both"))
        assert logged_in(done), done["answer"].text[-800:]
    both = [f"nbgrader-{COURSE}", f"nbgrader-{OTHER_COURSE}", f"students-{COURSE}", f"students-{OTHER_COURSE}"]
    assert groups_of(lti_hub, "student.both") == both
    # A new role in one course replaces that course's groups, and only those.
    claims = person(CONTEXTS[COURSE], f"{ROLE}#Instructor", f"{ROLE}/Instructor#TeachingAssistant", sub="student.both")
    assert logged_in(launch(lti_hub, claims))
    assert groups_of(lti_hub, "student.both") == [f"formgrade-{COURSE}", f"nbgrader-{OTHER_COURSE}",
                                                  f"students-{OTHER_COURSE}", f"tas-{COURSE}"]  # fmt: skip


def test_unknown_lms_course_refused(lti_hub):
    done = launch(lti_hub, person("ctx-unknown", f"{ROLE}#Learner", sub="stranger1"))
    assert_refused(lti_hub, done, 403, "stranger1", says="ctx-unknown")


def test_no_course_role_refused(lti_hub):
    done = launch(lti_hub, person(CONTEXTS[COURSE], f"{ROLE}#ContentDeveloper", sub="designer1"))
    assert_refused(lti_hub, done, 403, "designer1", says="ContentDeveloper")


def test_wrong_key_token_refused(lti_hub):
    done = launch(lti_hub, person(CONTEXTS[COURSE], f"{ROLE}#Instructor", sub="forger1"), sign_with_stranger=True)
    assert_refused(lti_hub, done, 400, "forger1", says="Signature verification failed")


def test_unknown_issuer_refused(lti_hub):
    done = launch(lti_hub, person(CONTEXTS[COURSE], f"{ROLE}#Instructor", sub="forger2", iss="https://lms.example"))
    assert_refused(lti_hub, done, 400, "forger2", says="Invalid issuer")


def test_expired_token_refused(lti_hub):
    now = int(time.time())
    claims = person(CONTEXTS[COURSE], f"{ROLE}#Learner", sub="late1", iat=now - 400, exp=now - 100)
    done = launch(lti_hub, claims)
    assert_refused(lti_hub, done, 400, "late1", says="Signature has expired")


def test_replayed_launch_refused(lti_hub):
    done = launch(lti_hub, person(CONTEXTS[COURSE], f"{ROLE}#Learner", sub="student2"))
    assert logged_in(done)
    # the same browser posts the same id_token and state again: the hub used up its state cookie
    again = done["session"].post(done["form"].action, data=done["form"].fields, allow_redirects=False, timeout=30)
    assert_refused(lti_hub, {"answer": again}, 400, says="OAuth state missing from cookies")
    # someone who copied the request with its cookies posts it from elsewhere: the nonce was used
    copier = browser()
    copier.cookies.update(done["cookies"])
    again = copier.post(done["form"].action, data=done["form"].fields, allow_redirects=False, timeout=30)
    assert_refused(lti_hub, {"answer": again}, 403, says="already used")


def test_hub_publishes_lms_urls(lti_hub):
    """What docs/instructor.md tells an admin to type into Canvas or Moodle, as the hub itself gives it."""
    config = browser().get(f"{lti_hub['url']}/hub/lti13/config", timeout=10).json()
    assert config["oidc_initiation_url"] == f"{lti_hub['url']}/hub/lti13/oauth_login"
    assert config["target_link_uri"] == f"{lti_hub['url']}/hub/"
    assert config["redirect_uris"] == [f"{lti_hub['url']}/hub/lti13/oauth_callback"]
    assert config["public_jwk_url"] == f"{lti_hub['url']}/hub/lti13/jwks"
    placements = config["extensions"][0]["settings"]["placements"]
    assert {p["placement"]: p["message_type"] for p in placements}["assignment_selection"] == "LtiDeepLinkingRequest"
    # the redirect URI is the callback the hub sent the LMS's authorization endpoint
    assert {r["redirect_uri"] for r in lti_hub["lms"].requests} == {f"{lti_hub['url']}/hub/lti13/oauth_callback"}


def test_moodle_login_names_accounts(moodle_hub):
    ext = {"user_username": "student3", "lms": "moodle-2"}
    done = launch(moodle_hub, person(CONTEXTS[COURSE], f"{ROLE}#Learner", sub="17", **{f"{CLAIM}/ext": ext}))
    assert logged_in(done), f"{done['answer'].status_code} {done['answer'].text[-800:]}\n{moodle_hub['log']()}"
    assert groups_of(moodle_hub, "student3") == [f"nbgrader-{COURSE}", f"students-{COURSE}"]
    # a launch without the login name is refused rather than named by another claim
    done = launch(moodle_hub, person(CONTEXTS[COURSE], f"{ROLE}#Learner", sub="18"))
    assert_refused(moodle_hub, done, 403, "18", says="user_username")
