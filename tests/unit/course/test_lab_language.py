"""`course.py lab --lang pt_BR`: the Portuguese edition's notebooks in my-work/, JupyterLab's menus in
Portuguese (its own settings folder, whose translation setting names the locale), and the choice
remembered for my-work/ until another `--lang` is given."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.fixture
def course_py(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("course_script", os.path.join(ROOT, "course.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "WORK", str(tmp_path / "my-work"))
    monkeypatch.setattr(module, "CHOICES", str(tmp_path / "my-work" / ".course.json"))
    monkeypatch.setattr(module, "LAB_SETTINGS_DIRS", str(tmp_path / "settings"))
    return module


def test_lang_is_taken_out_of_jupyterlabs_options_and_remembered(course_py):
    assert course_py.chosen_language(["--no-browser", "--lang", "pt_BR", "--port", "9000"]) == (
        "pt_BR", ["--no-browser", "--port", "9000"])  # fmt: skip
    assert course_py.chosen_language(["--no-browser"]) == ("pt_BR", ["--no-browser"])
    assert course_py.chosen_language(["--lang=en"]) == ("en", [])
    assert course_py.chosen_language([]) == ("en", [])


def test_an_unknown_language_is_refused_and_names_the_known_ones(course_py):
    with pytest.raises(SystemExit, match="pt_BR"):
        course_py.chosen_language(["--lang", "../../etc"])
    assert not os.path.exists(course_py.CHOICES)


def test_a_damaged_memory_of_the_language_means_english(course_py):
    os.makedirs(course_py.WORK)
    for text in ("{", '{"language": "../x"}', "[1]"):
        with open(course_py.CHOICES, "w") as f:
            f.write(text)
        assert course_py.chosen_language([]) == ("en", [])


def test_a_portuguese_lab_reads_its_own_settings_folder_with_the_locale(course_py, tmp_path):
    environment = course_py.lab_environment({"AUTOGRADER_EXCHANGE": str(tmp_path)}, lang="pt_BR")
    plugin = os.path.join(environment["JUPYTERLAB_SETTINGS_DIR"], "@jupyterlab", "translation-extension",
                          "plugin.jupyterlab-settings")  # fmt: skip
    assert json.load(open(plugin)) == {"locale": "pt_BR"}
    assert "JUPYTERLAB_SETTINGS_DIR" not in course_py.lab_environment({"AUTOGRADER_EXCHANGE": str(tmp_path)}, lang="en")


def test_only_the_chosen_editions_notebooks_are_copied(course_py):
    course_py.copy_student_notebooks("pt_BR")
    assert sorted(os.listdir(course_py.WORK)) == sorted(f"{a}.ipynb" for a in os.listdir(os.path.join(ROOT, "release"))
                                                     if a.endswith("_pt_br"))  # fmt: skip
    course_py.copy_student_notebooks("en")
    assert len(os.listdir(course_py.WORK)) == len(os.listdir(os.path.join(ROOT, "release")))


def test_jupyterlab_has_the_brazilian_portuguese_language_pack():
    found = subprocess.run([sys.executable, "-c", "from jupyterlab_server.translation_utils import "
                            "get_language_packs; print(sorted(get_language_packs('en')[0]))"],
                           capture_output=True, text=True, check=True)  # fmt: skip
    assert "pt_BR" in found.stdout
