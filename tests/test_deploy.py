"""The deployment files: every file of the Kubernetes folder is an object with its
kind's required fields, listed by the kustomization, and agrees with the others; the
league's store is PostgreSQL (a StatefulSet behind a headless Service, a compose service
whose healthcheck gates the arena's), which every arena container that names a store
reaches by the same URL with the password from the Secret (or compose's required
variable), and nothing pins a pod to a node; no file ships a secret's value, and a
missing one stops compose with its message; Prometheus configs and rules pass
``promtool``; the alerting rules use exported metrics; the image is multi-stage, runs
as a non-root user and is built from a context without local files."""

from __future__ import annotations

import os
import posixpath
import re
import secrets
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, urlsplit

import promql_parser
import pytest
import yaml

from arena.metrics import metric_names

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
PROMTOOL = shutil.which("promtool")
KUBECTL = shutil.which("kubectl")
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl (kustomize) not installed")


def manifests(folder: Path = K8S) -> dict[str, dict[str, Any]]:
    """Every Kubernetes object of a Kubernetes folder, by ``kind/name``: every file (but
    the operator's local ``secrets/``) is YAML whose documents are named objects;
    ``jobs/`` holds objects created one by one, each under a new generated name."""
    objects: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.rglob("*")):
        where = path.relative_to(folder).as_posix()
        if not path.is_file() or where.startswith("secrets/"):
            continue
        assert path.suffix == ".yaml", f"{where} is not a Kubernetes manifest"
        for doc in yaml.safe_load_all(path.read_text()):
            assert isinstance(doc, dict), f"{where}: a document is not a mapping"
            for field in ("apiVersion", "kind", "metadata"):
                assert doc.get(field), f"{where}: {field} missing"
            meta = doc["metadata"]
            name = meta.get("generateName") if where.startswith("jobs/") else meta.get("name")
            assert name, f"{where}: {doc['kind']} without a name"
            objects[f"{doc['kind']}/{name}"] = doc | {"_file": where}
    return objects


OBJECTS = manifests()


def one(kind: str, name: str | None = None) -> dict[str, Any]:
    """The one object of ``kind`` (of that ``name``, where the kind has several)."""
    [found] = [
        o
        for key, o in OBJECTS.items()
        if (key.startswith(f"{kind}/") if name is None else key == f"{kind}/{name}")
    ]
    return found


def generator(name: str) -> dict[str, Any]:
    """The kustomization's secret generator of the Secret ``name``."""
    [found] = [g for g in one("Kustomization")["secretGenerator"] if g["name"] == name]
    return found


def test_the_manifests_are_the_expected_kinds_with_their_api_versions() -> None:
    kinds = {key.split("/")[0]: o["apiVersion"] for key, o in OBJECTS.items()}
    assert kinds == {
        "Kustomization": "kustomize.config.k8s.io/v1beta1",
        "Namespace": "v1",
        "Deployment": "apps/v1",
        "StatefulSet": "apps/v1",
        "Service": "v1",
        "RayCluster": "ray.io/v1",
        "RayJob": "ray.io/v1",
        "ServiceMonitor": "monitoring.coreos.com/v1",
        "PodMonitor": "monitoring.coreos.com/v1",
        "PrometheusRule": "monitoring.coreos.com/v1",
    }


def test_the_kustomization_lists_exactly_the_objects_of_its_folder() -> None:
    kustomization = one("Kustomization")
    assert kustomization["_file"] == "kustomization.yaml"
    resources = kustomization["resources"]
    assert len(resources) == len(set(resources))
    files = {o["_file"] for o in OBJECTS.values()} - {"kustomization.yaml"}
    jobs = {f for f in files if f.startswith("jobs/")}
    assert set(resources) == files - jobs
    assert {o["kind"] for o in OBJECTS.values() if o["_file"] in jobs} == {"RayJob"}


def test_the_folder_check_refuses_a_plain_config_and_an_unnamed_object(tmp_path: Path) -> None:
    (tmp_path / "scrape.yml").write_text("scrape_configs: []\n")
    with pytest.raises(AssertionError, match=r"scrape\.yml is not a Kubernetes manifest"):
        manifests(tmp_path)
    (tmp_path / "scrape.yml").unlink()
    (tmp_path / "job.yaml").write_text(
        "apiVersion: ray.io/v1\nkind: RayJob\nmetadata:\n  generateName: x-\n"
    )
    with pytest.raises(AssertionError, match="RayJob without a name"):
        manifests(tmp_path)
    (tmp_path / "jobs").mkdir()
    (tmp_path / "job.yaml").rename(tmp_path / "jobs" / "job.yaml")  # created one by one
    assert list(manifests(tmp_path)) == ["RayJob/x-"]


