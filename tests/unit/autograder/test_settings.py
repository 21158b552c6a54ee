"""One registry of settings (autograder/settings.py, over gradebox/settings.py): each setting declared once,
read from the environment and nbgrader's config in one place, checked, and printed by
``python -m autograder settings``; the old AUTOGRAD_ names still count, with a warning."""

import ast
import glob
import json
import os
import warnings

import pytest
from traitlets.config import Config

from autograder.cli import main
from autograder.host.limit_settings import DEFAULT_JOBS, SandboxLimits
from autograder.settings import GROUPS, SETTINGS, SettingError, default_jobs, renamed
from gradebox.limits import DEFAULTS, LIMITS, Limits
from tests.conftest import ROOT

# The nbgrader settings of today's nbgrader_config.py files and docs: their names stay.
SANDBOX_TRAITS = ["memory_mb", "max_processes", "file_size_mb", "disk_mb", "output_mb", "output_item_mb",
                  "check_seconds", "cell_seconds", "notebook_seconds", "judge_seconds", "judge_memory_mb"]  # fmt: skip


def config(**sections) -> Config:
    found = Config()
    for section, values in sections.items():
        for key, value in values.items():
            found[section][key] = value
    return found


# -- defaults --------------------------------------------------------------------------------------
def test_with_nothing_set_every_setting_is_its_default_from_its_default():
    values = SETTINGS.read(environ={})
    for setting in SETTINGS:
        assert values[setting.name].value == setting.default_value()
        assert (values[setting.name].source, values[setting.name].origin) == ("default", "")


def test_the_limits_dataclass_and_the_nbgrader_class_take_their_defaults_from_the_registry():
    assert DEFAULTS == Limits() == SandboxLimits().limits()
    assert DEFAULTS.as_dict() == {setting.name: setting.default for setting in LIMITS}
    assert [s.name for s in SETTINGS.group("limits")] == SANDBOX_TRAITS
    assert sorted(SandboxLimits.class_trait_names(config=True)) == sorted(SANDBOX_TRAITS)
    assert SandboxLimits.class_traits()["memory_mb"].help.startswith(SETTINGS["memory_mb"].help)


def test_the_jobs_default_is_one_more_than_the_cpus():
    assert DEFAULT_JOBS == default_jobs() == (os.cpu_count() or 1) + 1 == SETTINGS.value("jobs", {})


def test_every_setting_is_declared_once_in_a_known_group_with_one_line_of_help():
    names = [setting.name for setting in SETTINGS]
    assert len(names) == len(set(names))
    envs = [setting.env for setting in SETTINGS if setting.env]
    assert len(envs) == len(set(envs)) and all(env.startswith("AUTOGRADER_") for env in envs)
    for setting in SETTINGS:
        assert setting.group in GROUPS and setting.help and "\n" not in setting.help, setting.name
        assert setting.env or setting.trait, f"{setting.name}: read from nowhere"


# -- where a value comes from, and which wins ----------------------------------------------------------
def test_an_environment_variable_overrides_the_default():
    found = SETTINGS.read({"AUTOGRADER_JOBS": "7", "AUTOGRADER_HUB_PORT": "8443", "AUTOGRADER_SPAWNER": "systemd"})
    assert (found.jobs, found.hub_port, found.spawner) == (7, 8443, "systemd")
    assert (found["jobs"].source, found["jobs"].origin) == ("environment", "AUTOGRADER_JOBS")


def test_nbgrader_config_overrides_the_default():
    given = config(SandboxLimits={"memory_mb": 4096, "check_seconds": 7.5})
    found = SETTINGS.read({}, given)
    assert (found.memory_mb, found.check_seconds) == (4096, 7.5)
    assert (found["memory_mb"].source, found["memory_mb"].origin) == ("nbgrader config", "c.SandboxLimits.memory_mb")
    assert SandboxLimits(config=given).limits() == Limits(memory_mb=4096, check_seconds=7.5)


def test_nbgrader_config_wins_over_the_environment_which_wins_over_the_default():
    environ = {"AUTOGRADER_SECRET_FILE": "/env/secret", "AUTOGRADER_LMS_RECORD": "/env/record"}
    found = SETTINGS.read(environ, config(ScoreChecks={"secret_file": "/config/secret"}))
    assert (found.secret_file, found["secret_file"].source) == ("/config/secret", "nbgrader config")
    assert (found.lms_record, found["lms_record"].source) == ("/env/record", "environment")
    assert (found.scratch, found["scratch"].source) == ("", "default")


