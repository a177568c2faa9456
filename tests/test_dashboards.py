"""Every PromQL expression of every dashboard (panels and template variables) uses
only metrics the code exports, with labels those metrics carry; every data source is
the board's data source variable, so a board imports into any Grafana."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import promql_parser
import pytest
import yaml

from arena.metrics import metric_names

DASHBOARDS = Path(__file__).resolve().parent.parent / "dashboards"
BOARDS = sorted(DASHBOARDS.glob("*.json"))
TARGET_LABELS = frozenset({"job", "instance"})
"""Labels Prometheus adds to every scraped series."""
GRAFANA_RANGES = re.compile(r"\$\{?(__rate_interval|__interval|__range)\b\}?")
LABEL_VALUES = re.compile(r"^label_values\((?:(?P<query>.+),\s*)?(?P<label>\w+)\)$")


def expressions(board: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, PromQL) of every panel target and every query variable."""
    for panel in board["panels"]:
        for target in panel.get("targets", []):
            yield f"panel {panel['title']!r} {target['refId']}", target["expr"]
    for variable in board["templating"]["list"]:
        if variable["type"] != "query":
            continue
        query = variable["query"]
        text = query["query"] if isinstance(query, dict) else query
        match = LABEL_VALUES.match(text.strip())
        assert match, f"variable {variable['name']}: not a label_values() query: {text}"
        selector = match["query"] or f'{{{match["label"]}=~".+"}}'
        yield f"variable {variable['name']}", f"{selector}"
        yield f"variable {variable['name']} label", f"sum by ({match['label']}) ({selector})"


def parse(expr: str) -> Any:
    """Parse a dashboard expression, Grafana's range variables replaced by a duration."""
    return promql_parser.parse(GRAFANA_RANGES.sub("5m", expr))


def selectors(node: Any) -> Iterator[Any]:
    """Every vector selector of an expression tree."""
    if isinstance(node, promql_parser.VectorSelector):
        yield node
    elif isinstance(node, promql_parser.MatrixSelector):
        yield node.vector_selector
    elif isinstance(node, promql_parser.BinaryExpr):
        yield from selectors(node.lhs)
        yield from selectors(node.rhs)
    elif isinstance(node, promql_parser.Call):
        for arg in node.args:
            yield from selectors(arg)
    elif isinstance(
        node,
        promql_parser.AggregateExpr
        | promql_parser.ParenExpr
        | promql_parser.UnaryExpr
        | promql_parser.SubqueryExpr,
    ):
        yield from selectors(node.expr)


def grouping(node: Any) -> Iterator[tuple[str, set[str], list[Any]]]:
    """(kind, labels) of every ``by`` / ``without`` and ``on`` / ``ignoring`` clause,
    with the selectors beneath it."""
    if isinstance(node, promql_parser.AggregateExpr):
        if node.modifier is not None:
            yield str(node.modifier.type), set(node.modifier.labels), list(selectors(node.expr))
        yield from grouping(node.expr)
    elif isinstance(node, promql_parser.BinaryExpr):
        matching = node.modifier.matching if node.modifier is not None else None
        if matching is not None:
            both = list(selectors(node.lhs)) + list(selectors(node.rhs))
            yield str(matching.type), set(matching.labels), both
        yield from grouping(node.lhs)
        yield from grouping(node.rhs)
    elif isinstance(node, promql_parser.Call):
        for arg in node.args:
            yield from grouping(arg)
    elif isinstance(
        node, promql_parser.ParenExpr | promql_parser.UnaryExpr | promql_parser.SubqueryExpr
    ):
        yield from grouping(node.expr)


def labels_of(selector: Any, exported: dict[str, frozenset[str]]) -> frozenset[str]:
    return exported[selector.name] | TARGET_LABELS


def test_there_are_the_five_dashboards_and_their_provisioning() -> None:
    assert [b.name for b in BOARDS] == [
        "bots.json",
        "overview.json",
        "ratings.json",
        "simulation.json",
        "web.json",
    ]
    uids = [json.loads(b.read_text())["uid"] for b in BOARDS]
    assert len(set(uids)) == len(uids)
    provider = yaml.safe_load((DASHBOARDS / "provisioning/dashboards/arena.yml").read_text())
    assert provider["apiVersion"] == 1
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"
    sources = yaml.safe_load((DASHBOARDS / "provisioning/datasources/prometheus.yml").read_text())
    [source] = sources["datasources"]
    assert source["type"] == "prometheus"
    assert source["isDefault"] is True  # what each board's data source variable picks


