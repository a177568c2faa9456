"""The deployment files: every manifest parses with its kind's required fields and
agrees with the others; Prometheus configs and rules pass ``promtool``; the alerting
rules use exported metrics; the image is multi-stage and runs as a non-root user."""

from __future__ import annotations

import re
import shutil
import subprocess
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
needs_promtool = pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed")


def manifests() -> dict[str, dict[str, Any]]:
    """Every Kubernetes object of deploy/k8s, by ``kind/name``."""
    objects: dict[str, dict[str, Any]] = {}
    for path in sorted(K8S.glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            assert isinstance(doc, dict), f"{path.name}: a document is not a mapping"
            for field in ("apiVersion", "kind", "metadata"):
                assert field in doc, f"{path.name}: {field} missing"
            meta = doc["metadata"] or {}
            name = meta.get("name") or meta.get("generateName")
            if doc["kind"] == "Kustomization":
                name = "kustomization"
            assert name, f"{path.name}: {doc['kind']} without a name"
            objects[f"{doc['kind']}/{name}"] = doc | {"_file": path.name}
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
        "Secret": "v1",
        "PersistentVolumeClaim": "v1",
        "Deployment": "apps/v1",
        "Service": "v1",
        "RayCluster": "ray.io/v1",
        "RayJob": "ray.io/v1",
        "ServiceMonitor": "monitoring.coreos.com/v1",
        "PodMonitor": "monitoring.coreos.com/v1",
        "PrometheusRule": "monitoring.coreos.com/v1",
    }
    resources = one("Kustomization")["resources"]
    for resource in resources:
        assert (K8S / resource).is_file(), f"kustomization lists a missing file {resource}"
    listed = {OBJECTS[k]["_file"] for k in OBJECTS if not k.startswith("Kustomization")}
    assert listed - set(resources) == {"rayjob.yaml"}  # jobs are created one by one


def container(pod_spec: dict[str, Any], name: str | None = None) -> dict[str, Any]:
    containers = pod_spec["containers"]
    assert containers and all("image" in c and "name" in c for c in containers)
    return containers[0] if name is None else next(c for c in containers if c["name"] == name)


