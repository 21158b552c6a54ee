"""Outside the sandbox: the bubblewrap command that starts the warm server, and how a job ended.

``bwrap_command`` builds the server's root from an allow-list, not by hiding things: the system's
programs and libraries, the Python environment, the job-side package (``gradebox``) and the lessons'
helpers (``gradlessons``, which notebooks import), each from wherever the grader imported it,
read-only; the exercises' declarations and job sides (``gradexercises/*/job.py``), bound file by
file onto an empty folder, so that no judge is there; and one scratch folder.  The grader's own
package (``autograder``: the judge, grading, the CLI, everything that knows a right answer) is not
bound: nothing of it exists inside, for no job and not the server either.  Where it lies inside a
bound folder anyway (installed into the Python environment's site-packages, beside everything
else), that one folder is covered by an empty read-only file system, and so is any second copy of
the exercises.  The course (gradebook.db, notebooks/, release/, other students' work), home folders
and everything else do not exist inside.  No network.

``gradebox/box/confine.py`` is the other half of the policy: what each job does to itself, inside.

Without bubblewrap nothing runs: ``bubblewrap()`` raises ``SandboxError`` with one message, which
``diagnose``, ``grade`` and ``nbgrader autograde`` all show.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from functools import lru_cache

from ..settings import SETTINGS

NO_BUBBLEWRAP = (
    "bubblewrap (bwrap) is not installed, so student code cannot be run safely here. Install it "
    "(on Debian or Ubuntu: apt-get install bubblewrap) and run the command again."
)


class SandboxError(RuntimeError):
    """The sandbox cannot run here, or could not start; no student code ran."""


@lru_cache(maxsize=4)
def _probe(binary: str) -> str:
    """'' when this bubblewrap can build a sandbox here, else why not."""
    args = [binary, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid"]
    if os.geteuid() != 0:
        args.append("--unshare-user")
    done = subprocess.run([*args, "true"], capture_output=True, text=True)
    return "" if done.returncode == 0 else done.stderr.strip()[:300]


PROC_MASKED = (
    "The sandbox needs to mount a fresh /proc for each job, and this machine (or container) does not "
    "allow it: /proc is masked. In a container, run it with an unmasked /proc (Kubernetes: "
    "securityContext.procMount: Unmasked, which needs hostUsers: false; podman/docker: --security-opt "
    "unmask=ALL or systempaths=unconfined), or privileged."
)


def bubblewrap() -> str:
    """The bwrap binary, checked to work here; ``SandboxError`` if there is none that does.
    AUTOGRADER_BWRAP names another binary (the tests use it to simulate a machine without one)."""
    found = shutil.which(SETTINGS.value("bwrap") or SETTINGS.default("bwrap"))  # an empty one: the default
    if found is None:
        raise SandboxError(NO_BUBBLEWRAP)
    why = _probe(found)
    if "mount proc" in why:
        raise SandboxError(f"{PROC_MASKED} ({why})")
    if why:
        raise SandboxError(f"bubblewrap cannot build a sandbox on this machine ({why}); student code was not run.")
    return found


def _package_folders() -> list[str]:
    """The folders of the job-side package and of the lessons' helpers, wherever they were imported
    from (a clone, a wheel, an editable install): all of the course's code a job may see."""
    from importlib.util import find_spec

    import gradebox

    helpers = find_spec("gradlessons")  # by path: the grader need not import the lessons' helpers
    lessons = [os.path.dirname(os.path.abspath(helpers.origin))] if helpers and helpers.origin else []
    return [os.path.dirname(os.path.abspath(gradebox.__file__)), *lessons]


