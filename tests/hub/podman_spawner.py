"""A JupyterHub spawner that starts each user's server in the course image with podman: what
KubeSpawner does on Kubernetes (one pod per user, from the image of hub/k8s/values.yaml), played on
one machine for tests/hub/test_image_on_hub.py.  Only the environment the hub gives a server
(``JUPYTERHUB_*``) and the image's own settings cross into the container; the host's paths do not.
"""

from __future__ import annotations

import os

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Dict, List, Unicode

from tests.hub.image import LIMITS


class PodmanSpawner(LocalProcessSpawner):
    """Set ``cmd`` to podman with its global options (tests.hub.image.PODMAN)."""

    image = Unicode(help="the image every user's server runs").tag(config=True)
    podman_options = List(Unicode(), help="more options of `podman run` (user, volumes)").tag(config=True)
    image_environment = Dict(help="environment inside the container, besides the hub's").tag(config=True)
    name_template = Unicode("jupyter-{username}", help="the container's name").tag(config=True)

    def make_preexec_fn(self, name):
        return None  # podman runs as the hub's account; the image's user runs the server

    def user_env(self, env: dict) -> dict:
        return {**env, "USER": self.user.name}

    def get_env(self) -> dict:
        env = super().get_env()
        self._inside = {k: v for k, v in env.items() if k.startswith("JUPYTERHUB_") or k.startswith("JPY_")}
        self._inside.update(self.image_environment)
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **self._inside}

    def get_args(self) -> list[str]:
        names = [f"--env={name}" for name in sorted(self._inside)]  # values come from podman's environment
        container = self.name_template.format(username=self.user.name)
        return ["run", "--rm", "--name", container, "--network", "host", *LIMITS, *self.podman_options, *names,
                self.image, "jupyterhub-singleuser", *super().get_args()]  # fmt: skip
