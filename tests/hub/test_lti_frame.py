"""A launch from the LMS's page, in Chromium: inside the LMS's frame (as Canvas and Moodle embed a
tool) and in a new tab, each reaching the learner's JupyterLab.

The LMS is tests/hub/test_lti_login.py's stand-in, at http://127.0.0.1:<port>; the hub is reached
as http://localhost:<port>, another site, so the browser treats the launch as cross-site: the
hub's state, nonce and login cookies and the learner's server's cookies reach it inside the frame
only as ``SameSite=None; Secure`` (Chromium takes Secure cookies from http://localhost, as from
HTTPS), and JupyterLab shows in the frame only if its Content-Security-Policy names the LMS as a
frame ancestor (hub/lti.py's ``frame_settings``, autograder/lms_frame.py).  What is real: Chromium,
the hub, the spawned server; what is played: the LMS.
"""

from __future__ import annotations

import html
import json
import os
import secrets
import time

import pytest

from tests.browser.lab import CHROMIUM, CHROMIUM_ARGS, screenshot
from tests.hub.conftest import remove_accounts
from tests.hub.test_lti_login import CLIENT_ID, CONTEXTS, COURSE, ROLE, hub_with_lms, lti, person

pytestmark = [pytest.mark.hub, pytest.mark.slow, pytest.mark.browser]

LAB_MS = 120_000


@pytest.fixture(scope="module")
def frame_hub():
    made: list[str] = []
    with hub_with_lms(AUTOGRADER_LTI_CREATE_ACCOUNTS="1", AUTOGRADER_LTI_IN_FRAME="1") as hub:
        hub["made"] = made
        hub["site"] = hub["url"].replace("127.0.0.1", "localhost")  # another site than the LMS's
        try:
            yield hub
        finally:
            remove_accounts(made)


def profile_browser(chromium, profile: str, third_party_cookies: bool):
    """Chromium with a profile of its own, as a learner's browser is (an off-the-record context, what
    ``browser.new_context`` gives, is an Incognito window), from the hub tests' Playwright
    (tests/hub/conftest.py's ``chromium``: one sync Playwright per thread).  This Chromium, as
    shipped, blocks third-party cookies and storage; ``third_party_cookies`` allows them, as Chrome
    does for most of its users (its setting "Allow third-party cookies")."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"the LTI frame tests need the whole browser, {CHROMIUM} (apt-get install chromium; "
                    "see .ci/run)", pytrace=False)  # fmt: skip
    if third_party_cookies:
        os.makedirs(os.path.join(profile, "Default"))
        with open(os.path.join(profile, "Default", "Preferences"), "w") as f:
            json.dump({"profile": {"cookie_controls_mode": 0, "block_third_party_cookies": False}}, f)
    return chromium.browser_type.launch_persistent_context(
        profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, viewport={"width": 1366, "height": 900}
    )


@pytest.fixture
def learners_chromium(chromium, tmp_path):
    context = profile_browser(chromium, str(tmp_path / "profile"), third_party_cookies=False)
    yield context
    context.close()


@pytest.fixture
def chrome_like(chromium, tmp_path):
    context = profile_browser(chromium, str(tmp_path / "profile"), third_party_cookies=True)
    yield context
    context.close()


def test_with_third_party_storage_jupyterlab_runs_inside_the_lms_frame(frame_hub, chrome_like):
    sub = f"inframe-{secrets.token_hex(3)}"
    frame_hub["made"].append(lti.account_name(sub))
    page = chrome_like.new_page()
    page.goto(course_page(frame_hub, sub, "tool"))
    started = time.monotonic()
    page.click("#launch button")
    try:
        page.frame_locator("#tool").locator(".jp-LabShell").wait_for(timeout=LAB_MS)
    except Exception:
        screenshot(page, "lti-in-frame")
        raise AssertionError(f"no JupyterLab inside the LMS's frame:\n{frame_hub['log']()}") from None
    print(f"\nlaunch to JupyterLab inside the LMS's frame: {time.monotonic() - started:.1f} s")
    assert page.frame("tool").url.startswith(f"{frame_hub['site']}/user/{lti.account_name(sub)}/lab")
    assert not [tab.url for tab in chrome_like.pages if "/hub/" in tab.url or "/user/" in tab.url]  # no tab was opened


def course_page(hub: dict, sub: str, target: str) -> str:
    """The LMS's course page: it starts the launch of the tool into ``target`` (a frame or a new tab)."""
    hint = secrets.token_hex(8)
    tool = f"{hub['site']}/hub/"
    hub["lms"].launches[hint] = {
        "claims": person(CONTEXTS[COURSE], f"{ROLE}#Learner", sub=sub),
        "target_link_uri": tool,
    }
    fields = {"iss": hub["lms"].issuer, "login_hint": hint, "target_link_uri": tool, "client_id": CLIENT_ID,
              "lti_message_hint": f"msg-{hint}", "lti_deployment_id": "1:abc"}  # fmt: skip
    inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items())
    frame = '<iframe name="tool" id="tool" style="width:1200px;height:800px"></iframe>' if target == "tool" else ""
    path = f"/courses/7/{hint}"
    hub["lms"].pages[path] = (
        f'<html><body><h1>AG101</h1><form id="launch" method="post" target="{target}" '
        f'action="{hub["site"]}/hub/lti13/oauth_login">{inputs}<button>Open the lesson</button></form>{frame}'
        "</body></html>"
    )
    return f"{hub['lms'].url}{path}"


