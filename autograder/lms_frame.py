"""Every Jupyter server the hub starts may be shown inside the LMS's page when the hub's LTI login
says so (hub/lti.py's ``frame_settings``): jupyterhub-singleuser sends ``Content-Security-Policy:
frame-ancestors 'none'`` unless the server's own settings name a policy, and browsers then show
JupyterLab in no other site's frame.  The hub gives the allowed ancestors in
``AUTOGRADER_FRAME_ANCESTORS`` ("'self' https://lms.example.edu"); each is checked again here, since
it becomes a header.

Cookies inside that frame are third-party cookies, which Chromium now blocks unless they are
*partitioned* (CHIPS: ``Partitioned``, kept per top-level site, here the LMS).  The hub's cookie
options (hub/lti.py: ``SameSite=None; Secure; Partitioned``) reach every server through
JupyterHub's ``JUPYTERHUB_COOKIE_OPTIONS``; Python's ``http.cookies`` learnt the ``Partitioned``
attribute only in 3.14, so ``allow_partitioned_cookies`` teaches it to the Morsel of older ones
(tornado writes every Set-Cookie through a Morsel)."""

from __future__ import annotations

import os
import re

from .settings import SETTINGS

FRAME_COOKIES = {"samesite": "None", "secure": True, "partitioned": True}
ANCESTOR = re.compile(r"'self'|https?://[A-Za-z0-9.\-]+(:\d+)?")


def frame_ancestors(value: str, setting: str = "AUTOGRADER_FRAME_ANCESTORS") -> str | None:
    """The CSP source list of ``value``, or None when it is empty; ValueError names a bad entry."""
    sources = value.split()
    bad = [source for source in sources if not ANCESTOR.fullmatch(source)]
    if bad:
        raise ValueError(f"{setting}: {bad[0]!r} is not an origin (https://lms.example.edu) nor 'self'")
    return " ".join(sources) or None


def allow_partitioned_cookies() -> None:
    """Let a cookie be set with ``partitioned=True`` (Python 3.14's Morsel already allows it)."""
    from http.cookies import Morsel

    if "partitioned" in Morsel._reserved:
        return
    Morsel._reserved["partitioned"] = "Partitioned"
    Morsel._flags.add("partitioned")


def allow_lms_frame(c, environ=os.environ) -> None:
    """Set the server's frame-ancestors policy from the hub's setting, if it gave one."""
    ancestors = frame_ancestors(SETTINGS.value("frame_ancestors", environ))
    if ancestors is None:
        return
    allow_partitioned_cookies()
    # A plain dict, not a LazyConfigValue's update: jupyterhub-singleuser looks inside the setting as
    # the config holds it.  Other tornado settings and headers already given are kept.
    given = c.ServerApp.get("tornado_settings")
    settings = dict(given) if isinstance(given, dict) else {}
    settings["headers"] = {**settings.get("headers", {}), "Content-Security-Policy": f"frame-ancestors {ancestors}"}
    # The server's own _xsrf cookie (jupyterhub's xsrf utilities read these): the hub's options reach
    # only the cookies jupyterhub-singleuser sets through HubOAuth, and JupyterLab in the frame sends
    # no request its server accepts without this one.
    settings["xsrf_cookie_kwargs"] = {**settings.get("xsrf_cookie_kwargs", {}), **FRAME_COOKIES}
    c.ServerApp.tornado_settings = settings