def test_an_empty_number_counts_as_unset_and_an_empty_text_is_a_value():
    found = SETTINGS.read({"AUTOGRADER_JOBS": " ", "AUTOGRADER_HUB_IP": ""})
    assert (found.jobs, found["jobs"].source) == (DEFAULT_JOBS, "default")
    assert (found.hub_ip, found["hub_ip"].source) == ("", "environment")


def test_a_text_keeps_its_spaces_and_a_number_loses_them():
    found = SETTINGS.read({"AUTOGRADER_SCRATCH": " /var/tmp/x ", "AUTOGRADER_JOBS": " 4\n"})
    assert (found.scratch, found.jobs) == (" /var/tmp/x ", 4)


# -- bad values ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "variable, value, says",
    [
        ("AUTOGRADER_JOBS", "abc", "AUTOGRADER_JOBS='abc': expected a whole number, 1 or more"),
        ("AUTOGRADER_JOBS", "0", "AUTOGRADER_JOBS='0': expected a whole number, 1 or more"),
        ("AUTOGRADER_JOBS", "2.5", "AUTOGRADER_JOBS='2.5': expected a whole number"),
        ("AUTOGRADER_HUB_PORT", "70000", "AUTOGRADER_HUB_PORT='70000': expected a whole number from 1 to 65535"),
        ("AUTOGRADER_EXCHANGE_KIND", "ftp", "AUTOGRADER_EXCHANGE_KIND='ftp': expected one of file, ngshare"),
        ("AUTOGRADER_LANGUAGE", "../../x", "AUTOGRADER_LANGUAGE='../../x': expected one of en, pt_BR"),
        ("AUTOGRADER_CPU_LIMIT", "nan", "AUTOGRADER_CPU_LIMIT='nan': expected a number of cores"),
        ("AUTOGRADER_MEM_LIMIT", "2 GB", "AUTOGRADER_MEM_LIMIT='2 GB': expected a size such as 2G"),
        ("AUTOGRADER_LTI_IN_FRAME", "maybe", "AUTOGRADER_LTI_IN_FRAME='maybe': expected 1 or 0"),
    ],
)
def test_a_bad_value_names_the_variable_the_value_and_what_is_expected(variable, value, says):
    with pytest.raises(SettingError, match=f"^{_escaped(says)}"):
        SETTINGS.read({variable: value})


def _escaped(text: str) -> str:
    import re

    return re.escape(text)


@pytest.mark.parametrize("value", ["4096", 4096.5, True, -1])
def test_a_bad_value_in_nbgrader_config_names_the_trait(value):
    with pytest.raises(SettingError, match=r"c\.SandboxLimits\.memory_mb="):
        SETTINGS.read({}, config(SandboxLimits={"memory_mb": value}))


def test_every_bad_value_is_named_at_once_and_none_is_applied():
    with pytest.raises(SettingError) as refused:
        SETTINGS.read({"AUTOGRADER_JOBS": "abc", "AUTOGRADER_HUB_PORT": "0", "AUTOGRADER_SPAWNER": "systemd"})
    assert [where for where, _, _ in refused.value.problems] == ["AUTOGRADER_JOBS", "AUTOGRADER_HUB_PORT"]
    assert "AUTOGRADER_SPAWNER" not in str(refused.value)


def test_the_nbgrader_class_refuses_a_limit_out_of_its_bounds():
    from traitlets import TraitError

    with pytest.raises(TraitError, match="memory_mb"):
        SandboxLimits(config=config(SandboxLimits={"memory_mb": 0}))


def test_a_setting_declared_twice_is_refused():
    from gradebox.settings import Settings

    with pytest.raises(ValueError, match="'jobs' is declared twice"):
        Settings([SETTINGS["jobs"], SETTINGS["jobs"]])


# -- the deprecated prefix -----------------------------------------------------------------------------
def test_new_name_read_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert SETTINGS.value("roster", {"AUTOGRADER_ROSTER": "/srv/roster.toml"}) == "/srv/roster.toml"


def test_old_name_counts_and_warns():
    with pytest.warns(FutureWarning, match="AUTOGRAD_ROSTER is deprecated: set AUTOGRADER_ROSTER"):
        found = SETTINGS.read({"AUTOGRAD_ROSTER": "/srv/old.toml"}, only=["roster"])
    assert (found.roster, found["roster"].origin) == ("/srv/old.toml", "AUTOGRAD_ROSTER")


