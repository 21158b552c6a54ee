"""A jupyter_client kernel manager whose kernels are forked, sandboxed, from the warm server.

nbclient (and so nbgrader's Execute preprocessor) drives kernels through a KernelManager and
its provisioner.  ``SandboxProvisioner`` is a LocalProvisioner whose "process" is a forked job
of the warm server instead of a new interpreter, and ``SandboxKernelManager`` always uses it,
whatever kernel the notebook's metadata asks for.  Kernels listen on Unix sockets in their
private folder: TCP on 127.0.0.1 does not cross the sandbox's empty network namespace.
"""

from __future__ import annotations

import os
import shutil
import sys
import uuid
from types import MappingProxyType

from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from jupyter_client.provisioning import LocalProvisioner

from gradebox.limits import Limits

from ..host.client import JobProcess, shared_server, template_server
from ..host.limit_settings import SandboxLimits

#: What a grading kernel's environment holds besides the basics the sandbox's client gives every job:
#: nbgrader's word that the notebook is being autograded, and that its test cells' checks are scored
#: outside the kernel (its ``autograder.checks`` is the job side's stand-in, which says so anyway;
#: the variable tells any other code in the notebook the same).  The grader says it; the sandbox
#: only applies what a request carries (``gradebox.box.confine``).
KERNEL_ENV = MappingProxyType({"NBGRADER_EXECUTION": "autograde", "AUTOGRADER_CHECKS": "outside"})


def _copy_submission(source: str, target: str, limit: int) -> None:
    """Copy the files beside the notebook (never following links) into the kernel's folder, up to
    ``limit`` bytes in all (what the intake lets a submission hold)."""
    copied = 0
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
        destination = os.path.join(target, os.path.relpath(folder, source))
        os.makedirs(destination, exist_ok=True)
        for name in files:
            path = os.path.join(folder, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            copied += os.path.getsize(path)
            if copied > limit:
                return
            shutil.copyfile(path, os.path.join(destination, name))


class SandboxProvisioner(LocalProvisioner):
    """Launches the kernel as a job of the warm sandboxed server."""

    async def launch_kernel(self, cmd: list[str], **kwargs):
        km = self.parent
        work_dir = os.path.join(km.job_dir, "work")
        os.makedirs(work_dir, exist_ok=True)
        cwd = kwargs.get("cwd")
        limits = km.limits()
        if cwd and os.path.isdir(cwd):
            _copy_submission(cwd, work_dir, limits.submission_bytes)
        self.process = km.server.spawn_kernel(km.job_dir, km.connection_file, limits, KERNEL_ENV)
        self.pid, self.pgid = self.process.pid, None
        self.cwd = work_dir
        return self.connection_info

    async def cleanup(self, restart: bool = False) -> None:
        await super().cleanup(restart)
        km = self.parent
        if not restart and km is not None and km.job_dir:
            shutil.rmtree(km.job_dir, ignore_errors=True)


class SandboxKernelManager(AsyncKernelManager):
    """Every kernel is a sandboxed Python kernel, whatever the notebook's kernelspec says."""

    job_dir = ""
    server = None
    template: list[str] | None = None  # shared cells this kernel should start after (see execute.py)

    def limits(self) -> Limits:
        """The course's limits (gradebox/limits.py), as nbgrader_config.py sets them."""
        return SandboxLimits(parent=self).limits()

    @property
    def kernel_spec(self) -> KernelSpec:
        return KernelSpec(
            argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            display_name="Python 3 (autograder sandbox)",
            language="python",
            interrupt_mode="signal",
            metadata={},
        )

    async def _async_pre_start_kernel(self, **kw):
        self.kernel_name = "python3"
        if not self.job_dir:
            self.server = (template_server(self.template) if self.template else None) or shared_server("kernel")
            self.job_dir = self.server.new_job_dir()
            self.transport = "ipc"
            self.ip = os.path.join(self.job_dir, "k")
            self.connection_file = os.path.join(self.job_dir, "kernel.json")
        self.kernel_id = self.kernel_id or str(uuid.uuid4())
        if self.provisioner is None:
            self.provisioner = SandboxProvisioner(kernel_id=self.kernel_id, kernel_spec=self.kernel_spec, parent=self)
        return await super()._async_pre_start_kernel(**kw)

    pre_start_kernel = _async_pre_start_kernel

    def started_from_template(self) -> bool:
        return bool(self.template) and self.server is not shared_server("kernel")

    def stop_reason(self) -> str:
        process = getattr(self.provisioner, "process", None)
        return process.describe_end() if isinstance(process, JobProcess) else "the kernel stopped"

    def kill_for(self, reason: str) -> None:
        """Stop the kernel at once (and every process it started) for the given reason."""
        process = getattr(self.provisioner, "process", None)
        if isinstance(process, JobProcess):
            process.kill(reason)
