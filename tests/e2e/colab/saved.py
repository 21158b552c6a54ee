"""A notebook as Google Colab saves it (File → Download .ipynb, or the copy Colab keeps in Drive).

What Colab changes, read off notebooks that Colab wrote:
- the file is nbformat 4.0 (`"nbformat_minor": 0`): cells have no top-level `id`; Colab keeps
  its own cell id in `metadata.id` instead, a random 12-character string, new for every cell
  the notebook did not bring with it, so every cell id the course handed out is gone;
- the notebook's metadata becomes Colab's: `colab` (`provenance`, `name`, `toc_visible`, ...),
  a two-field `kernelspec` (`python3`, "Python 3"), `language_info` with only a name, and the
  state of every widget under `widgets`;
- every executed code cell stores its outputs, an `execution_count`, and in its metadata
  `colab` (`base_uri`, `height`), `outputId` and `executionInfo` (timings, the user's name);
- "Save a copy in GitHub" adds a markdown cell with an "Open In Colab" link at the top
  (`metadata.id == "view-in-github"`, `include_colab_link`);
- metadata the notebook brought (here: nbgrader's, `deletable`, `editable`) is kept by Colab in
  the cases seen, but cells pasted from elsewhere, re-created or converted by students have none.
  `strip` simulates that loss for the answer cells or for every cell.
"""

from __future__ import annotations

import base64
import copy
import random
import string
import uuid

# A real 1x1 PNG: what a matplotlib output stores, in miniature.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360f8cfc00000030101005c2d7fb40000000049454e44ae426082"
    )
).decode()
ID_CHARACTERS = string.ascii_letters + string.digits + "_-"


def is_answer(cell: dict) -> bool:
    return bool(cell.get("metadata", {}).get("nbgrader", {}).get("solution"))


def stored_outputs(cell: dict, index: int, rng: random.Random, widgets: dict) -> list[dict]:
    """Outputs of the kinds Colab stores, different from cell to cell."""
    source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    if "%pip install" in source:
        return [
            {"output_type": "stream", "name": "stdout", "text": ["  Preparing metadata (pyproject.toml) ... done\n"]}
        ]
    kind = index % 5
    if kind == 0:
        return [{"output_type": "stream", "name": "stdout", "text": ["tensor([1., 2., 3.])\n", "done\n"]}]
    if kind == 1:
        return [
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {"image/png": PNG, "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
            }
        ]
    if kind == 2:
        model = uuid.UUID(int=rng.getrandbits(128)).hex
        widgets[model] = {
            "model_module": "@jupyter-widgets/controls",
            "model_name": "ButtonModel",
            "model_module_version": "1.5.0",
            "state": {"description": "loss.backward()", "layout": "IPY_MODEL_" + model[::-1]},
        }
        return [
            {
                "output_type": "display_data",
                "metadata": {},
                "data": {
                    "application/vnd.jupyter.widget-view+json": {
                        "model_id": model,
                        "version_major": 2,
                        "version_minor": 0,
                    },
                    "text/plain": ["VBox(children=(HBox(children=(Button(description='loss.backward()'),)),))"],
                },
            }
        ]
    if kind == 3:
        return [
            {
                "output_type": "execute_result",
                "execution_count": index,
                "metadata": {},
                "data": {"text/plain": ["0.25"]},
            }
        ]
    return [
        {
            "output_type": "error",
            "ename": "NotImplementedError",
            "evalue": "",
            "traceback": [
                "\u001b[0;31mNotImplementedError\u001b[0m                       Traceback (most recent call last)"
            ],
        },
        {
            "output_type": "stream",
            "name": "stderr",
            "text": ["/usr/local/lib/python3.12/dist-packages/x.py:1: Warning\n"],
        },
    ]


def colab_saved(nb: dict, *, strip: str = "none", seed: int = 0, github_link: bool = False, name: str = "") -> dict:
    """`nb` (an nbformat 4.x notebook as a dict) as Colab would save it after running it.

    strip: "none" keeps the metadata the notebook brought; "answers" drops it from the answer
    cells; "all" from every cell (only Colab's own keys are left).
    """
    if strip not in ("none", "answers", "all"):
        raise ValueError(f"strip must be 'none', 'answers' or 'all', not {strip!r}")
    rng = random.Random(seed)
    widgets: dict = {}
    cells = []
    if github_link:
        cells.append(
            {
                "cell_type": "markdown",
                "metadata": {"id": "view-in-github", "colab_type": "text"},
                "source": [
                    '<a href="https://colab.research.google.com/github/someone/course/blob/main/x.ipynb" '
                    'target="_parent"><img src="https://colab.research.google.com/assets/colab-badge.svg" '
                    'alt="Open In Colab"/></a>'
                ],
            }
        )
    for index, original in enumerate(nb["cells"]):
        cell = copy.deepcopy(original)
        cell.pop("id", None)  # nbformat 4.0 has no cell ids
        kept = cell.get("metadata", {})
        if strip == "all" or (strip == "answers" and is_answer(original)):
            kept = {}
        metadata = {**kept, "id": "".join(rng.choice(ID_CHARACTERS) for _ in range(12))}
        if isinstance(cell["source"], str):
            cell["source"] = cell["source"].splitlines(keepends=True)
        if cell["cell_type"] == "code":
            cell["execution_count"] = index + 1
            cell["outputs"] = stored_outputs(cell, index, rng, widgets)
            metadata.update(
                colab={"base_uri": "https://localhost:8080/", "height": 40 + rng.randrange(400)},
                outputId=str(uuid.UUID(int=rng.getrandbits(128))),
                executionInfo={
                    "status": "ok",
                    "timestamp": 1764500000000 + 1000 * index,
                    "user_tz": -60,
                    "elapsed": rng.randrange(5, 4000),
                    "user": {"displayName": "A Student", "userId": "01234567890123456789"},
                },
            )
        cell["metadata"] = metadata
        cells.append(cell)
    colab = {"provenance": [], "toc_visible": True}
    if name:
        colab["name"] = name
    if github_link:
        colab["include_colab_link"] = True
    return {
        "nbformat": 4,
        "nbformat_minor": 0,
        "metadata": {
            "colab": colab,
            "kernelspec": {"name": "python3", "display_name": "Python 3"},
            "language_info": {"name": "python"},
            "widgets": {"application/vnd.jupyter.widget-state+json": widgets},
        },
        "cells": cells,
    }