def test_without_third_party_storage_a_launch_in_the_lms_frame_opens_jupyterlab_in_a_tab(frame_hub, learners_chromium):
    sub = f"frame-{secrets.token_hex(3)}"
    frame_hub["made"].append(lti.account_name(sub))
    page = learners_chromium.new_page()
    seen: list[str] = []  # what the frame went through, and what the page's console said
    page.on("framenavigated", lambda frame: seen.append(f"{frame.name or 'top'}: {frame.url}"))
    page.on("console", lambda message: seen.append(f"console {message.type}: {message.text[:300]}"))
    page.goto(course_page(frame_hub, sub, "tool"))
    tabs: list = []  # what the frame's page opens
    learners_chromium.on("page", lambda opened: tabs.append(opened))
    started = time.monotonic()
    page.click("#launch button")
    tool = page.frame_locator("#tool")
    try:
        # This Chromium, as shipped, keeps no third-party storage: JupyterLab cannot keep its workspace
        # inside the LMS's page, so the frame offers the lesson in a tab (or opens it by itself).
        tool.locator("#frame-blocked:not([hidden]), #frame-opened:not([hidden])").first.wait_for(timeout=LAB_MS)
        clicked = tool.locator("#open-in-tab").is_visible()
        if clicked:  # the browser blocked the tab it opened by itself: one click opens it
            tool.locator("#open-in-tab").click()
        deadline = time.monotonic() + LAB_MS / 1000
        while len(tabs) < 1 and time.monotonic() < deadline:
            page.wait_for_timeout(200)
        tab = tabs[0]
        tab.locator(".jp-LabShell").wait_for(timeout=LAB_MS)
    except Exception:
        screenshot(page, "lti-frame-launch")
        trail = "\n".join(seen[-60:])
        raise AssertionError(f"no JupyterLab from the LMS's frame:\n{trail}\n{frame_hub['log']()}") from None
    how = "on one click" if clicked else "by itself"
    print(f"\nlaunch in the LMS's frame to JupyterLab in a tab opened {how}: {time.monotonic() - started:.1f} s")
    assert tab.url.startswith(f"{frame_hub['site']}/user/{lti.account_name(sub)}/lab"), tab.url
    # the frame's one-time link is spent: opened again, it logs nobody in
    again = learners_chromium.new_page()
    link = tool.locator("#open-in-tab").get_attribute("href")
    answer = again.goto(f"{frame_hub['site']}{link}")
    assert answer.status == 403 and "expired or was used" in again.content()


def test_a_launch_in_a_new_tab_reaches_jupyterlab(frame_hub, learners_chromium):
    sub = f"tab-{secrets.token_hex(3)}"
    frame_hub["made"].append(lti.account_name(sub))
    context = learners_chromium
    page = context.new_page()
    page.goto(course_page(frame_hub, sub, "_blank"))
    started = time.monotonic()
    with context.expect_page() as opened:
        page.click("#launch button")
    tab = opened.value
    try:
        tab.locator(".jp-LabShell").wait_for(timeout=LAB_MS)
    except Exception:
        screenshot(tab, "lti-tab-launch")
        raise AssertionError(f"no JupyterLab in the new tab:\n{frame_hub['log']()}") from None
    print(f"\nlaunch in a new tab to JupyterLab: {time.monotonic() - started:.1f} s")
    assert tab.url.startswith(f"{frame_hub['site']}/user/{lti.account_name(sub)}/lab"), tab.url
