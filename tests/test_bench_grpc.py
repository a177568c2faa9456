"""``arena bench grpc``: remote SDK bots play, round trips are measured, the baseline runs."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from google.protobuf import json_format, struct_pb2
from printed import Printed, agree, figure, figures

from arena._proto.arena.v1 import arena_pb2
from arena.cli import main
from arena.client.wire import facts_from_struct, observation_from_proto
from arena.commands.bench_grpc import LATENCY_MATCHES, percentile
from arena.errors import ParseError
from arena.games import make
from arena.protocol import action_from_proto
from arena.server.remote import observation_to_proto, struct


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([3.0], 0.99) == 3.0
    assert math.isnan(percentile([], 0.5))


def test_bench_grpc_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "grpc", "--variant", "shengji-1", "--matches", "2", "--deals", "1"]
    assert main([*argv, "--one-process", "--threads", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["variant"] == "shengji-1" and report["layout"] == "one process"
    assert report["act"] == "in worker threads"
    latency, concurrent, local = report["latency"], report["concurrent"], report["in_process"]
    assert latency["matches"] == 4 and latency["decisions"] > 0
    assert concurrent["matches"] == 2 and concurrent["decisions"] > 0
    assert local["matches"] == 2 and local["decisions"] > 0
    for phase in (latency, concurrent):
        assert 0 < phase["p50_ms"] <= phase["p99_ms"]
        assert phase["decisions_per_second"] > 0
    assert report["slowdown"] == pytest.approx(
        local["decisions_per_second"] / concurrent["decisions_per_second"]
    )
    goals = {"p50", "p99", "throughput", "server_cpu_us", "sdk_cpu_us"}
    assert set(report["met"]) == set(report["targets"]) == goals
    assert "DecisionRequest" in report["round_trip"] and "echo" in report["round_trip"]
    assert report["message_bytes"]["request"] > report["message_bytes"]["reply"] > 0
    assert set(concurrent["cpu_us_per_decision"]) == {"server and bots"}
    assert local["cpu_us_per_decision"] > 0 and report["cpu_slowdown"] > 0
    assert_counts_agree(report)


def assert_counts_agree(report: dict[str, Any]) -> None:
    """Every rate of a JSON report is its counts over its seconds, every ratio the
    quotient of the two figures it compares."""
    latency, concurrent, local = report["latency"], report["concurrent"], report["in_process"]
    for phase in (latency, concurrent, local):
        assert phase["seconds"] > 0 and phase["decisions"] >= phase["matches"]
        rate = phase["decisions_per_second"]
        assert rate * phase["seconds"] == pytest.approx(phase["decisions"])
    assert latency["matches"] == LATENCY_MATCHES
    assert report["slowdown"] == pytest.approx(
        local["decisions_per_second"] / concurrent["decisions_per_second"]
    )
    remote_cpu = sum(concurrent["cpu_us_per_decision"].values())
    assert report["cpu_slowdown"] == pytest.approx(remote_cpu / local["cpu_us_per_decision"])
    echo_one, echo_many = report["echo_latency"], report["echo_concurrent"]
    assert echo_one["streams"] == 1 and echo_many["streams"] == concurrent["matches"]
    assert echo_one["round_trips"] >= latency["decisions"]  # as many as the server timed
    for echo in (echo_one, echo_many):
        assert 0 < echo["p50_ms"] <= echo["p99_ms"]
        rate = echo["round_trips_per_second"]
        assert rate * echo["seconds"] == pytest.approx(echo["round_trips"])
    ratios, targets, met = report["ratios"], report["targets"], report["met"]
    assert ratios["p50"] == pytest.approx(latency["p50_ms"] / echo_one["p50_ms"])
    assert ratios["p99"] == pytest.approx(latency["p99_ms"] / echo_one["p99_ms"])
    throughput = concurrent["decisions_per_second"] / echo_many["round_trips_per_second"]
    assert ratios["throughput"] == pytest.approx(throughput)
    assert met["p50"] == (ratios["p50"] <= targets["p50"])
    assert met["p99"] == (ratios["p99"] <= targets["p99"])
    assert met["throughput"] == (ratios["throughput"] >= targets["throughput"])


def test_bench_grpc_text_report_with_bots_in_a_second_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "grpc", "--variant", "guandan", "--matches", "1", "--deals", "1"]) == 0
    out = capsys.readouterr().out
    assert "two processes" in out and "act inline" in out and "round trip = " in out
    assert "1 match at a time" in out and "remote decisions/s" in out
    assert "bare grpc.aio echo (the baseline)" in out
    assert "target ≤ 1.3" in out and "target ≤ 2.0" in out and "target ≥ 0.6" in out
    assert "CPU µs per decision" in out and "server ≤ 150" in out and "SDK ≤ 100" in out
    p50, p99, echo_p50, echo_p99 = figures(
        "decisions): p50 {} ms, p99 {} ms; echo, 1 stream: p50 {} ms, p99 {} ms", out
    )
    p50_ratio = figure("p50 {}x the echo (target", out)
    p99_ratio = figure("p99 {}x (target", out)
    agree("p50 over the echo's", p50_ratio, p50 / echo_p50)
    agree("p99 over the echo's", p99_ratio, p99 / echo_p99)
    matches, decisions, remote, streams, echo_rate, ratio = figures(
        "{} match at once ({} decisions): {} remote decisions/s; echo, {} stream: {} round "
        "trips/s; {}x",
        out,
    )
    assert matches == Printed.of("1") == streams and decisions.low >= 1 and remote.high > 0
    agree("throughput over the echo's", ratio, remote / echo_rate)
    local_matches, local = figures("the same {} match in process (one thread): {}", out)
    assert local_matches == matches and local.high > 0
    agree("slowdown", figure("remote is {}x slower per decision", out), local / remote)
    server, bots = figures("at once): server {}, bots {} (targets", out)
    assert server.high > 0 and bots.high > 0


def test_bench_grpc_refuses_nonsense(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, said in [
        (["--matches", "0"], "--matches: must be an integer from 1 to"),
        (["--variant", "chess"], "--variant: unknown variant 'chess'"),
    ]:
        with pytest.raises(SystemExit) as refused:  # argparse's refusal of the option
            main(["bench", "grpc", *argv])
        assert refused.value.code == 2
        assert said in capsys.readouterr().err


def _reference_facts(message: struct_pb2.Struct) -> object:
    """The facts as ``json_format`` reads them, in the engine's shape."""

    def shape(value: object) -> object:
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items()}
        if isinstance(value, list):
            return tuple(shape(v) for v in value)
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    return shape(json_format.MessageToDict(message))


