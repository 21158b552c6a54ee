"""The Portuguese edition stays whole and current: every catalogue is complete, no entry is fuzzy
(an English sentence changed and its translation was not looked at again) or obsolete, every
translation keeps its {fields}, code spans and Python, the glossary's refused words appear nowhere,
and what `sync` builds from the catalogues (the notebooks, the packages' .mo files) is what is
committed."""

import json
import os
import re
import shutil

import pytest

import course_i18n
from tests.conftest import ROOT

DOMAINS = (*course_i18n.LESSONS, "course", *course_i18n.PACKAGES)


def refused_words() -> list[str]:
    text = open(os.path.join(ROOT, "locale", "pt_BR", "GLOSSARY.md"), encoding="utf-8").read()
    section = text.split("## 8. Never in a translation", 1)[1]
    return re.findall(r"`([^`]+)`", section.split("\n\n", 2)[2])


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_catalogue_is_complete_current_and_keeps_fields_code_spans_and_python(domain):
    assert course_i18n.problems(domain) == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_no_translation_uses_a_word_the_glossary_refuses(domain):
    catalog = course_i18n.read_catalog(course_i18n.po_path(domain), "pt_BR")
    words = refused_words()
    assert "resetar" in words
    for message in catalog:
        strings = message.string if isinstance(message.string, tuple | list) else [message.string]
        for string in strings:
            for word in words:
                assert not re.search(rf"(?<!\w){re.escape(word)}", (string or "").lower()), (message.context, word)


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_committed_template_is_what_the_sources_give(domain):
    with open(course_i18n.pot_path(domain), "rb") as f:
        assert f.read() == course_i18n.catalog_text(course_i18n.template_of(domain), template=True), (
            "run `python3 course.py sync`"
        )


@pytest.mark.parametrize("domain", [*course_i18n.PACKAGES, "course"])
def test_each_compiled_catalogue_is_what_sync_compiles(domain):
    path = (
        course_i18n.mo_path(domain)
        if domain in course_i18n.PACKAGES
        else os.path.join(ROOT, "locale", "pt_BR", "LC_MESSAGES", "course.mo")
    )
    with open(path, "rb") as f:
        assert f.read() == course_i18n.compiled(domain, "pt_BR"), "run `python3 course.py sync`"


@pytest.mark.parametrize("lesson", course_i18n.LESSONS)
def test_each_portuguese_source_is_what_sync_builds_from_the_english_and_the_catalogue(lesson):
    with open(os.path.join(ROOT, "notebooks", lesson, f"{lesson}.ipynb"), encoding="utf-8") as f:
        english = json.load(f)
    catalog = course_i18n.read_catalog(course_i18n.po_path(lesson), "pt_BR")
    built = course_i18n.translated(english, catalog, lesson)
    path = os.path.join(ROOT, "notebooks", f"{lesson}_pt_br", f"{lesson}_pt_br.ipynb")
    with open(path, encoding="utf-8") as f:
        committed = json.load(f)
    generated = ("badges", "install", "time")
    assert [c for c in committed["cells"] if c.get("id") not in generated] == [
        c for c in built["cells"] if c.get("id") not in generated
    ], "run `python3 course.py sync`"
    assert committed["metadata"]["autograd_course"] == {"lesson": lesson, "language": "pt_BR"}


def test_a_placeholder_lost_in_translation_is_reported(tmp_path, monkeypatch):
    catalog = course_i18n.new_catalog("course", "pt_BR")
    catalog.add("the core path (sections {first}–{last})", "a trilha principal (seções {first})")
    monkeypatch.setattr(course_i18n, "LOCALE", str(tmp_path))
    os.makedirs(os.path.dirname(course_i18n.po_path("course")))
    with open(course_i18n.po_path("course"), "wb") as f:
        f.write(course_i18n.catalog_text(catalog))
    found = course_i18n.problems("course")
    assert any("{fields} differ" in line for line in found)
    assert any("missing" in line for line in found)


def test_changing_an_english_sentence_fails_the_catalogue_until_it_is_translated_again(tmp_path):
    lesson = "lesson3_zeroing_grad"
    shutil.copytree(os.path.join(ROOT, "locale"), tmp_path / "locale")
    shutil.copytree(os.path.join(ROOT, "notebooks", lesson), tmp_path / "notebooks" / lesson)
    assert course_i18n.problems(lesson, root=str(tmp_path)) == []
    path = tmp_path / "notebooks" / lesson / f"{lesson}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c.get("id") == "s03-bug-01")
    cell["source"] = "".join(cell["source"]).replace("loop", "training loop", 1)
    path.write_text(json.dumps(nb), encoding="utf-8")
    found = course_i18n.problems(lesson, root=str(tmp_path))
    assert any("s03-bug-01" in line and "not in the English any more" in line for line in found), found
    # sync brings the catalogue up to the English: the old translation comes back fuzzy, still failing
    course_i18n.update_catalogues([lesson], str(tmp_path))
    found = course_i18n.problems(lesson, root=str(tmp_path))
    assert any("s03-bug-01" in line and "fuzzy" in line for line in found), found