def test_the_server_deployment_probes_grpc_health_and_reads_its_tokens_from_the_secret() -> None:
    deployment = one("Deployment")
    spec = deployment["spec"]
    pod = spec["template"]
    assert spec["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items()
    assert spec["replicas"] == 1 and spec["strategy"]["type"] == "Recreate"  # one SQLite writer
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    server = container(pod["spec"])
    ports = {p["name"]: p["containerPort"] for p in server["ports"]}
    assert ports == {"grpc": 50051, "metrics": 9100}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert server[probe]["grpc"]["port"] == ports["grpc"], probe
    args = server["args"]
    assert args[0] == "serve" and "--port=50051" in args and "--metrics-port=9100" in args
    secret = one("Secret")
    referenced = {
        (e["valueFrom"]["secretKeyRef"]["name"], e["valueFrom"]["secretKeyRef"]["key"])
        for e in server["env"]
        if "valueFrom" in e
    }
    assert referenced == {(secret["metadata"]["name"], k) for k in secret["stringData"]}
    claims = [v["persistentVolumeClaim"]["claimName"] for v in pod["spec"]["volumes"] if
              "persistentVolumeClaim" in v]  # fmt: skip
    assert claims == [one("PersistentVolumeClaim")["metadata"]["name"]]


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
    assert "rayStartParams" in head
    head_container = container(head["template"]["spec"])
    assert {p["name"] for p in head_container["ports"]} >= {"gcs", "client", "metrics"}
    assert spec["workerGroupSpecs"], "a RayCluster needs a worker group"
    for group in spec["workerGroupSpecs"]:
        assert group["groupName"] and "rayStartParams" in group
        assert group["minReplicas"] <= group["replicas"] <= group["maxReplicas"]
        container(group["template"]["spec"])
    assert job["spec"]["clusterSelector"] == {"ray.io/cluster": cluster["metadata"]["name"]}
    entrypoint = job["spec"]["entrypoint"].split()
    assert entrypoint[:2] == ["arena", "tournament"]
    assert entrypoint[entrypoint.index("--address") + 1] == "auto"
    metrics_port = int(entrypoint[entrypoint.index("--metrics-port") + 1])
    assert metrics_port in {p["containerPort"] for p in head_container["ports"]}
    head_labels = head["template"]["metadata"]["labels"]
    assert pod_monitor["spec"]["selector"]["matchLabels"].items() <= head_labels.items()


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


def test_the_alerts_cover_stalls_timeouts_and_store_errors_with_exported_metrics() -> None:
    rules = {rule["alert"]: rule for rule in alert_rules()}
    assert set(rules) == {
        "ArenaNoDealsFinished",
        "ArenaDecisionTimeoutRateHigh",
        "ArenaStoreWriteErrors",
    }
    exported = metric_names()
    for name, rule in rules.items():
        used = metrics_in(rule["expr"])
        assert used and used <= set(exported), f"{name} uses {used - set(exported)}"
        assert rule["labels"]["severity"] in {"warning", "critical"}
        assert rule["annotations"]["summary"]
    assert "arena_deals_finished_total" in metrics_in(rules["ArenaNoDealsFinished"]["expr"])


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


@pytest.mark.skipif(shutil.which("docker") is None, reason="docker not installed")
def test_compose_config_is_accepted_by_docker_compose() -> None:
    probe = subprocess.run(["docker", "compose", "version"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("the docker compose plugin is not installed")
    result = subprocess.run(
        ["docker", "compose", "-f", str(DEPLOY / "docker-compose.yml"), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_the_image_is_multi_stage_and_runs_as_a_non_root_user() -> None:
    text = (DEPLOY / "Dockerfile").read_text()
    stages = re.findall(r"^FROM\s+\S+\s+AS\s+(\w+)", text, flags=re.MULTILINE | re.IGNORECASE)
    assert len(stages) >= 2
    final = text.split(f"AS {stages[-1]}", 1)[1]
    assert "COPY --from=build" in final
    [user] = re.findall(r"^USER\s+(\S+)", final, flags=re.MULTILINE)
    assert user.split(":")[0] not in {"0", "root"}
    assert re.search(r'^ENTRYPOINT \["arena"\]', final, flags=re.MULTILINE)


def promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None
    return subprocess.run(
        [PROMTOOL, *args], capture_output=True, text=True, check=False, cwd=DEPLOY, timeout=60
    )


@needs_promtool
@pytest.mark.parametrize("config", ["prometheus.yml", "k8s/prometheus-scrape.yml"])
def test_promtool_accepts_the_prometheus_configs(config: str) -> None:
    result = promtool("check", "config", config)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_promtool
def test_promtool_accepts_the_rules_and_their_unit_tests_pass() -> None:
    checked = promtool("check", "rules", "alerts.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "3 rules found" in checked.stdout
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


@pytest.mark.parametrize("where", sorted(_arena_command_lines()))
def test_every_arena_command_line_of_the_deployment_parses(where: str) -> None:
    from arena.cli import build_parser

    args = build_parser().parse_args(_arena_command_lines()[where])
    if args.command == "serve":
        assert args.host == "0.0.0.0" and args.metrics_port == 9100  # reachable in a container
        assert args.metrics_host == "0.0.0.0"


def test_the_server_is_given_longer_to_stop_than_its_matches_to_drain() -> None:
    from arena.cli import build_parser

    pod = one("Deployment")["spec"]["template"]["spec"]
    drain = build_parser().parse_args(pod["containers"][0]["args"]).drain
    assert pod["terminationGracePeriodSeconds"] > drain
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text(encoding="utf-8"))
    arena = compose["services"]["arena"]
    compose_drain = build_parser().parse_args(arena["command"]).drain
    assert int(arena["stop_grace_period"].rstrip("s")) > compose_drain
