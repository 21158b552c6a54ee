"""An LMS's side of LTI Advantage Assignment and Grade Services, as a real HTTP server on localhost.

What it checks is what a platform checks (1EdTech Security Framework §4.1, AGS 2.0 §3.2-3.4):
- the token endpoint takes only a client-credentials request whose client assertion is a JWT
  signed with the key registered for the tool (looked up by its kid in the tool's JWKS), issued
  by and about the tool's client id, for this token URL, not expired, its jti never seen before;
  it answers with a bearer token for the scopes asked;
- the line items and scores endpoints want that bearer token with the scope they serve, the AGS
  media types (Content-Type of what is posted, Accept of what is read), and a score with every
  field the spec requires, a known user and a timestamp with a time zone.
Everything it got is recorded (``tokens``, ``scores``, ``created``, ``requests``); ``refuse``
holds the user ids whose scores it answers with 400, ``lineitems`` the columns the course has,
``page_size`` how many it lists per page (the next page named by a ``Link: <...>; rel="next"``
header, as Canvas and Moodle page them).
"""

import datetime
import json
import secrets
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt

SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
CONTAINER_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
CLIENT_ID = "10000000000042"


class Platform:
    def __init__(self, tool_jwks: dict, users: set[str]):
        self.tool_jwks, self.users = tool_jwks, users
        self.tokens: dict[str, set[str]] = {}  # access token -> scopes
        self.assertions: list[dict] = []  # the verified client assertions' claims
        self.seen_jti: set[str] = set()
        self.scores: list[dict] = []  # (every accepted score, with the line item it went to)
        self.created: list[dict] = []
        self.requests: list[str] = []  # "POST /token" ...
        self.refuse: set[str] = set()
        self.lineitems: list[dict] = []
        self.page_size: int | None = None  # line items per page (AGS §3.2.4: a Link header names the next)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.token_url = self.url + "/login/oauth2/token"
        self.lineitems_url = self.url + "/api/lti/courses/7/line_items"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def add_lineitem(self, resource_id: str, label: str, maximum: float) -> str:
        url = f"{self.lineitems_url}/{len(self.lineitems) + 1}"
        self.lineitems.append({"id": url, "resourceId": resource_id, "label": label, "scoreMaximum": maximum})
        return url

    def posted(self) -> dict[str, float]:
        """userId -> scoreGiven of every score accepted so far (the last one wins, as in an LMS)."""
        return {s["userId"]: s["scoreGiven"] for s in self.scores}

    # -- checks --------------------------------------------------------------------------------
    def verify_assertion(self, assertion: str) -> dict:
        kid = jwt.get_unverified_header(assertion).get("kid")
        keys = {k["kid"]: k for k in self.tool_jwks["keys"]}
        if kid not in keys:
            raise ValueError(f"unknown kid {kid!r}")
        required = {"require": ["iss", "sub", "aud", "exp", "iat", "jti"]}
        key = jwt.PyJWK(keys[kid]).key
        claims = jwt.decode(
            assertion, key, algorithms=["RS256"], audience=self.token_url, issuer=CLIENT_ID, options=required
        )
        if claims["sub"] != CLIENT_ID:
            raise ValueError("sub is not the client id")
        if claims["jti"] in self.seen_jti:
            raise ValueError("jti replayed")
        self.seen_jti.add(claims["jti"])
        return claims

    def _handler(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def answer(self, status: int, body=None, content_type="application/json", link: str | None = None):
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                if link:
                    self.send_header("Link", link)
                if data:
                    self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def scopes(self) -> set[str] | None:
                auth = self.headers.get("Authorization", "")
                return platform.tokens.get(auth[len("Bearer ") :]) if auth.startswith("Bearer ") else None

            def do_POST(self):
                path = urllib.parse.urlsplit(self.path).path
                platform.requests.append(f"POST {path}")
                if path == "/login/oauth2/token":
                    return self.token()
                if path.endswith("/scores"):
                    return self.score(path[: -len("/scores")])
                if self.url_of(path) == platform.lineitems_url:
                    return self.create_lineitem()
                self.answer(404, {"error": "no such endpoint"})

            def do_GET(self):
                parts = urllib.parse.urlsplit(self.path)
                path = parts.path
                platform.requests.append(f"GET {path}")
                if self.url_of(path) != platform.lineitems_url:
                    return self.answer(404, {"error": "no such endpoint"})
                if not {LINEITEM, LINEITEM + ".readonly"} & (self.scopes() or set()):
                    return self.answer(401, {"error": "invalid bearer token for line items"})
                if CONTAINER_TYPE not in self.headers.get("Accept", ""):
                    return self.answer(406, {"error": "Accept must be " + CONTAINER_TYPE})
                if not platform.page_size:
                    return self.answer(200, platform.lineitems, CONTAINER_TYPE)
                page = int(dict(urllib.parse.parse_qsl(parts.query)).get("page", "1"))
                start = (page - 1) * platform.page_size
                more = start + platform.page_size < len(platform.lineitems)
                link = f'<{platform.lineitems_url}?page={page + 1}>; rel="next"' if more else None
                self.answer(200, platform.lineitems[start : start + platform.page_size], CONTAINER_TYPE, link)

            def url_of(self, path: str) -> str:
                return platform.url + path

            def token(self):
                form = dict(urllib.parse.parse_qsl(self.body().decode()))
                if self.headers.get("Content-Type") != "application/x-www-form-urlencoded":
                    return self.answer(400, {"error": "invalid_request"})
                if form.get("grant_type") != "client_credentials" or form.get("client_assertion_type") != (
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
                ):
                    return self.answer(400, {"error": "unsupported_grant_type"})
                try:
                    platform.assertions.append(platform.verify_assertion(form.get("client_assertion", "")))
                except (jwt.PyJWTError, ValueError) as error:
                    return self.answer(401, {"error": "invalid_client", "error_description": str(error)})
                scopes = set(form.get("scope", "").split())
                if not scopes <= {SCORE, LINEITEM, LINEITEM + ".readonly"}:
                    return self.answer(400, {"error": "invalid_scope"})
                token = secrets.token_urlsafe(24)
                platform.tokens[token] = scopes
                self.answer(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600,
                                  "scope": " ".join(sorted(scopes))})  # fmt: skip

            def create_lineitem(self):
                if LINEITEM not in (self.scopes() or set()):
                    return self.answer(401, {"error": "invalid bearer token for creating line items"})
                if self.headers.get("Content-Type") != LINEITEM_TYPE:
                    return self.answer(415, {"error": "Content-Type must be " + LINEITEM_TYPE})
                item = json.loads(self.body())
                url = platform.add_lineitem(item["resourceId"], item["label"], item["scoreMaximum"])
                platform.created.append(item)
                self.answer(201, platform.lineitems[-1] | {"id": url}, LINEITEM_TYPE)

            def score(self, lineitem_path: str):
                if SCORE not in (self.scopes() or set()):
                    return self.answer(401, {"error": "invalid bearer token for scores"})
                if self.headers.get("Content-Type") != SCORE_TYPE:
                    return self.answer(415, {"error": "Content-Type must be " + SCORE_TYPE})
                lineitem = self.url_of(lineitem_path)
                if lineitem not in [item["id"] for item in platform.lineitems]:
                    return self.answer(404, {"error": "no such line item"})
                score = json.loads(self.body())
                required = {"userId", "scoreGiven", "scoreMaximum", "activityProgress", "gradingProgress", "timestamp"}
                if not required <= set(score):
                    return self.answer(400, {"error": f"missing {sorted(required - set(score))}"})
                if datetime.datetime.fromisoformat(score["timestamp"]).tzinfo is None:
                    return self.answer(400, {"error": "timestamp without a time zone"})
                if score["userId"] in platform.refuse or score["userId"] not in platform.users:
                    return self.answer(400, {"errors": {"type": "bad_request", "message": "User not found in course"}})
                platform.scores.append(score | {"lineitem": lineitem})
                self.answer(200, {"resultUrl": f"{lineitem}/results/{score['userId']}"})

        return Handler