def test_sdk_hot_path_converters_agree_with_the_reference_ones() -> None:
    """The remembered and direct conversions of the SDK's hot path change no result."""
    facts = {"a": 1, "b": 2.5, "c": [1, None, "x", True], "d": {"e": [], "f": {"g": -3}}}
    assert facts_from_struct(struct(facts)) == _reference_facts(struct(facts))
    for variant in ("guandan", "shengji-2", "sanfu"):
        state = make(variant).new_deal(seed=11)
        for _ in range(3):  # twice seen: converted, then remembered
            message = observation_to_proto(state.observe(state.to_act), 0)
            seen = observation_from_proto(message)
            expected = tuple(action_from_proto(a) for a in message.legal.actions)
            assert seen.legal_actions == expected
            assert seen.public == _reference_facts(message.public_facts)
            assert seen.private == _reference_facts(message.private_facts)
        state.apply(state.legal_actions()[0])
    odd = [
        arena_pb2.Action(verb="play", cards=["3d", "3s"], text="play 3d 3s"),  # any order
        arena_pb2.Action(verb="play", cards=["3d"], text="play 3s"),  # disagree
        arena_pb2.Action(verb="Play", cards=["3d"], text="play 3d"),  # no verb
        arena_pb2.Action(verb="play", cards=["3d"], text="play 3d as x"),  # tag missing
        arena_pb2.Action(verb="play", cards=["10s", "3d"], text="play 10s 3d"),  # not sorted
        arena_pb2.Action(verb="play", cards=["3s 3d"], text="play 3s 3d"),  # one name, two cards
        arena_pb2.Action(verb="play", cards=["3x"], text="play 3x"),  # no such card
        arena_pb2.Action(verb="play", cards=["3x"], text="play 3y"),  # two bad forms
        arena_pb2.Action(verb="play", cards=["3d"], tag="a b", text="play 3d as a b"),
        arena_pb2.Action(verb="", cards=[], text="pass"),  # the text alone
        arena_pb2.Action(verb="pass", text="PASS"),
        arena_pb2.Action(verb="pass", text=""),  # the structured form alone
        arena_pb2.Action(),  # nothing
    ]
    for action in odd:
        legal = arena_pb2.LegalActions(actions=[action])
        message = arena_pb2.Observation(game="guandan", legal=legal)
        try:
            expected_action: object = action_from_proto(action)
        except ParseError as err:
            with pytest.raises(ParseError) as raised:
                observation_from_proto(message)
            assert str(raised.value) == str(err)
        else:
            assert observation_from_proto(message).legal_actions == (expected_action,)
