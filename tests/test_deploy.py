"""The deployment files: every file of the Kubernetes folder is an object with its
kind's required fields, listed by the kustomization, and agrees with the others (the
RayJob's results reach the server's store); no file ships a secret's value, and a
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


def one(kind: str) -> dict[str, Any]:
    [found] = [o for key, o in OBJECTS.items() if key.startswith(f"{kind}/")]
    return found


def test_the_manifests_are_the_expected_kinds_with_their_api_versions() -> None:
    kinds = {key.split("/")[0]: o["apiVersion"] for key, o in OBJECTS.items()}
    assert kinds == {
        "Kustomization": "kustomize.config.k8s.io/v1beta1",
        "Namespace": "v1",
        "PersistentVolumeClaim": "v1",
        "Deployment": "apps/v1",
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
    [generator] = one("Kustomization")["secretGenerator"]
    referenced = {
        e["name"]: (e["valueFrom"]["secretKeyRef"]["name"], e["valueFrom"]["secretKeyRef"]["key"])
        for e in server["env"]
        if "valueFrom" in e
    }
    assert referenced == {
        "ARENA_ADMIN_TOKEN": (generator["name"], "admin-token"),
        "ARENA_OWNER_KEYS": (generator["name"], "owner-keys"),
    }


def volume_at(pod: dict[str, Any], path: str) -> dict[str, Any]:
    """The volume a pod's first container mounts at ``path``."""
    [mount] = [m for m in container(pod["spec"])["volumeMounts"] if m["mountPath"] == path]
    [volume] = [v for v in pod["spec"]["volumes"] if v["name"] == mount["name"]]
    return volume