def test_an_old_name_with_a_bad_value_is_named_as_it_was_given():
    with pytest.warns(FutureWarning), pytest.raises(SettingError, match="^AUTOGRAD_HUB_PORT='x'"):
        SETTINGS.read({"AUTOGRAD_HUB_PORT": "x"})


def test_new_name_wins_over_old():
    both = {"AUTOGRADER_DB_URL": "postgresql://new", "AUTOGRAD_DB_URL": "postgresql://old"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert SETTINGS.value("db_url", both) == "postgresql://new"


def test_unset_gives_default():
    assert SETTINGS.value("exchange_kind", {}) == "file"
    assert SETTINGS.value("ngshare_url", {}) == ""


def test_renamed_copies_unless_set():
    old = {"AUTOGRAD_HUB_PORT": "8000", "AUTOGRAD_DB_URL": "old", "AUTOGRADER_DB_URL": "new", "PATH": "/bin"}
    with pytest.warns(FutureWarning, match="AUTOGRAD_HUB_PORT"):
        found = renamed(old)
    assert found["AUTOGRADER_HUB_PORT"] == "8000" and found["AUTOGRADER_DB_URL"] == "new" and found["PATH"] == "/bin"


# -- the command -----------------------------------------------------------------------------------
def test_the_command_prints_every_setting_its_value_where_it_came_from_and_its_help(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("AUTOGRADER_JOBS", "5")
    monkeypatch.chdir(tmp_path)  # no nbgrader_config.py here
    assert main(["settings"]) == 0
    out = capsys.readouterr().out
    assert "  jobs = 5  [environment (AUTOGRADER_JOBS)]" in out
    assert "  memory_mb = 2048  [default]" in out
    for setting in SETTINGS:
        assert f"  {setting.name} = " in out and setting.help in out
    assert all(title in out for title in GROUPS.values())


def test_the_command_reads_nbgrader_config(monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("AUTOGRADER_JOBS", raising=False)
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.SandboxLimits.memory_mb = 4096\n")
    monkeypatch.chdir(tmp_path)
    assert main(["settings", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert list(rows) == [setting.name for setting in SETTINGS]
    assert rows["memory_mb"] | {"help": ""} == {
        "name": "memory_mb", "group": "limits", "value": 4096, "source": "nbgrader config",
        "origin": "c.SandboxLimits.memory_mb", "default": 2048, "env": None, "trait": "c.SandboxLimits.memory_mb",
        "expected": "a whole number, 1 or more", "help": "",
    }  # fmt: skip
    assert (rows["jobs"]["value"], rows["jobs"]["source"], rows["jobs"]["default"]) == (
        DEFAULT_JOBS, "default", "one more than the CPUs")  # fmt: skip


def test_the_command_never_shows_a_database_password(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("AUTOGRADER_DB_URL", "postgresql://autograd:s3cret@127.0.0.1:5432/gradebook_{course}")
    monkeypatch.setenv("AUTOGRADER_NGSHARE_DB_URL", "sqlite:////srv/hub/ngshare.sqlite")
    monkeypatch.chdir(tmp_path)
    assert main(["settings"]) == 0 and main(["settings", "--json"]) == 0
    out = capsys.readouterr().out
    assert "s3cret" not in out and out.count("postgresql://autograd:***@127.0.0.1:5432/gradebook_{course}") == 2
    assert out.count("sqlite:////srv/hub/ngshare.sqlite") == 2


def test_the_command_never_shows_a_password_in_a_database_url_query(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("AUTOGRADER_DB_URL", "postgresql://autograd@db/gradebook?sslmode=require&password=hunter2")
    monkeypatch.chdir(tmp_path)
    assert main(["settings"]) == 0
    out = capsys.readouterr().out
    assert "hunter2" not in out and "postgresql://autograd@db/gradebook?sslmode=require&password=***" in out


def test_the_command_stops_on_a_bad_value_naming_it(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("AUTOGRADER_JOBS", "abc")
    monkeypatch.chdir(tmp_path)
    assert main(["settings", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "AUTOGRADER_JOBS='abc': expected a whole number, 1 or more" in captured.err


def test_a_bad_value_in_the_config_stops_the_command_naming_the_trait(monkeypatch, tmp_path, capsys):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\nc.SandboxLimits.disk_mb = 'lots'\n")
    monkeypatch.chdir(tmp_path)
    assert main(["settings"]) == 2
    assert "c.SandboxLimits.disk_mb='lots'" in capsys.readouterr().err


def test_jobs_options_take_their_default_from_the_environment(monkeypatch):
    from autograder.cli import _parser

    monkeypatch.setenv("AUTOGRADER_JOBS", "6")
    assert _parser().parse_args(["grade", "lesson1_requires_grad"]).jobs == 6
    assert _parser().parse_args(["diagnose", "train_step", "x.py"]).jobs == 6


# -- nothing reads a setting behind the registry's back ----------------------------------------------------------
#: Variables with the prefix that are not settings but plumbing between our own processes.
PLUMBING = {
    # set by the grader for the kernels it starts (grading/kernel.py's KERNEL_ENV); a student's own
    # kernel never has it
    ("autograder/checks.py", "AUTOGRADER_CHECKS"),
    # hub/install.py marks the run it started again with the hub's Python, to stop a loop
    ("hub/install.py", "AUTOGRADER_INSTALL_REEXEC"),
}
#: Files that may not import the registry, and why.
OUTSIDE = {
    # the registry and its mechanism: where settings are read
    "autograder/settings.py",
    "gradebox/settings.py",
}
SCANNED = ["autograder/**/*.py", "gradebox/**/*.py", "hub/**/*.py", "course.py", "nbgrader_config.py"]


def raw_reads(source: str) -> list[tuple[int, str]]:
    """Every place ``source`` reads a variable named AUTOGRAD...: ``x.get("AUTOGRADER_X")``,
    ``os.getenv(...)``, ``environ["AUTOGRADER_X"]`` (not an assignment), ``"AUTOGRADER_X" in environ``,
    also through a module constant or an f-string that starts with the prefix."""
    tree = ast.parse(source)
    constants = {target.id: _named(node.value) for node in tree.body if isinstance(node, ast.Assign)
                 and _named(node.value) for target in node.targets if isinstance(target, ast.Name)}  # fmt: skip

    def named(node) -> str | None:
        if isinstance(node, ast.Name) and node.id in constants:
            return constants[node.id]
        return _named(node)

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            if node.func.attr in ("get", "getenv", "pop", "setdefault") and named(node.args[0]):
                found.append((node.lineno, named(node.args[0])))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and named(node.slice):
            found.append((node.lineno, named(node.slice)))
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
            if named(node.left):
                found.append((node.lineno, named(node.left)))
    return found


def _named(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("AUTOGRAD"):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and _named(node.values[0]):
        return _named(node.values[0]) + "..."
    return None


def test_the_reader_finds_every_kind_of_raw_read():
    source = """
import os
NAME = "AUTOGRADER_LMS_RECORD"
a = os.environ.get("AUTOGRADER_JOBS")
b = os.getenv("AUTOGRAD_ROSTER", "x")
c = os.environ["AUTOGRADER_PROXY"]
d = "AUTOGRADER_HUB_PORT" in os.environ
e = environment.get(f"AUTOGRADER_{field.upper()}")
f = os.environ.get(NAME)
os.environ["AUTOGRADER_WRITTEN"] = "x"
g = {"AUTOGRADER_LITERAL": "x"}
"""
    assert [name for _, name in raw_reads(source)] == [
        "AUTOGRADER_JOBS", "AUTOGRAD_ROSTER", "AUTOGRADER_PROXY", "AUTOGRADER_HUB_PORT", "AUTOGRADER_...",
        "AUTOGRADER_LMS_RECORD",
    ]  # fmt: skip


def test_no_setting_is_read_outside_the_registry():
    files = sorted({path for pattern in SCANNED for path in glob.glob(os.path.join(ROOT, pattern), recursive=True)})
    assert len(files) > 100  # the scan sees the packages
    raw = []
    for path in files:
        where = os.path.relpath(path, ROOT)
        if where in OUTSIDE:
            continue
        with open(path, encoding="utf-8") as f:
            raw += [f"{where}:{line} {name}" for line, name in raw_reads(f.read()) if (where, name) not in PLUMBING]
    assert raw == [], "read these through autograder.settings.SETTINGS (declare them there): " + ", ".join(raw)
