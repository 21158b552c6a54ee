"""The formgrader behind the hub: its grading server is the hub's service /services/<course id>/, run in
the course folder (``--ServerApp.root_dir=<course root>``, hub/jupyterhub_config.py).  What nbgrader 0.9.6
renders on the server carries that prefix; the two links its script builds in a page of its own (the
assignment's name and *Preview*, utils.js's ``linkTo``) do not: jupyter/nbgrader#1794, no setting reaches
them.  The page is rendered here with nbgrader's own templates, and ``linkTo`` is run in node."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from jinja2 import Environment, FileSystemLoader
from nbgrader.server_extensions.formgrader import handlers

SERVICE = "/services/autograd-course"  # the handler's base_url: JupyterHub's prefix, its last "/" taken off
COURSE_ROOT = "/srv/autograd-course"
URL_PREFIX = os.path.relpath(COURSE_ROOT, COURSE_ROOT)  # FormgradeExtension.url_prefix: the course from the root


def manage_assignments() -> str:
    """The page *Manage Assignments*, as ManageAssignmentsHandler renders it in the grading service."""
    page = Environment(loader=FileSystemLoader([handlers.template_path])).get_template("manage_assignments.tpl")
    return page.render(url_prefix=URL_PREFIX, base_url=SERVICE, windows=False, course_id="autograd-course",
                       exchange="/srv/nbgrader/exchange", exchange_missing=False, current_config={})  # fmt: skip


def link_to(path: str, in_a_frame: bool) -> dict:
    """What the formgrader's script makes of a link to ``path``: an href, or a message to JupyterLab."""
    if not shutil.which("node"):
        pytest.skip("node runs the formgrader's script here; it is not installed")
    script = """
const vm = require("vm"), fs = require("fs");
const [source, path, inFrame] = JSON.parse(process.argv[1]);
const top = {}, window = inFrame ? {top: top, parent: {postMessage: (m) => sent.push(JSON.parse(m))}} : top;
if (!inFrame) window.top = window;
const sent = [], element = {};
const $ = (el) => ({attr(k, v) { element[k] = v; return this; }, click(f) { f(); return this; }, 0: el});
const context = vm.createContext({window, $, base_url: %s, url_prefix: %s});
vm.runInContext(fs.readFileSync(source, "utf8") + "\\nthis.linkTo = linkTo;", context);
context.linkTo("directory", path)(0, element);
console.log(JSON.stringify({href: element.href, sent}));
""" % (json.dumps(SERVICE), json.dumps(URL_PREFIX))  # noqa: UP031 - the script's own braces stay as they are
    source = os.path.join(handlers.static_path, "js", "utils.js")
    done = subprocess.run(["node", "-e", script, json.dumps([source, path, in_a_frame])], capture_output=True,
                          text=True, check=True, timeout=60)  # fmt: skip
    return json.loads(done.stdout)


def test_what_the_server_renders_carries_the_services_prefix():
    page = manage_assignments()
    assert f'var base_url = "{SERVICE}";' in page and 'var url_prefix = ".";' in page
    absolute = re.findall(r'(?:href|src)="(/[^"]*)"', page)
    assert absolute and all(url.startswith(SERVICE + "/formgrader/") for url in absolute), absolute


def test_inside_the_grading_servers_jupyterlab_a_link_opens_the_course_folder():
    said = link_to(f"{URL_PREFIX}/source/lesson1", in_a_frame=True)
    assert said["sent"] == [{"command": "filebrowser:go-to-path", "arguments": {"path": "./source/lesson1"}}]


NBGRADER_1794 = "nbgrader 0.9.6 utils.js linkTo: prefix + path, without base_url (jupyter/nbgrader#1794)"


@pytest.mark.xfail(raises=AssertionError, strict=True, reason=NBGRADER_1794)
def test_in_a_page_of_its_own_an_assignments_link_keeps_the_services_prefix():
    assert link_to(f"{URL_PREFIX}/source/lesson1", in_a_frame=False)["href"].startswith(SERVICE + "/")