def option(args: list[str], name: str) -> str:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in a command line."""
    for i, arg in enumerate(args):
        if arg == name:
            return args[i + 1]
        if arg.startswith(f"{name}="):
            return arg.split("=", 1)[1]
    raise AssertionError(f"{name} missing from {args}")


def test_the_ray_job_stores_its_results_in_the_servers_store_on_its_node() -> None:
    server_db = option(container(server_pod()["spec"])["args"], "--db")
    job_db = option(one("RayJob")["spec"]["entrypoint"].split(), "--db")
    assert job_db == server_db  # the arena's store itself, not a file of its own
    data = str(Path(server_db).parent)
    claim = one("PersistentVolumeClaim")
    for pod in (server_pod(), head_pod()):  # the job's driver runs on the head
        volume = volume_at(pod, data)
        assert volume.get("persistentVolumeClaim") == {"claimName": claim["metadata"]["name"]}
    # SQLite's locks hold on one node: one ReadWriteOnce volume, the head on the server's node
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    [term] = head_pod()["spec"]["affinity"]["podAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert term["topologyKey"] == "kubernetes.io/hostname"
    assert term["labelSelector"]["matchLabels"].items() <= (
        server_pod()["metadata"]["labels"].items()
    )
    [preferred] = server_pod()["spec"]["affinity"]["podAffinity"][
        "preferredDuringSchedulingIgnoredDuringExecution"
    ]
    assert preferred["podAffinityTerm"]["topologyKey"] == "kubernetes.io/hostname"
    assert preferred["podAffinityTerm"]["labelSelector"]["matchLabels"].items() <= (
        head_pod()["metadata"]["labels"].items()
    )
    groups = [pod["spec"]["securityContext"]["fsGroup"] for pod in (server_pod(), head_pod())]
    assert groups[0] == groups[1]  # both may write the store's files


def test_the_service_and_monitor_select_the_server_and_its_ports() -> None:
    deployment, service, monitor = one("Deployment"), one("Service"), one("ServiceMonitor")
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
def test_kustomize_generates_the_secret_from_local_files_and_needs_them(tmp_path: Path) -> None:
    folder = tmp_path / "k8s"
    shutil.copytree(K8S, folder, ignore=shutil.ignore_patterns("secrets"))
    missing = render(folder)
    assert missing.returncode != 0 and "secrets/admin.env" in missing.stderr
    token = secrets.token_hex(16)
    (folder / "secrets").mkdir()
    (folder / "secrets" / "admin.env").write_text(f"admin-token={token}\n")
    (folder / "secrets" / "owner-keys").write_text(f"ops sha256:{'0' * 64}\n")
    rendered = render(folder)
    assert rendered.returncode == 0, rendered.stderr
    objects = {(o["kind"], o["metadata"]["name"]): o for o in yaml.safe_load_all(rendered.stdout)}
    [secret] = [o for (kind, _), o in objects.items() if kind == "Secret"]
    assert set(secret["data"]) == {"admin-token", "owner-keys"}
    pod = objects[("Deployment", "arena")]["spec"]["template"]["spec"]
    names = {e["valueFrom"]["secretKeyRef"]["name"] for e in pod["containers"][0]["env"]
             if "valueFrom" in e}  # fmt: skip
    assert names == {secret["metadata"]["name"]}  # the generated name, with its hash
    head = objects[("RayCluster", "arena")]["spec"]["headGroupSpec"]["template"]["spec"]
    [image] = {c["image"] for c in (*pod["containers"], *head["containers"])}
    assert image != "arena"  # the kustomization's image reaches the Ray pods too


# -- no shipped secret --------------------------------------------------------------

SECRET_NAME = re.compile(r"TOKEN|KEY|PASSWORD|PASSWD|SECRET|CREDENTIAL", re.IGNORECASE)
"""An environment variable that holds a secret."""
REQUIRED = re.compile(r"\$\{(?P<name>[A-Z_][A-Z0-9_]*):\?(?P<message>[^}]+)\}")
"""Compose's required variable: ``${NAME:?message}`` stops compose with the message."""
KNOWN_VALUES = re.compile(r"change-?me|admin/admin|(?<!@)sha256:[0-9a-f]{64}", re.IGNORECASE)
"""Placeholder and sample secrets that must not be shipped."""
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
    assert "Secret" not in {o["kind"] for o in OBJECTS.values()}  # generated from local files
    [generator] = one("Kustomization")["secretGenerator"]
    assert "literals" not in generator
    for source in [*generator.get("envs", []), *generator.get("files", [])]:
        assert source.split("=")[-1].startswith("secrets/"), source
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
    }
    text = (DEPLOY / "docker-compose.yml").read_text()
    for reference in re.findall(r"\$\{[^}]*\}", text):  # no default for any variable
        assert REQUIRED.fullmatch(reference), f"a variable with a default: {reference}"


def test_the_local_secrets_stay_out_of_git_and_of_the_image() -> None:
    local = ["deploy/.env", "deploy/k8s/secrets/admin.env", "deploy/k8s/secrets/owner-keys"]
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
    required = ("ARENA_ADMIN_TOKEN", "ARENA_OWNER_KEYS", "RAY_AUTH_TOKEN", "GRAFANA_ADMIN_PASSWORD")
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
    assert set(services) == {"arena", "ray-head", "ray-worker", "prometheus", "grafana"}
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
    args = parse_here(_arena_command_lines()[where], tmp_path)
    if args.command == "serve":
        assert args.host == "0.0.0.0" and args.metrics_port == 9100  # reachable in a container
        assert args.metrics_host == "0.0.0.0"
    assert str(args.db).startswith(f"{tmp_path}/")  # on the volume, not in the image


def test_the_server_is_given_longer_to_stop_than_its_matches_to_drain(tmp_path: Path) -> None:
    pod = one("Deployment")["spec"]["template"]["spec"]
    drain = parse_here(pod["containers"][0]["args"], tmp_path).drain
    assert pod["terminationGracePeriodSeconds"] > drain
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    arena = compose["services"]["arena"]
    compose_drain = parse_here(arena["command"], tmp_path).drain
    assert int(arena["stop_grace_period"].rstrip("s")) > compose_drain
