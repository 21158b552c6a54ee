"""The exchange the course's nbgrader uses is the one docs/instructor.md tells an instructor to make.

Before, the root nbgrader_config.py named none: `nbgrader release_assignment` made nbgrader's
/usr/local/share/nbgrader/exchange while the guide had the instructor make /srv/nbgrader/exchange, and
the formgrader then said the exchange did not exist."""

from __future__ import annotations

import os

import pytest
from traitlets.config import Config

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DOCUMENTED = "/srv/nbgrader/exchange"


def loaded(path: str) -> Config:
    c = Config()
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), {"get_config": lambda: c, "__file__": path})
    return c


@pytest.fixture
def no_exchange_setting(monkeypatch):
    monkeypatch.delenv("AUTOGRADER_EXCHANGE", raising=False)
    monkeypatch.delenv("AUTOGRAD_EXCHANGE", raising=False)


def test_the_course_config_names_the_documented_exchange(no_exchange_setting):
    assert loaded(os.path.join(ROOT, "nbgrader_config.py")).Exchange.root == DOCUMENTED


def test_the_guide_makes_the_exchange_the_config_names():
    with open(os.path.join(ROOT, "docs", "instructor.md"), encoding="utf-8") as f:
        guide = f.read()
    assert f"install -d -m 1777 {DOCUMENTED}" in guide
    assert "/usr/local/share/nbgrader" not in guide


def test_the_hub_servers_and_the_course_folder_agree_on_the_exchange(no_exchange_setting):
    hub = loaded(os.path.join(ROOT, "hub", "etc", "jupyter", "nbgrader_config.py"))
    assert hub.Exchange.root == loaded(os.path.join(ROOT, "nbgrader_config.py")).Exchange.root


def test_autograder_exchange_names_another_exchange(monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOGRADER_EXCHANGE", str(tmp_path / "exchange"))
    assert loaded(os.path.join(ROOT, "nbgrader_config.py")).Exchange.root == str(tmp_path / "exchange")


def test_the_old_setting_name_still_names_it_with_a_warning(no_exchange_setting, monkeypatch, tmp_path):
    monkeypatch.setenv("AUTOGRAD_EXCHANGE", str(tmp_path / "old"))
    with pytest.warns(FutureWarning, match="set AUTOGRADER_EXCHANGE"):
        assert loaded(os.path.join(ROOT, "nbgrader_config.py")).Exchange.root == str(tmp_path / "old")