def grader_folder() -> str:
    """The grader's own package, ``autograder/``, wherever it was imported from."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # <root>/autograder/host/bwrap.py


def exercises_folder() -> str:
    """The exercises' package, ``gradexercises/``, wherever it was imported from: a job sees only its
    declarations and job sides (``gradexercises.job_side_files``), never a judge."""
    import gradexercises

    return gradexercises.FOLDER


#: Where a Python installs packages below a prefix: site-packages, and Debian's dist-packages.
SITE_FOLDERS = (
    "lib/python3*/site-packages", "lib/python3*/dist-packages", "lib/python3/dist-packages",
    "lib64/python3*/site-packages", "local/lib/python3*/site-packages", "local/lib/python3*/dist-packages",
)  # fmt: skip


def _copies(package: str, imported: str) -> list[str]:
    """Every copy of ``package`` this Python could import, or a job could read: the one it imported,
    any other on its import path or in its site-packages, and any installed below a folder the
    sandbox binds whole (the base interpreter a virtual environment was made from, /usr, /usr/local:
    a venv's site module does not list those).  A clone graded in place while ``pip install .`` also
    put a copy into an environment (Binder's postBuild does) has two, and the second matters as much."""
    import glob
    import site

    roots = [*sys.path, *site.getsitepackages(), site.getusersitepackages()]
    for top in {*readable_paths(), *SYSTEM_FOLDERS}:
        roots += [found for pattern in SITE_FOLDERS for found in glob.glob(os.path.join(top, pattern))]
    found = {os.path.realpath(imported): imported}
    for root in filter(None, roots):
        other = os.path.join(os.path.abspath(root), package)
        if os.path.isfile(os.path.join(other, "__init__.py")):
            found.setdefault(os.path.realpath(other), other)  # lib64 -> lib: one folder, covered once
    return sorted(found.values())


def grader_copies() -> list[str]:
    """Every copy of the grader's package this Python could import (``_copies``)."""
    return _copies("autograder", grader_folder())


def _covered() -> list[str]:
    """Each copy of the grader's package, and each copy of the exercises' other than the one a job
    reads (``_exercise_binds``), that a bound folder holds (installed into site-packages beside the
    rest, in the environment or the system's): covered, so that no job can see one.  In a clone they
    lie outside every bound folder and do not exist inside at all."""
    tops = [*readable_paths(), *SYSTEM_FOLDERS]
    judges = [c for c in _copies("gradexercises", exercises_folder()) if c != exercises_folder()]
    return [c for c in [*grader_copies(), *judges] if any(os.path.commonpath([c, top]) == top for top in tops)]


def _exercise_binds() -> list[str]:
    """The exercises' folder as an empty file system that holds only its job-side files, bound one by
    one: what a job may read of an exercise is a list of what it may, not of what it may not."""
    import gradexercises

    folder, made = exercises_folder(), set()
    args = ["--tmpfs", folder]
    for path in gradexercises.job_side_files(folder):
        parent = os.path.dirname(path)
        if parent != folder and parent not in made:
            args += ["--perms", "0755", "--dir", parent]
            made.add(parent)
        args += ["--ro-bind", path, path]
    return [*args, "--remount-ro", folder]


def package_roots() -> list[str]:
    """The folders the job side's packages were imported from: the server imports them from the
    same place, whichever course folder is graded."""
    return sorted({os.path.dirname(folder) for folder in [*_package_folders(), exercises_folder()]})


def readable_paths() -> list[str]:
    """All a job needs to read besides the system: the Python environment and the job side's packages."""
    paths = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)), *_package_folders()}
    return sorted(p for p in paths if os.path.isdir(p))


def unreadable_by_jobs(packages: list[str], folders: list[str]) -> list[str]:
    """What another user could not read: a folder without read and search permission for others, a
    file without read permission; in ``packages`` every file and folder, in ``folders`` (the Python
    environment's, thousands of files) only each folder itself.  As root, every job runs as a user
    of its own, so what the sandbox binds must be readable by any user; a copy made under umask 077
    is not, and its jobs would fail to import the lessons' helpers half-way through a notebook."""
    found = [f for f in folders if os.stat(f).st_mode & 0o005 != 0o005]
    for top in packages:
        for folder, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            if os.stat(folder).st_mode & 0o005 != 0o005:
                found.append(folder)
            found += [os.path.join(folder, f) for f in files if not os.stat(os.path.join(folder, f)).st_mode & 0o004]
    return found


