"""hub/k8s/ is not applied to a cluster here, so it is checked on paper where it can be.

Every manifest in hub/k8s/*.yaml (values.yaml aside) uses only fields its apiVersion and kind have: each
document is walked against the Kubernetes Python client's models (`kubernetes`, pinned in
requirements-dev.txt), whose openapi_types and attribute_map list every field of every built-in object
(a custom resource's kind is reported as unknown).  This catches a misspelt or misplaced field, which the
API server rejects under strict field validation (kubectl's default) and otherwise drops with a warning;
it does not catch a wrong value, a field the cluster's version lacks, or a feature gate that is off.

values.yaml passes the Zero to JupyterHub chart's values schema, merged over the chart's own defaults
as helm merges them before it validates (both vendored in tests/fixtures/k8s/, see its README).
"""

from __future__ import annotations

import copy
import glob
import json
import os
import re

import jsonschema
import pytest
import yaml
from kubernetes import client

from tests.conftest import ROOT

K8S = os.path.join(ROOT, "hub", "k8s")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "k8s")
CHART = "4.4.0"  # the Zero to JupyterHub chart version whose schema and defaults are vendored
MANIFESTS = sorted(p for p in glob.glob(os.path.join(K8S, "*.yaml")) if os.path.basename(p) != "values.yaml")

# The client's type names: List[V1Container], Dict[str, str] (older clients: list[...], dict(str, ...)).
LIST = re.compile(r"[Ll]ist\[(.*)\]")
DICT = re.compile(r"(?:Dict\[|dict\()str, (.*)[\])]")
# What a scalar field accepts.  str takes numbers too: a Quantity ("2", 2, 0.5) is a str in the client.
SCALARS = {
    "str": lambda v: not isinstance(v, bool),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "bytes": lambda v: isinstance(v, str),  # base64 text
    "bool": lambda v: isinstance(v, bool),
    "datetime": lambda v: True,
    "date": lambda v: True,
    "object": lambda v: True,  # IntOrString, RawExtension and the like: any value
}


def model_for(api_version: str, kind: str) -> type:
    """The client's model for a kind, if its apiVersion has that kind: the group's API class has a
    create method for each of its kinds (a Job is batch/v1's, not apps/v1's)."""
    group, _, version = api_version.rpartition("/")
    group = "".join(part.capitalize() for part in group.removesuffix(".k8s.io").split(".")) or "Core"
    version = version.capitalize()
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", kind)).lower()
    api = getattr(client, f"{group}{version}Api", None)
    if api is None or not any(hasattr(api, f"create{scope}_{snake}") for scope in ("_namespaced", "")):
        raise LookupError(f"{api_version} has no kind {kind}")
    for name in (f"{version}{kind}", f"{group}{version}{kind}"):  # CoreV1Event beside EventsV1Event
        if hasattr(client, name):
            return getattr(client, name)
    raise LookupError(f"the kubernetes client has no model for {api_version} {kind}")


def unknown_fields(value, type_name: str, path: str) -> list[str]:
    """Every field under `value` that its type does not have, and every value of the wrong shape."""
    if value is None:  # null is unset, for any field
        return []
    listed = LIST.fullmatch(type_name)
    if listed:
        if not isinstance(value, list):
            return [f"{path}: a list is expected"]
        return [e for i, item in enumerate(value) for e in unknown_fields(item, listed[1], f"{path}[{i}]")]
    mapped = DICT.fullmatch(type_name)
    if mapped:
        if not isinstance(value, dict):
            return [f"{path}: a mapping is expected"]
        return [e for key, item in value.items() for e in unknown_fields(item, mapped[1], f"{path}[{key}]")]
    if type_name in SCALARS:
        if isinstance(value, (dict, list)) or not SCALARS[type_name](value):
            return [f"{path}: a {type_name} is expected, not {value!r}"]
        return []
    model = getattr(client, type_name)  # an AttributeError here is a type this walk does not know
    if not isinstance(value, dict):
        return [f"{path}: a mapping is expected ({type_name})"]
    fields = {model.attribute_map[name]: kind for name, kind in model.openapi_types.items()}
    problems = []
    for key, item in value.items():
        if key in fields:
            problems += unknown_fields(item, fields[key], f"{path}.{key}")
        else:
            problems.append(f"{path}.{key}: {type_name} has no such field")
    return problems