def container(pod_spec: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    containers = pod_spec["containers"]
    assert containers and all("image" in c and "name" in c for c in containers)
    return containers[0] if name is None else next(c for c in containers if c["name"] == name)


def server_pod() -> dict[str, Any]:
    pod: dict[str, Any] = one("Deployment")["spec"]["template"]
    return pod


def head_pod() -> dict[str, Any]:
    pod: dict[str, Any] = one("RayCluster")["spec"]["headGroupSpec"]["template"]
    return pod


def test_the_server_deployment_probes_grpc_health_and_reads_its_tokens_from_the_secret() -> None:
    deployment = one("Deployment")
    spec = deployment["spec"]
    pod = spec["template"]
    assert spec["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert spec["replicas"] == 1 and spec["strategy"]["type"] == "Recreate"  # one server a store
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    server = container(pod["spec"])
    ports = {p["name"]: p["containerPort"] for p in server["ports"]}
    assert ports == {"grpc": 50051, "metrics": 9100}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert server[probe]["grpc"]["port"] == ports["grpc"], probe
    args = server["args"]
    assert args[0] == "serve" and "--port=50051" in args and "--metrics-port=9100" in args
    tokens = generator("arena-tokens")["name"]
    assert secret_references(server) == {
        "ARENA_ADMIN_TOKEN": (tokens, "admin-token"),
        "ARENA_OWNER_KEYS": (tokens, "owner-keys"),
        "PGPASSWORD": (DATABASE_SECRET, "password"),
    }


def secret_references(spec: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """A container's variables read from a Secret: variable → (Secret, key)."""
    return {
        e["name"]: (e["valueFrom"]["secretKeyRef"]["name"], e["valueFrom"]["secretKeyRef"]["key"])
        for e in spec.get("env", [])
        if "secretKeyRef" in e.get("valueFrom", {})
    }


def option(args: list[str], name: str) -> str:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in a command line."""
    for i, arg in enumerate(args):
        if arg == name:
            return args[i + 1]
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
    raise AssertionError(f"{name} missing from {args}")


DATABASE_SECRET = "arena-postgres"
"""The Secret of the store database's password (a fixed name: the RayCluster, a custom
resource, and the RayJobs, created on their own, refer to it by name)."""


def store_url(args: list[str]) -> SplitResult:
    """The PostgreSQL store a command line names with ``--db``, with no password in it."""
    db = option(args, "--db")
    url = urlsplit(db)
    assert url.scheme == "postgresql" and url.hostname and url.port, f"not a database URL: {db}"
    assert url.password is None, f"a password in the store's URL: {db}"
    return url


def store_containers() -> dict[str, tuple[dict[str, Any], list[str]]]:
    """Every arena container that names a store, with the command line naming it: the
    server, and the Ray head for the RayJob's driver, which runs there and inherits its
    variables (the workers only play matches)."""
    job = one("RayJob")["spec"]["entrypoint"].split()
    server = container(server_pod()["spec"])
    return {"server": (server, server["args"]), "ray-head": (container(head_pod()["spec"]), job)}


def test_every_arena_container_names_the_database_and_reads_its_password_from_the_secret() -> None:
    urls = {where: store_url(args) for where, (_, args) in store_containers().items()}
    assert len({url.geturl() for url in urls.values()}) == 1  # the one store of the league
    source = generator(DATABASE_SECRET)
    assert source.get("options", {}).get("disableNameSuffixHash") is True
    for where, (arena, _) in store_containers().items():
        references = secret_references(arena)
        assert references.get("PGPASSWORD") == (DATABASE_SECRET, "password"), where
        mounts = {m["mountPath"] for m in arena.get("volumeMounts", [])}
        assert "/data" not in mounts, f"{where}: the SQLite store's volume"
    for worker in one("RayCluster")["spec"]["workerGroupSpecs"]:
        assert "PGPASSWORD" not in secret_references(container(worker["template"]["spec"]))


def test_the_database_is_a_stateful_set_behind_the_headless_service_of_the_url() -> None:
    url = store_url(container(server_pod()["spec"])["args"])
    database = one("StatefulSet")
    spec = database["spec"]
    service = one("Service", url.hostname)
    assert spec["serviceName"] == service["metadata"]["name"] == url.hostname
    assert service["spec"]["clusterIP"] == "None"  # headless: the name is the pod's
    pod = spec["template"]
    assert spec["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert service["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert spec["replicas"] == 1
    postgres = container(pod["spec"])
    assert re.fullmatch(r"postgres:\d+\.\d+", postgres["image"]), postgres["image"]
    ports = {p["name"]: p["containerPort"] for p in postgres["ports"]}
    [port] = [p for p in service["spec"]["ports"] if p["port"] == url.port]
    assert ports[port["targetPort"]] == 5432
    values = {e["name"]: e.get("value") for e in postgres["env"]}
    assert values["POSTGRES_USER"] == url.username
    assert values["POSTGRES_DB"] == url.path.lstrip("/")
    assert secret_references(postgres) == {"POSTGRES_PASSWORD": (DATABASE_SECRET, "password")}
    for probe in ("readinessProbe", "livenessProbe"):
        command = postgres[probe]["exec"]["command"]
        assert command[0] == "pg_isready" and f"--username={url.username}" in command, probe
    [claim] = spec["volumeClaimTemplates"]
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert claim["spec"]["resources"]["requests"]["storage"]
    [mount] = postgres["volumeMounts"]
    assert mount == {"name": claim["metadata"]["name"], "mountPath": "/var/lib/postgresql"}
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True


def test_the_server_starts_once_the_database_answers() -> None:
    url = store_url(container(server_pod()["spec"])["args"])
    [wait] = server_pod()["spec"]["initContainers"]
    command = " ".join(wait["command"])
    assert "pg_isready" in command
    assert f"--host={url.hostname}" in command and f"--port={url.port}" in command
    assert wait["image"] == container(one("StatefulSet")["spec"]["template"]["spec"])["image"]


PINNING = {"nodeSelector", "nodeName", "affinity"}
"""What ties a pod to a node or to another pod's node."""


def pinned(node: Any, where: str) -> Iterator[str]:
    """Where, in an object, a pod is tied to a node."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in PINNING:
                yield f"{where}.{key}"
            yield from pinned(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from pinned(item, f"{where}[{i}]")


def test_nothing_pins_a_pod_to_a_node_and_no_arena_pod_claims_a_volume() -> None:
    assert [p for key, o in OBJECTS.items() for p in pinned(o, key)] == []
    assert list(pinned({"spec": {"affinity": {}}}, "Pod/x")) == ["Pod/x.spec.affinity"]
    assert "PersistentVolumeClaim" not in {o["kind"] for o in OBJECTS.values()}
    for pod in (server_pod(), head_pod()):
        assert all("persistentVolumeClaim" not in v for v in pod["spec"].get("volumes", []))


def test_the_ray_job_stores_its_results_in_the_servers_store() -> None:
    server_db = option(container(server_pod()["spec"])["args"], "--db")
    job_db = option(one("RayJob")["spec"]["entrypoint"].split(), "--db")
    assert job_db == server_db  # the arena's store itself, not a store of its own


def test_the_service_and_monitor_select_the_server_and_its_ports() -> None:
    deployment, service, monitor = one("Deployment"), one("Service", "arena"), one("ServiceMonitor")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    names = {p["name"] for p in container(deployment["spec"]["template"]["spec"])["ports"]}
    service_ports = {p["name"]: p for p in service["spec"]["ports"]}
    assert {p["targetPort"] for p in service_ports.values()} <= names
    assert monitor["spec"]["selector"]["matchLabels"].items() <= (
        service["metadata"]["labels"].items()
    )
    assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"]
    assert "metrics" in service_ports


def test_the_ray_cluster_and_the_job_that_runs_a_tournament_on_it() -> None:
    cluster, job, pod_monitor = one("RayCluster"), one("RayJob"), one("PodMonitor")
    spec = cluster["spec"]
    head = spec["headGroupSpec"]
    params = head["rayStartParams"]
    assert params["dashboard-host"] == "0.0.0.0"  # job submission reaches the dashboard
    assert spec["authOptions"] == {"mode": "token"}  # and only with the cluster's token
    head_container = container(head["template"]["spec"])
    ports = {p["name"]: p["containerPort"] for p in head_container["ports"]}
    assert ports.items() >= {"gcs-server": 6379, "dashboard": 8265, "client": 10001}.items()
    assert ports["metrics"] == int(params["metrics-export-port"])  # Ray's own metrics
    assert spec["workerGroupSpecs"], "a RayCluster needs a worker group"
    for group in spec["workerGroupSpecs"]:
        assert group["groupName"] and "rayStartParams" in group
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
        container(group["template"]["spec"])
    assert job["spec"]["clusterSelector"] == {"ray.io/cluster": cluster["metadata"]["name"]}
    assert job["spec"]["submissionMode"] == "K8sJobMode"  # `ray job submit` to the dashboard
    entrypoint = job["spec"]["entrypoint"].split()
    assert entrypoint[:2] == ["arena", "tournament"]
    assert option(entrypoint, "--address") == "auto"
    assert ports["arena-metrics"] == int(option(entrypoint, "--metrics-port"))
    assert ports["arena-metrics"] != ports["metrics"]
    head_labels = head["template"]["metadata"]["labels"]
    assert pod_monitor["spec"]["selector"]["matchLabels"].items() <= head_labels.items()
    assert [e["port"] for e in pod_monitor["spec"]["podMetricsEndpoints"]] == ["arena-metrics"]


def render(folder: Path) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    return subprocess.run(
        [KUBECTL, "kustomize", str(folder)], capture_output=True, text=True, check=False
    )


@needs_kubectl
def secret_names(node: Any) -> Iterator[str]:
    """The Secret of every ``secretKeyRef``, wherever it is in an object."""
    if isinstance(node, dict):
        if isinstance(node.get("secretKeyRef"), dict):
            yield node["secretKeyRef"]["name"]
        for value in node.values():
            yield from secret_names(value)
    elif isinstance(node, list):
        for item in node:
            yield from secret_names(item)


@needs_kubectl
def test_kustomize_generates_the_secrets_from_local_files_and_needs_them(tmp_path: Path) -> None:
    folder = tmp_path / "k8s"
    shutil.copytree(K8S, folder, ignore=shutil.ignore_patterns("secrets"))
    missing = render(folder)
    assert missing.returncode != 0 and "secrets/admin.env" in missing.stderr
    token = secrets.token_hex(16)
    (folder / "secrets").mkdir()
    (folder / "secrets" / "admin.env").write_text(f"admin-token={token}\n")
    (folder / "secrets" / "owner-keys").write_text(f"ops sha256:{'0' * 64}\n")
    missing = render(folder)
    assert missing.returncode != 0 and "secrets/postgres.env" in missing.stderr
    (folder / "secrets" / "postgres.env").write_text(f"password={secrets.token_hex(16)}\n")
    rendered = render(folder)
    assert rendered.returncode == 0, rendered.stderr
    objects = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(rendered.stdout)}
    generated = {name: o for (kind, name), o in objects.items() if kind == "Secret"}
    [tokens] = [name for name in generated if name.startswith("arena-tokens-")]  # its hash
    assert set(generated) == {tokens, DATABASE_SECRET}  # the database's: a fixed name
    assert set(generated[tokens]["data"]) == {"admin-token", "owner-keys"}
    assert set(generated[DATABASE_SECRET]["data"]) == {"password"}
    pod = objects[("Deployment", "arena")]["spec"]["template"]["spec"]
    assert set(secret_names(pod)) == {tokens, DATABASE_SECRET}
    for (kind, name), obj in objects.items():  # the StatefulSet's, the Ray head's
        assert set(secret_names(obj)) <= set(generated), f"{kind}/{name}: a Secret not generated"
    head = objects[("RayCluster", "arena")]["spec"]["headGroupSpec"]["template"]["spec"]
    assert set(secret_names(head)) == {DATABASE_SECRET}
    [image] = {c["image"] for c in (*pod["containers"], *head["containers"])}
    assert image != "arena"  # the kustomization's image reaches the Ray pods too
    # the database alone, first, when a store moves into it (docs/deployment.md):
    # `kubectl apply -k deploy/k8s -l app.kubernetes.io/component=database`
    database = {
        kind
        for (kind, _), o in objects.items()
        if o["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "database"
    }
    assert database == {"Secret", "Service", "StatefulSet"}


# -- no shipped secret --------------------------------------------------------------

SECRET_NAME = re.compile(r"TOKEN|KEY|PASSWORD|PASSWD|SECRET|CREDENTIAL", re.IGNORECASE)
"""An environment variable that holds a secret."""
REQUIRED = re.compile(r"\$\{(?P<name>[A-Z_][A-Z0-9_]*):\?(?P<message>[^}]+)\}")
"""Compose's required variable: ``${NAME:?message}`` stops compose with the message."""
KNOWN_VALUES = re.compile(r"change-?me|admin/admin|(?<!@)sha256:[0-9a-f]{64}", re.IGNORECASE)
"""Placeholder and sample secrets that must not be shipped."""
PASSWORD_IN_URL = re.compile(r"postgres(?:ql)?(?:\+\w+)?://[^/@\s:]*:[^/@\s]*@")
"""A database URL that carries a password (``postgresql://user:password@host``)."""
LOCAL_SECRETS = (DEPLOY / ".env", K8S / "secrets")
"""The operator's own secrets (git-ignored): what the shipped files refer to."""
DEPLOYMENT_FILES = sorted(
    p
    for p in (*DEPLOY.rglob("*"), *(ROOT / "dashboards").rglob("*"))
    if p.is_file() and not any(p == s or s in p.parents for s in LOCAL_SECRETS)
)


def environments(node: Any) -> Iterator[tuple[str, Any]]:
    """(variable, value) of every Kubernetes ``env`` entry, wherever it is in an object."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "env" and isinstance(value, list):
                yield from ((e["name"], e.get("value", e.get("valueFrom"))) for e in value)
            else:
                yield from environments(value)
    elif isinstance(node, list):
        for item in node:
            yield from environments(item)


def compose_environments() -> Iterator[tuple[str, str, Any]]:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    for name, service in compose["services"].items():
        environment = service.get("environment") or {}
        if isinstance(environment, list):
            environment = dict(item.split("=", 1) for item in environment)
        for variable, value in environment.items():
            yield name, variable, value


def test_no_deployment_file_ships_a_known_secret_value() -> None:
    for path in DEPLOYMENT_FILES:
        text = path.read_text(encoding="utf-8")
        found = KNOWN_VALUES.search(text)
        assert found is None, f"{path.relative_to(ROOT)} ships {found.group()!r}"
        assert "--admin-token" not in text, f"{path.relative_to(ROOT)}: a token in a command"
        url = PASSWORD_IN_URL.search(text)
        assert url is None, f"{path.relative_to(ROOT)}: a password in {url.group()!r}"
    assert PASSWORD_IN_URL.search("--db postgresql://arena:pw@db/arena")
    assert not PASSWORD_IN_URL.search("--db postgresql://arena@db:5432/arena")
    assert "Secret" not in {o["kind"] for o in OBJECTS.values()}  # generated from local files
    generators = one("Kustomization")["secretGenerator"]
    assert {g["name"] for g in generators} == {"arena-tokens", DATABASE_SECRET}
    for source in generators:
        assert "literals" not in source
        for path in [*source.get("envs", []), *source.get("files", [])]:
            assert path.split("=")[-1].startswith("secrets/"), path
    for key, obj in OBJECTS.items():
        for variable, value in environments(obj):
            if SECRET_NAME.search(variable) and variable != "RAY_AUTH_MODE":
                assert set(value) == {"secretKeyRef"}, f"{key}: {variable} is not from a Secret"


def test_compose_requires_every_secret_and_says_how_to_set_it() -> None:
    required: dict[str, str] = {}
    for service, variable, value in compose_environments():
        if not SECRET_NAME.search(variable) or variable == "RAY_AUTH_MODE":
            continue
        match = REQUIRED.fullmatch(str(value))
        assert match, f"{service}: {variable} is not a required variable: {value}"
        assert match["name"] in match["message"] and "README" in match["message"]
        required[match["name"]] = match["message"]
    assert set(required) == {
        "ARENA_ADMIN_TOKEN",
        "ARENA_OWNER_KEYS",
        "RAY_AUTH_TOKEN",
        "GRAFANA_ADMIN_PASSWORD",
        "POSTGRES_PASSWORD",
    }
    text = (DEPLOY / "docker-compose.yml").read_text()
    for reference in re.findall(r"\$\{[^}]*\}", text):  # no default for any variable
        assert REQUIRED.fullmatch(reference), f"a variable with a default: {reference}"


def test_the_local_secrets_stay_out_of_git_and_of_the_image() -> None:
    local = [
        "deploy/.env",
        "deploy/k8s/secrets/admin.env",
        "deploy/k8s/secrets/owner-keys",
        "deploy/k8s/secrets/postgres.env",
    ]
    if not (ROOT / ".git").exists():
        pytest.skip("not a git work tree: nothing to check against .gitignore")
    checked = subprocess.run(
        ["git", "check-ignore", "--no-index", *local], cwd=ROOT, capture_output=True, text=True
    )
    assert checked.stdout.split() == local
    assert all(excluded_from_image(path) for path in local)


def ports_published(service: dict[str, Any]) -> dict[int, str]:
    """Host port → the host address it listens on (compose's short syntax)."""
    published: dict[int, str] = {}
    for port in service.get("ports", []):
        parts = str(port).split(":")
        host = parts[0] if len(parts) == 3 else "0.0.0.0"
        published[int(parts[-2])] = host
    return published


def test_compose_publishes_only_the_server_and_grafana_beyond_the_machine() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    everywhere = {
        (name, port)
        for name, service in compose["services"].items()
        for port, host in ports_published(service).items()
        if host != "127.0.0.1"
    }
    assert everywhere == {("arena", 50051), ("grafana", 3000)}  # both ask for a secret
    head = compose["services"]["ray-head"]
    assert "--dashboard-host=0.0.0.0" in head["command"]  # reachable through its port
    assert ports_published(head)[8265] == "127.0.0.1"
    for name in ("ray-head", "ray-worker"):
        assert compose["services"][name]["environment"]["RAY_AUTH_MODE"] == "token"


def compose_command() -> list[str]:
    """Docker Compose v2, as the Docker CLI's plugin or standalone (``.ci/run`` installs
    it when missing); it renders and checks a file without a Docker engine. Skipped,
    naming what is missing, when neither is there."""
    for command in (["docker", "compose"], ["docker-compose"]):
        if shutil.which(command[0]) is None:
            continue
        probe = subprocess.run(
            [*command, "version", "--short"], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0 and probe.stdout.strip().lstrip("v").startswith("2."):
            return command
    pytest.skip("Docker Compose v2 is not installed (neither `docker compose` nor docker-compose)")


def docker_compose(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*command, "-f", str(DEPLOY / "docker-compose.yml"), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=ROOT,
    )


def test_compose_config_is_accepted_by_docker_compose() -> None:
    command = compose_command()
    required = (
        "ARENA_ADMIN_TOKEN",
        "ARENA_OWNER_KEYS",
        "RAY_AUTH_TOKEN",
        "GRAFANA_ADMIN_PASSWORD",
        "POSTGRES_PASSWORD",
    )
    # only what finds Docker's plugins (PATH, HOME, DOCKER_CONFIG) and the secrets
    found = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "DOCKER_CONFIG"}}
    env = {**found, **{name: secrets.token_hex(8) for name in required}}
    result = docker_compose(command, env)
    assert result.returncode == 0, result.stderr
    for name in required:
        result = docker_compose(command, {k: v for k, v in env.items() if k != name})
        assert result.returncode != 0 and f"set {name}," in result.stderr, result.stderr


# -- the image's build context ------------------------------------------------------


def dockerignore_pattern(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as a regular expression over a relative path (``*`` and
    ``?`` within a name, ``**`` over any number of folders)."""
    parts = posixpath.normpath(pattern.strip().lstrip("/")).split("/")
    regex = ""
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part == "**":
            regex += ".*" if last else "(?:[^/]+/)*"
            continue
        for char in part:
            regex += "[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char)
        regex += "" if last else "/"
    return re.compile(regex)


DOCKERIGNORE = [
    (line.startswith("!"), dockerignore_pattern(line.removeprefix("!")))
    for line in (ROOT / ".dockerignore").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]


def excluded_from_image(path: str) -> bool:
    """Whether docker leaves ``path`` out of the build context: the last pattern that
    matches the path or one of its folders decides."""
    parts = path.split("/")
    excluded = False
    for negated, pattern in DOCKERIGNORE:
        if any(pattern.fullmatch("/".join(parts[:end])) for end in range(1, len(parts) + 1)):
            excluded = not negated
    return excluded


def test_the_dockerignore_matcher_follows_dockers_rules() -> None:
    assert dockerignore_pattern("**/x").fullmatch("x")
    assert dockerignore_pattern("**/x").fullmatch("a/b/x")
    assert not dockerignore_pattern("*.sqlite").fullmatch("a/b.sqlite")
    assert dockerignore_pattern("a/").fullmatch("a")


def copied_sources() -> list[str]:
    """What the Dockerfile copies from the build context."""
    sources: list[str] = []
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        words = line.split()
        if words[:1] == ["COPY"] and not any(w.startswith("--from") for w in words):
            sources += [posixpath.normpath(w) for w in words[1:-1] if not w.startswith("--")]
    return sources


def test_the_build_context_keeps_what_the_dockerfile_copies_and_nothing_local() -> None:
    sources = copied_sources()
    assert set(sources) == {
        "pyproject.toml",
        "README.md",
        "arena",
        "bots",
        "scripts/compile_engines.py",
    }
    if not (ROOT / ".git").exists():
        pytest.skip("not a git work tree: the tracked files are unknown")
    listed = subprocess.run(
        ["git", "ls-files", "--", *sources], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "arena/__init__.py" in listed
    kept = [path for path in listed if not excluded_from_image(path)]
    assert kept == listed, f"left out: {sorted(set(listed) - set(kept))[:5]}"
    local = [
        ".venv/bin/python",
        ".git/HEAD",
        "arena/__pycache__/cards.cpython-311.pyc",
        "arena/games/__pycache__/base.cpython-311.pyc",
        ".mypy_cache/3.11/arena.json",
        ".ruff_cache/CACHEDIR.TAG",
        ".pytest_cache/README.md",
        ".hypothesis/examples/x",
        "arena.egg-info/PKG-INFO",
        "arena.sqlite",
        "demo.sqlite-wal",
        "bots/league.sqlite",
        "records/m-1.json",
        "node_modules/x/index.js",
        "bots/node/node_modules/@grpc/grpc-js/package.json",
        "deploy/.env",
        ".env",
        "tests/test_deploy.py",
    ]
    assert [path for path in local if not excluded_from_image(path)] == []


def test_the_operator_rules_are_the_alerting_rules() -> None:
    alerts = yaml.safe_load((DEPLOY / "alerts.yml").read_text())
    assert one("PrometheusRule")["spec"] == alerts


def alert_rules() -> list[dict[str, Any]]:
    alerts = yaml.safe_load((DEPLOY / "alerts.yml").read_text())
    return [rule for group in alerts["groups"] for rule in group["rules"]]


def metrics_in(expr: str) -> set[str]:
    names: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            names.add(node.name)
        for attr in ("lhs", "rhs", "expr", "vector_selector"):
            child = getattr(node, attr, None)
            if child is not None:
                visit(child)
        for arg in getattr(node, "args", None) or []:
            visit(arg)

    visit(promql_parser.parse(expr))
    return names


def test_the_alerts_cover_stalls_timeouts_store_and_web_errors_with_exported_metrics() -> None:
    rules = {rule["alert"]: rule for rule in alert_rules()}
    assert set(rules) == {
        "ArenaNoDealsFinished",
        "ArenaDecisionTimeoutRateHigh",
        "ArenaStoreWriteErrors",
        "ArenaWebServerErrors",
    }
    exported = metric_names()
    for name, rule in rules.items():
        used = metrics_in(rule["expr"])
        assert used and used <= set(exported), f"{name} uses {used - set(exported)}"
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["annotations"]["summary"]
    assert "arena_deals_finished_total" in metrics_in(rules["ArenaNoDealsFinished"]["expr"])
    assert metrics_in(rules["ArenaWebServerErrors"]["expr"]) == {"arena_web_requests_total"}


def test_compose_brings_up_the_whole_stack_from_existing_files() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "arena", "ray-head", "ray-worker", "prometheus", "grafana"}
    for name in ("arena", "ray-head", "ray-worker"):
        build = services[name]["build"]
        assert (DEPLOY / build["context"] / build["dockerfile"]).resolve() == (
            DEPLOY / "Dockerfile"
        )
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"compose mounts a missing {source}"
            else:
                assert source in compose["volumes"], f"undeclared volume {source}"
    worker = " ".join(services["ray-worker"]["command"])
    assert "--address=ray-head:6379" in worker
    arena = services["arena"]["command"]
    assert "--metrics-port=9100" in arena and "--metrics-host=0.0.0.0" in arena
    scrape = yaml.safe_load((DEPLOY / "prometheus.yml").read_text())
    targets = {
        t for job in scrape["scrape_configs"] for c in job["static_configs"] for t in c["targets"]
    }
    assert targets == {"arena:9100", "ray-head:9101"}
    assert {t.split(":")[0] for t in targets} <= set(services)


COMPOSE_STORE_SERVICES = {"arena", "ray-head"}
"""The compose services that name the store: the server, and the Ray head, where a
tournament's driver runs (``docker compose exec ray-head arena tournament …``)."""


def test_compose_keeps_the_store_in_postgres_whose_healthcheck_gates_the_arena() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    services = compose["services"]
    database = services["postgres"]
    assert re.fullmatch(r"postgres:\d+\.\d+", database["image"]), database["image"]
    [volume] = database["volumes"]
    source, target = volume.split(":")
    assert source in compose["volumes"] and target == "/var/lib/postgresql"  # a named volume
    check = database["healthcheck"]["test"]
    assert check[:2] == ["CMD", "pg_isready"] and "--host=127.0.0.1" in check
    assert "ports" not in database  # the stack's containers reach it, nothing else
    values = database["environment"]
    password = REQUIRED.fullmatch(values["POSTGRES_PASSWORD"])
    assert password, "the database's password is not a required variable"
    url = store_url(services["arena"]["command"])
    assert (url.hostname, url.port) == ("postgres", 5432)
    assert url.username == values["POSTGRES_USER"] and url.path == f"/{values['POSTGRES_DB']}"
    assert f"--username={url.username}" in check
    for name, service in services.items():
        environment = service.get("environment") or {}
        mounts = [str(v).split(":")[1] for v in service.get("volumes", [])]
        assert "/data" not in mounts, f"{name}: the SQLite store's volume"
        if name not in COMPOSE_STORE_SERVICES:
            assert "PGPASSWORD" not in environment, name
            continue
        reference = REQUIRED.fullmatch(str(environment.get("PGPASSWORD")))
        assert reference and reference["name"] == password["name"], name
        assert service["depends_on"]["postgres"] == {"condition": "service_healthy"}, name


def test_the_image_is_multi_stage_and_runs_as_a_non_root_user() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    stages = re.findall(r"^FROM\s+\S+\s+AS\s+(\w+)", text, flags=re.MULTILINE | re.IGNORECASE)
    assert len(stages) >= 2
    final = text.split(f"AS {stages[-1]}", 1)[1]
    assert "COPY --from=build" in final
    [user] = re.findall(r"^USER\s+(\S+)", final, flags=re.MULTILINE)
    assert user.split(":")[0] not in {"0", "root"}
    assert re.search(r'^ENTRYPOINT \["arena"\]', final, flags=re.MULTILINE)


def test_the_image_has_the_ray_dashboard_and_job_submission() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    ray = [d for d in project["dependencies"] if re.match(r"ray\b", d)]
    assert ray and all(d.startswith("ray[default]") for d in ray), ray
    assert "pip wheel" in (DEPLOY / "Dockerfile").read_text()  # the project's dependencies


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run(
        [PROMTOOL, *args], capture_output=True, text=True, check=False, cwd=DEPLOY, timeout=60
    )


@needs_promtool
@pytest.mark.parametrize("config", ["prometheus.yml", "prometheus-kubernetes.yml"])
def test_promtool_accepts_the_prometheus_configs(config: str) -> None:
    result = promtool("check", "config", config)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_promtool_accepts_the_rules_and_their_unit_tests_pass() -> None:
    checked = promtool("check", "rules", "alerts.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "4 rules found" in checked.stdout
    tested = promtool("test", "rules", "alerts_test.yml")
    assert tested.returncode == 0, tested.stdout + tested.stderr


def _arena_command_lines() -> dict[str, list[str]]:
    """Every `arena …` command line the deployment runs, by where it is written."""
    lines: dict[str, list[str]] = {}
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    cmd = re.search(r"^CMD (\[.*\])$", dockerfile, re.MULTILINE)
    assert cmd is not None
    lines["Dockerfile CMD"] = yaml.safe_load(cmd.group(1))
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    lines["compose arena"] = compose["services"]["arena"]["command"]
    container = one("Deployment")["spec"]["template"]["spec"]["containers"][0]
    lines["k8s Deployment"] = container["args"]
    lines["k8s RayJob"] = one("RayJob")["spec"]["entrypoint"].split()[1:]
    return lines


def parse_here(argv: list[str], data: Path) -> Any:
    """Parse a deployment's command line on this machine, ``data`` standing for the
    containers' /data (the parser checks that a store's folder exists)."""
    from arena.cli import build_parser

    here = [re.sub(r"(^|=)/data/", lambda m: f"{m.group(1)}{data}/", arg) for arg in argv]
    return build_parser().parse_args(here)


@pytest.mark.parametrize("where", sorted(_arena_command_lines()))
def test_every_arena_command_line_of_the_deployment_parses(where: str, tmp_path: Path) -> None:
    argv = _arena_command_lines()[where]
    args = parse_here(argv, tmp_path)
    if args.command == "serve":
        assert args.host == "0.0.0.0" and args.metrics_port == 9100  # reachable in a container
        assert args.metrics_host == "0.0.0.0"
    if where == "Dockerfile CMD":  # the image run by itself: a store of its own
        assert str(args.db).startswith(f"{tmp_path}/")  # on the volume, not in the image
    else:  # compose and Kubernetes: the league's database
        assert args.db == store_url(argv).geturl()


def test_the_server_is_given_longer_to_stop_than_its_matches_to_drain(tmp_path: Path) -> None:
    pod = one("Deployment")["spec"]["template"]["spec"]
    drain = parse_here(pod["containers"][0]["args"], tmp_path).drain
    assert pod["terminationGracePeriodSeconds"] > drain
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    arena = compose["services"]["arena"]
    compose_drain = parse_here(arena["command"], tmp_path).drain
    assert int(arena["stop_grace_period"].rstrip("s")) > compose_drain