def check_readable_by_jobs() -> None:
    """``SandboxError`` when jobs, running as other users, could not read what they import."""
    if os.geteuid() != 0:
        return  # every job keeps the grader's user id: what the grader reads, they read
    tops, packages = readable_paths(), [*_package_folders(), exercises_folder()]
    found = unreadable_by_jobs(packages, [t for t in tops if t not in packages])
    if found:
        shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
        fix = " ".join(t for t in [*tops, exercises_folder()] if any(f == t or f.startswith(t + os.sep) for f in found))
        raise SandboxError(
            f"student code runs as other users here, and they cannot read {shown}: readable by their owner "
            f"only, as a copy made under umask 077 is. Make them readable by everyone (chmod -R a+rX {fix}) "
            "and run the command again; no student code was run."
        )


#: The system's folders every server binds (read-only), besides /dev, /proc and /tmp.
SYSTEM_FOLDERS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64")


def _system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64"):
        path = "/" + name
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args + ["--ro-bind", "/etc", "/etc", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]


def _parents(path: str) -> list[str]:
    parts = os.path.normpath(path).split(os.sep)[1:-1]
    return [os.sep + os.path.join(*parts[: i + 1]) for i in range(len(parts))]


def _cover(folders: list[str]) -> list[str]:
    """Arguments that make each folder an empty read-only file system."""
    return [arg for folder in folders for arg in ("--tmpfs", folder, "--remount-ro", folder)]


def bwrap_command(scratch: str, command: list[str]) -> list[str]:
    """``command`` run in a new sandbox whose only writable place is ``scratch``, and where nothing of
    the grader's package exists (``_covered``)."""
    args = [bubblewrap(), *_system_binds()]
    check_readable_by_jobs()
    made: set[str] = {"/usr", "/etc", "/dev", "/proc", "/tmp", "/bin", "/lib", "/lib64", "/sbin"}
    for path in [*readable_paths(), exercises_folder(), scratch]:
        for parent in _parents(path):
            if parent not in made and not any(parent.startswith(m + "/") for m in ("/usr", "/etc")):
                args += ["--perms", "0755", "--dir", parent]  # bwrap would make it 0700
                made.add(parent)
    for path in readable_paths():
        args += ["--ro-bind", path, path]
    args += _cover(_covered())
    args += _exercise_binds()
    args += ["--bind", scratch, scratch]
    # /tmp is read-only: a place shared by all jobs would let them pass files around. (A private
    # tmpfs per job would hide an environment or scratch folder that lives under /tmp.)
    args += ["--remount-ro", "/tmp"]
    if os.geteuid() != 0:
        # Without root, a user namespace gives the server the capabilities it needs to build each
        # job's namespaces; every job drops them all (confine).
        args += ["--unshare-user"]
    args += [
        "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
        # Not --die-with-parent: it ties the sandbox to the *thread* that started it. The server
        # ends instead when the grader's end of its socket closes, which happens however the grader ends.
        "--new-session", "--cap-add", "ALL",
        "--clearenv", "--setenv", "PATH", f"{os.path.dirname(sys.executable)}:/usr/bin:/bin",
        "--setenv", "LANG", "C.UTF-8", "--setenv", "HOME", scratch,
        "--setenv", "XDG_CACHE_HOME", os.path.join(scratch, "cache"),
        "--setenv", "MPLCONFIGDIR", os.path.join(scratch, "matplotlib"),
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
        "--setenv", "TMPDIR", os.path.join(scratch, "tmp"), "--chdir", scratch,
        *command,
    ]  # fmt: skip
    return args


# ---- how a job ended, in words ----------------------------------------------------------------

SIGNAL_WORDS = {
    "SIGSEGV": "it crashed (a segmentation fault)",
    "SIGKILL": "it was killed",
    "SIGABRT": "it aborted",
    "SIGBUS": "it crashed (a bus error)",
    "SIGFPE": "it crashed (a floating-point fault)",
    "SIGXCPU": "it used up its CPU time",
    "SIGXFSZ": "it wrote too large a file",
}


def describe_signal(number: int) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"it was stopped by signal {number}"
    return f"{SIGNAL_WORDS.get(name, 'it was stopped by a signal')} ({name})"
