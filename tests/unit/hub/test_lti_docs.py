"""docs/instructor.md's "Logins from an LMS (LTI 1.3)" is the hub's code, read by a new admin: the
settings block they copy starts hub/lti.py's ``configure`` as documented, every setting hub/lti.py
reads is documented, and the URLs, account names and refusal the section quotes are the hub's own.
(The launches themselves, on a real hub with a stand-in LMS, are tests/hub/test_lti_*.py.)"""

from __future__ import annotations

import importlib.util
import os
import re
import sys

import pytest
import tomllib

from tests.conftest import ROOT

if "hub_lti" not in sys.modules:
    _spec = importlib.util.spec_from_file_location("hub_lti", os.path.join(ROOT, "hub", "lti.py"))
    sys.modules["hub_lti"] = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(sys.modules["hub_lti"])
lti = sys.modules["hub_lti"]


def section() -> str:
    with open(os.path.join(ROOT, "docs", "instructor.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("### Logins from an LMS (LTI 1.3)")
    return text[start : text.index("\n## ", start)]


def block(language: str) -> str:
    """The section's one fenced block in ``language``."""
    (found,) = re.findall(rf"```{language}\n(.*?)```", section(), re.S)
    return found


def documented_settings() -> dict[str, str]:
    """The settings block as the hub's environment would hold it (comments left out)."""
    lines = [line for line in block("sh").splitlines() if line.strip() and not line.startswith("#")]
    return dict(line.split("=", 1) for line in lines)


def test_every_setting_hub_lti_reads_is_documented():
    read = set(re.findall(r"``(AUTOGRADER_[A-Z_]+)``", lti.__doc__))
    assert "AUTOGRADER_LTI_DEPLOYMENT_ID" in read  # the docstring is what is parsed here
    assert sorted(name for name in read if f"`{name}" not in section()) == []
    from autograder.settings import LTI_REQUIRED, SETTINGS

    assert sorted(s.env for s in SETTINGS.group("lti") if f"`{s.env}`" not in section()) == []
    assert {SETTINGS[name].env for name in LTI_REQUIRED} <= set(documented_settings())


def test_the_documented_canvas_settings_and_roster_start_the_hub_inside_the_lms_frame(tmp_path):
    from traitlets.config import Config

    roster = tomllib.loads(block("toml"))
    assert all(set(course) == {"lti_context", "root"} for course in roster["courses"].values())  # nobody named
    (tmp_path / "roster.toml").write_text(block("toml"))
    settings = {**documented_settings(), "AUTOGRADER_ROSTER": str(tmp_path / "roster.toml"),
                "AUTOGRADER_LMS_RECORDS": str(tmp_path / "lms"), "AUTOGRADER_LTI_CREATE_ACCOUNTS": "0"}  # fmt: skip
    assert settings["AUTOGRADER_AUTH"] == "lti13"
    c = Config()
    setup = lti.configure(c, settings)
    assert c.LTI13Authenticator.issuer == "https://canvas.instructure.com"
    assert c.LTI13Authenticator.authorize_url == "https://sso.canvaslms.com/api/lti/authorize_redirect"
    assert c.LTI13Authenticator.jwks_endpoint == "https://sso.canvaslms.com/api/lti/security/jwks"
    assert c.LTI13Authenticator.uri_scheme == "https"
    # in the frame by default over https, framed by the Canvas the block names
    assert setup.environment == {"AUTOGRADER_FRAME_ANCESTORS": "'self' https://canvas.example.edu"}
    tornado = c.JupyterHub.tornado_settings.get_value({})
    assert tornado["cookie_options"] == {"samesite": "None", "secure": True, "partitioned": True}
    # the tool key the key set URL serves exists before any launch
    assert (tmp_path / "lms" / "autograd-course" / "tool_key.pem").is_file()


def test_the_moodle_column_uses_the_sites_own_endpoints():
    table = section().split("| setting | Canvas (cloud) |")[1].split("\n\n")[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| `AUTOGRADER_LTI_")]
    moodle = {row[0].strip("|` "): row[2] for row in rows}  # setting | Canvas | Moodle
    assert "`https://moodle.example.edu`" in moodle["AUTOGRADER_LTI_ISSUER"]
    for name, path in (("AUTHORIZE_URL", "auth.php"), ("JWKS_URL", "certs.php"), ("TOKEN_URL", "token.php")):
        assert f"`https://moodle.example.edu/mod/lti/{path}`" in moodle[f"AUTOGRADER_LTI_{name}"]


def test_the_documented_hub_urls_are_the_hubs_routes():
    sys.path.insert(0, os.path.join(ROOT, "hub"))
    import lti_web

    routes = {path.lstrip("/") for path, *_ in lti_web.CourseLTI13Authenticator().get_handlers(None)}
    documented = set(re.findall(r"https://hub\.example\.edu/hub/(lti13/[a-z_]+)", section()))
    assert documented == {"lti13/oauth_login", "lti13/oauth_callback", "lti13/jwks", "lti13/config"}
    assert documented <= routes


@pytest.mark.parametrize("value, name", re.findall(r"`([^`\s]+)` (?:gives|stays) `([^`\s]+)`", section()))
def test_the_documented_account_names_are_the_hubs(value, name):
    assert lti.account_name(value) == name


def test_every_documented_account_name_example_is_checked():
    assert len(re.findall(r"`([^`\s]+)` (?:gives|stays) `([^`\s]+)`", section())) == 4


def test_the_quoted_refusal_is_the_hubs():
    (quoted,) = re.findall(r"`\.\.\. (is not a course of this hub[^`]+)`", section())
    context = re.search(r'lti_context = "([^"]+)"', quoted).group(1)
    claims = {lti.CONTEXT_CLAIM: {"id": context}, lti.ROLES_CLAIM: [lti.INSTRUCTOR]}
    with pytest.raises(lti.LaunchRefused) as refused:
        lti.membership(claims, [])
    assert str(refused.value).endswith(quoted)