def problems_in(document: dict) -> list[str]:
    """What is wrong with one manifest, each problem named by its path from the kind."""
    if not isinstance(document, dict) or not {"apiVersion", "kind"} <= document.keys():
        return [f"not a Kubernetes object (no apiVersion and kind): {str(document)[:80]}"]
    try:
        model = model_for(document["apiVersion"], document["kind"])
    except LookupError as error:
        return [str(error)]
    return unknown_fields(document, model.__name__, document["kind"])


def documents(path: str) -> list:
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


@pytest.mark.parametrize("path", MANIFESTS, ids=os.path.basename)
def test_manifests_use_own_kind_fields(path):
    found = documents(path)
    assert found, f"{path} holds no manifest"
    problems = [p for document in found for p in problems_in(document)]
    assert not problems, "\n".join(problems)


# A pod with the settings bubblewrap may need, for the checker's own tests.
PROBE = """
apiVersion: batch/v1
kind: Job
metadata: {name: probe}
spec:
  completionMode: Indexed
  template:
    spec:
      hostUsers: false
      restartPolicy: Never
      containers:
        - name: probe
          image: debian
          securityContext:
            procMount: Unmasked
            seccompProfile: {type: Unconfined}
            appArmorProfile: {type: Unconfined}
"""


def probe() -> dict:
    return yaml.safe_load(PROBE)


def test_checker_knows_sandbox():
    assert problems_in(probe()) == []


def test_checker_names_misspelt_field():
    job = probe()
    context = job["spec"]["template"]["spec"]["containers"][0]["securityContext"]
    context["appArmourProfile"] = context.pop("appArmorProfile")
    assert problems_in(job) == [
        "Job.spec.template.spec.containers[0].securityContext.appArmourProfile: V1SecurityContext has no such field"
    ]


def test_checker_names_foreign_field():
    job = probe()
    pod = job["spec"]["template"]["spec"]
    pod["securityContext"] = {"hostUsers": pod.pop("hostUsers")}  # the pod spec's field, not its securityContext's
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"completionMode": "Indexed"}}  # a Job's
    assert problems_in(job) == [
        "Job.spec.template.spec.securityContext.hostUsers: V1PodSecurityContext has no such field"
    ]
    assert problems_in(deployment) == ["Deployment.spec.completionMode: V1DeploymentSpec has no such field"]


def test_checker_names_unknown_kind():
    job = probe() | {"apiVersion": "apps/v1"}
    assert problems_in(job) == ["apps/v1 has no kind Job"]


def test_checker_names_quoted_boolean():
    job = probe()
    job["spec"]["template"]["spec"]["hostUsers"] = "false"
    assert problems_in(job) == ["Job.spec.template.spec.hostUsers: a bool is expected, not 'false'"]


def helm_merge(defaults, overrides):
    """The values helm validates: the user's mappings merged key by key into the chart's defaults,
    anything else replaced, and a null deleting the chart's key."""
    if not (isinstance(defaults, dict) and isinstance(overrides, dict)):
        return copy.deepcopy(overrides)
    merged = copy.deepcopy(defaults)
    for key, value in overrides.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = helm_merge(merged.get(key), value)
    return merged


def schema_errors(values: dict) -> list[str]:
    with open(os.path.join(FIXTURES, f"z2jh-{CHART}-values.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    with open(os.path.join(FIXTURES, f"z2jh-{CHART}-values.yaml"), encoding="utf-8") as f:
        defaults = yaml.safe_load(f)
    validator = jsonschema.Draft7Validator(schema)
    found = validator.iter_errors(helm_merge(defaults, values))
    return sorted(f"{'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}" for e in found)


def our_values() -> dict:
    with open(os.path.join(K8S, "values.yaml"), encoding="utf-8") as f:
        return yaml.safe_load(f)


def test_values_pass_chart_schema():
    problems = schema_errors(our_values())
    assert not problems, "\n".join(problems)


def test_schema_names_unknown_key():
    values = our_values()
    values["singleuser"]["memory"]["limt"] = "4G"
    problems = schema_errors(values)
    assert len(problems) == 1 and problems[0].startswith("singleuser.memory: Additional properties"), problems
    assert "'limt'" in problems[0]