def datasource_fields(node: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    """Every ``datasource`` field of a dashboard, wherever it is (panels, targets,
    variables, annotations), with its path."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "datasource":
                yield where, value
            else:
                yield from datasource_fields(value, f"{where}.{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from datasource_fields(item, f"{where}[{i}]")


@pytest.mark.parametrize("path", BOARDS, ids=lambda p: p.stem)
def test_the_data_source_is_a_variable_so_the_board_imports_into_any_grafana(path: Path) -> None:
    board = json.loads(path.read_text())
    [variable] = [v for v in board["templating"]["list"] if v["type"] == "datasource"]
    assert variable["query"] == "prometheus"
    assert not variable.get("current")  # the Grafana's default Prometheus, whatever its uid
    reference = {"type": "prometheus", "uid": f"${{{variable['name']}}}"}
    queries = [v for v in board["templating"]["list"] if v["type"] == "query"]
    for panel in board["panels"]:
        assert panel["datasource"] == reference, f"{path.name} panel {panel['title']!r}"
        for target in panel["targets"]:
            assert target["datasource"] == reference, f"{path.name} {panel['title']!r} target"
    for query in queries:
        assert query["datasource"] == reference, f"{path.name} variable {query['name']}"
    for where, source in datasource_fields(board):
        assert source == reference, f"{path.name}{where}: a data source not the variable"


@pytest.mark.parametrize("path", BOARDS, ids=lambda p: p.stem)
def test_every_expression_uses_exported_metrics_and_their_labels(path: Path) -> None:
    exported = metric_names()
    board = json.loads(path.read_text())
    checked = 0
    for where, expr in expressions(board):
        tree = parse(expr)
        found = list(selectors(tree))
        assert found, f"{path.name} {where}: no metric in {expr}"
        for selector in found:
            assert selector.name in exported, f"{path.name} {where}: unknown metric {selector.name}"
            known = labels_of(selector, exported)
            for matcher in selector.matchers.matchers:
                assert matcher.name in known, (
                    f"{path.name} {where}: {selector.name} has no label {matcher.name!r}"
                )
        for kind, labels, beneath in grouping(tree):
            available = frozenset().union(*(labels_of(s, exported) for s in beneath))
            missing = labels - available
            assert not missing, f"{path.name} {where}: {kind} {sorted(missing)} not carried"
        checked += 1
    assert checked >= 4


def test_the_checker_catches_unknown_metrics_and_labels() -> None:
    exported = metric_names()
    tree = parse('sum by (seat) (rate(arena_deals_finished_total{variant="x"}[$__rate_interval]))')
    [(_, labels, beneath)] = list(grouping(tree))
    assert labels - frozenset().union(*(labels_of(s, exported) for s in beneath)) == {"seat"}
    [selector] = selectors(parse("arena_no_such_thing_total"))
    assert selector.name not in exported


def family(name: str) -> str:
    """A metric's family: a histogram's ``_bucket``, ``_count`` and ``_sum`` are one."""
    return re.sub(r"_(bucket|count|sum)$", "", name)


def test_every_metric_of_the_arena_has_a_panel() -> None:
    used = {
        family(selector.name)
        for path in BOARDS
        for _, expr in expressions(json.loads(path.read_text()))
        for selector in selectors(parse(expr))
    }
    exported = {family(name) for name in metric_names() if name.startswith("arena_")}
    assert exported - used == set(), "metrics no dashboard shows"


def test_the_web_board_shows_requests_by_route_and_status_p95_latency_and_5xx() -> None:
    board = json.loads((DASHBOARDS / "web.json").read_text())
    found = [(where, expr, parse(expr)) for where, expr in expressions(board)]

    def grouped(metric: str, labels: set[str]) -> bool:
        return any(
            kind.endswith("By") and labels <= group and any(s.name == metric for s in beneath)
            for _, _, tree in found
            for kind, group, beneath in grouping(tree)
        )

    assert grouped("arena_web_requests_total", {"route", "status"})
    assert grouped("arena_web_request_seconds_bucket", {"route", "le"})
    assert any("histogram_quantile(0.95" in expr for _, expr, _ in found)
    server_errors = [
        selector
        for _, _, tree in found
        for selector in selectors(tree)
        if any(m.name == "status" and m.value == "5.." for m in selector.matchers.matchers)
    ]
    assert server_errors, "no panel of 5xx answers"
