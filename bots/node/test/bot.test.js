// The bot's decision and retry logic, the session's protocol flow, the command line and
// the loaded contract, all without a server (node --test).

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { parseOptions } from "../bot.js";
import { loadArena } from "../lib/client.js";
import { RandomPolicy, actionKey, seededRandom } from "../lib/policy.js";
import { ArenaError, Session, Stats, counted, describeMatch } from "../lib/session.js";

const PASS = { verb: "pass", cards: [], tag: "", text: "pass" };
const PAIR = { verb: "play", cards: ["3s", "3d"], tag: "", text: "play 3s 3d" };
const SINGLE = { verb: "play", cards: ["Ah"], tag: "", text: "play Ah" };
const LEGAL = { actions: [PASS, PAIR, SINGLE], complete: true, description: "" };
const SAMPLE = { actions: [PAIR, SINGLE], complete: false, description: "any cards of one suit" };

/** A session whose sent messages are collected in `sent`. */
function session({ matches = 1, legalPolicy, variants = ["guandan"], fillAfterMs, fillBot } = {}) {
  const sent = [];
  const logs = [];
  const warnings = [];
  const s = new Session({
    policy: legalPolicy ?? new RandomPolicy(seededRandom(1)),
    send: (m) => sent.push(m),
    variants,
    rated: true,
    matches,
    fillAfterMs,
    fillBot,
    stats: new Stats(),
    log: (l) => logs.push(l),
    warn: (l) => warnings.push(l),
    now: () => 0,
  });
  return { s, sent, logs, warnings };
}

const welcome = {
  body: "welcome",
  welcome: { bot_name: "nb", connection_id: "c-1", server_version: "0.1", protocol: 1 },
};
const seat = {
  body: "seat_assigned",
  seat_assigned: {
    match: { match_id: "m-1", variant: "guandan", players: ["a", "nb", "b", "c"] },
    player: 1,
    partner: "c",
    opponents: ["a", "b"],
  },
};
const decision = (id, legal = LEGAL) => ({
  body: "decision",
  decision: { request_id: id, match_id: "m-1", deal: 1, observation: { legal } },
});
const result = (id, status, extra = {}) => ({
  body: "action_result",
  action_result: { request_id: id, match_id: "m-1", status, reason: "", ...extra },
});
const matchResult = {
  body: "match_result",
  match_result: {
    match_id: "m-1",
    reason: "END_REASON_COMPLETE",
    winner_team: 1,
    totals: [-3, 3, -3, 3],
    deals: 4,
    summary: "team 1 wins after 4 deals",
  },
};

describe("RandomPolicy", () => {
  it("picks only listed actions, each of them sometimes", () => {
    const policy = new RandomPolicy(seededRandom(42));
    const seen = new Set();
    for (let i = 0; i < 200; i++) {
      const choice = policy.choose(LEGAL);
      assert.ok(LEGAL.actions.includes(choice.action));
      assert.equal(choice.sampled, false);
      seen.add(choice.action.text);
    }
    assert.deepEqual([...seen].sort(), ["pass", "play 3s 3d", "play Ah"]);
  });

  it("plays from the sample when the list is incomplete", () => {
    const choice = new RandomPolicy(seededRandom(3)).choose(SAMPLE);
    assert.ok(SAMPLE.actions.includes(choice.action));
    assert.equal(choice.sampled, true);
  });

  it("never repeats a refused action, and gives up when all were refused", () => {
    const policy = new RandomPolicy(seededRandom(5));
    const tried = new Set(["pass", "play Ah"]);
    for (let i = 0; i < 20; i++) assert.equal(policy.choose(LEGAL, tried).action, PAIR);
    tried.add("play 3s 3d");
    assert.equal(policy.choose(LEGAL, tried), null);
    assert.equal(policy.choose({ actions: [], complete: true }), null);
  });

  it("is reproducible from its seed", () => {
    const a = seededRandom(9);
    const b = seededRandom(9);
    const xs = Array.from({ length: 5 }, a);
    assert.deepEqual(xs, Array.from({ length: 5 }, b));
    assert.ok(xs.every((x) => x >= 0 && x < 1));
  });

  it("keys actions by their text form, else the structured form", () => {
    assert.equal(actionKey(PAIR), "play 3s 3d");
    assert.equal(actionKey({ verb: "play", cards: ["3s", "3d", "4s", "4d", "2h", "2h"], tag: "pair_run" }),
      "play 3s 3d 4s 4d 2h 2h as pair_run");
    assert.equal(actionKey({ verb: "pass", cards: [] }), "pass");
  });
});

describe("Session", () => {
  it("says Hello, joins after Welcome and pings", () => {
    const { s, sent } = session({ matches: 2, variants: ["sanfu"] });
    s.start();
    assert.deepEqual(sent, [{ hello: { protocol: 2, client: "arena-node-bot 0.1.0" } }]);
    s.handle(welcome);
    assert.deepEqual(sent[1], { join: { variants: ["sanfu"], rated: true, matches: 2 } });
    assert.ok(sent[2].ping.nonce.length > 0);
    s.handle({ body: "pong", pong: { nonce: sent[2].ping.nonce } });
    assert.equal(s.ping, null);
    assert.equal(s.botName, "nb");
  });

  it("asks for fill bots in its Join when told to, and says so once joined", () => {
    const { s, sent, logs } = session({ fillAfterMs: 1500, fillBot: "first" });
    s.handle(welcome);
    assert.deepEqual(sent[0], {
      join: { variants: ["guandan"], rated: true, matches: 1, fill_after_ms: 1500, fill_bot: "first" },
    });
    s.handle({ body: "joined", joined: { variants: ["guandan"], rated: true, matches: 1 } });
    assert.equal(
      logs.at(-1),
      "waiting for a rated match of guandan, 1 match to play; 'first' fills empty seats after 1.5 s",
    );
    const server = session({ fillAfterMs: 50 });
    server.s.handle(welcome);
    assert.equal(server.sent[0].join.fill_bot, "", "empty: the server's default bot");
    server.s.handle({ body: "joined", joined: { variants: ["guandan"], rated: true, matches: 1 } });
    assert.match(server.logs.at(-1), /; 'random' fills empty seats after 0.05 s$/);
  });

  it("answers a decision with a listed action, naming the request", () => {
    const { s, sent } = session();
    s.handle(decision("r-1"));
    assert.equal(sent.length, 1);
    assert.equal(sent[0].action.request_id, "r-1");
    assert.ok(LEGAL.actions.includes(sent[0].action.action));
    assert.equal(s.stats.decisions, 1);
    assert.equal(s.stats.sampled, 0);
    s.handle(decision("r-2", SAMPLE));
    assert.ok(SAMPLE.actions.includes(sent[1].action.action));
    assert.equal(s.stats.sampled, 1);
  });

  it("answers protocol 2's listed texts by index, and retries with another", () => {
    const { s, sent } = session();
    const texts = { texts: ["pass", "play 3s 3d", "play Ah"], complete: true, description: "" };
    const events = [{ seq: 1, deal: 1, kind: "play", seat: 0, cards: ["4s"] }];
    s.deal = 1;
    s.handle({
      body: "decision",
      decision: { request_id: "r-1", match_id: "m-1", deal: 1, observation: { legal: texts, events } },
    });
    assert.equal(s.events, 1, "the events inside the request are kept");
    const first = sent[0].action;
    assert.deepEqual(Object.keys(first).sort(), ["index", "request_id"]);
    assert.ok(first.index >= 0 && first.index < 3);
    s.handle(result("r-1", "ACTION_STATUS_ILLEGAL", { reason: "GD-9", attempts_left: 9, decision_ms: 900 }));
    assert.notEqual(sent[1].action.index, first.index);
  });

  it("retries after ILLEGAL and MALFORMED with another action, then stops when closed", () => {
    const { s, sent, warnings } = session();
    s.handle(decision("r-1"));
    const first = sent[0].action.action.text;
    s.handle(result("r-1", "ACTION_STATUS_ILLEGAL", { reason: "GD-9", attempts_left: 9, decision_ms: 900 }));
    assert.equal(sent.length, 2);
    const second = sent[1].action.action.text;
    assert.notEqual(second, first);
    s.handle(result("r-1", "ACTION_STATUS_MALFORMED", { reason: "bad", attempts_left: 8, decision_ms: 800 }));
    const third = sent[2].action.action.text;
    assert.deepEqual(new Set([first, second, third]), new Set(["pass", "play 3s 3d", "play Ah"]));
    assert.equal(s.stats.retries, 2);
    s.handle(result("r-1", "ACTION_STATUS_ILLEGAL", { attempts_left: 7, decision_ms: 700 }));
    assert.equal(sent.length, 3, "every listed action was refused: nothing left to send");
    assert.match(warnings.at(-1), /no listed action left to try/);
    s.handle(result("r-1", "ACTION_STATUS_TIMED_OUT", { action: PASS }));
    assert.equal(s.decision, null);
    assert.equal(s.stats.timedOut, 1);
  });

  it("does not retry without attempts or time left, nor for another request", () => {
    const { s, sent } = session();
    s.handle(decision("r-1"));
    s.handle(result("r-1", "ACTION_STATUS_ILLEGAL", { attempts_left: 0, decision_ms: 500 }));
    s.handle(result("r-1", "ACTION_STATUS_ILLEGAL", { attempts_left: 3, decision_ms: 0 }));
    s.handle(result("r-0", "ACTION_STATUS_ILLEGAL", { attempts_left: 3, decision_ms: 500 }));
    assert.equal(sent.length, 1);
    s.handle(result("r-1", "ACTION_STATUS_ACCEPTED", { action: sent[0].action.action }));
    assert.equal(s.decision, null);
  });

  it("leaves when seated in its last match, and is done after the MatchResult", () => {
    const { s, sent, logs } = session({ matches: 1 });
    s.handle(welcome);
    s.handle(seat);
    assert.deepEqual(sent.at(-1), { leave: { now: false } });
    assert.equal(s.done, false);
    s.handle(matchResult);
    assert.equal(s.done, true);
    assert.equal(s.stats.matches.length, 1);
    assert.equal(
      logs.at(-1),
      "match m-1 (guandan) as player 1: team 1 wins after 4 deals [END_REASON_COMPLETE], " +
        "4 deals, totals -3 3 -3 3; own total 3",
    );
    assert.match(s.stats.summary("nb"), /^nb: 1 match played \(guandan 1\); 0 decisions/);
  });

  it("keeps playing when more matches are wanted", () => {
    const { s, sent } = session({ matches: 2 });
    s.handle(seat);
    s.handle(matchResult);
    assert.equal(s.done, false);
    assert.ok(!sent.some((m) => m.leave));
    s.handle(seat);
    assert.deepEqual(sent.at(-1), { leave: { now: false } });
  });

  it("fails on an Error refusing the Join, warns on other errors", () => {
    const { s, warnings } = session();
    s.handle({ body: "error", error: { code: "RESOURCE_EXHAUSTED", message: "slow down", request_id: "" } });
    assert.equal(s.failure, null);
    assert.match(warnings[0], /RESOURCE_EXHAUSTED/);
    s.handle({ body: "error", error: { code: "INVALID_ARGUMENT", message: "unknown variant 'gandan'", request_id: "" } });
    assert.ok(s.failure instanceof ArenaError);
    assert.equal(s.failure.message, "INVALID_ARGUMENT: unknown variant 'gandan'");
    assert.equal(s.done, true);
  });

  it("leaves at once on request, or ends when idle", () => {
    const idle = session();
    idle.s.leave(false);
    assert.deepEqual(idle.sent, [{ leave: { now: false } }]);
    assert.equal(idle.s.done, true);
    const seated = session({ matches: null });
    seated.s.handle(seat);
    seated.s.leave(false);
    assert.equal(seated.s.done, false);
    seated.s.leave(true);
    assert.deepEqual(seated.sent.at(-1), { leave: { now: true } });
    assert.equal(seated.s.done, true);
  });

  it("ignores bodies it does not know and notes Draining", () => {
    const { s, warnings } = session();
    s.handle({ body: "something_new", something_new: {} });
    s.handle({ body: "draining", draining: { reason: "upgrade", deadline: { seconds: "0", nanos: 0 } } });
    assert.equal(s.draining, true);
    assert.match(warnings[0], /server draining: upgrade \(matches cut at 1970-01-01T00:00:00.000Z\)/);
  });

  it("describes a match without a player", () => {
    const line = describeMatch({
      matchId: "m", variant: "sanfu", player: null, reason: "END_REASON_DEAL_LIMIT",
      totals: [1, 2, 3, -6], deals: 2, summary: "",
    });
    assert.equal(line, "match m (sanfu): END_REASON_DEAL_LIMIT [END_REASON_DEAL_LIMIT], 2 deals, totals 1 2 3 -6");
  });
});

describe("command line", () => {
  it("takes the token from the environment and repeats --variant", () => {
    const o = parseOptions(["--variant", "sanfu", "--variant", "shengji-2", "--matches", "3", "--casual"],
      { ARENA_BOT_TOKEN: "tok" });
    assert.equal(o.token, "tok");
    assert.deepEqual(o.variants, ["sanfu", "shengji-2"]);
    assert.equal(o.matches, 3);
    assert.equal(o.rated, false);
    assert.equal(o.server, "127.0.0.1:50051");
    const d = parseOptions(["--token", "x"], {});
    assert.deepEqual(d.variants, ["guandan"]);
    assert.equal(d.matches, null);
    assert.equal(d.rated, true);
  });

  it("registers with an owner key instead of playing", () => {
    const o = parseOptions(["--register", "nb", "--variant", "sanfu"], { ARENA_OWNER_KEY: "k" });
    assert.equal(o.mode, "register");
    assert.equal(o.name, "nb");
    assert.equal(o.ownerKey, "k");
    assert.deepEqual(o.games, ["sanfu"]);
    assert.deepEqual(parseOptions(["--register", "nb", "--owner-key", "k2"], {}).games, []);
    assert.throws(() => parseOptions(["--register", "nb"], {}), /no owner key/);
    assert.throws(() => parseOptions(["--register", "", "--owner-key", "k"], {}), /bot name/);
  });

  it("asks for fill bots with --fill-after and --fill-bot", () => {
    const o = parseOptions(["--token", "x", "--fill-after", "2.5", "--fill-bot", "heuristic"], {});
    assert.equal(o.fillAfterMs, 2500);
    assert.equal(o.fillBot, "heuristic");
    const d = parseOptions(["--token", "x"], {});
    assert.equal(d.fillAfterMs, 0, "0: wait for bots as long as it takes");
    assert.equal(d.fillBot, "");
    for (const bad of ["0", "-1", "soon", "1e3", "5000000"]) {
      assert.throws(() => parseOptions(["--token", "x", `--fill-after=${bad}`], {}), /--fill-after must be seconds/);
    }
    assert.throws(() => parseOptions(["--token", "x", "--fill-bot", ""], {}), /--fill-bot needs/);
  });

  it("refuses bad input with a message", () => {
    assert.throws(() => parseOptions([], {}), /no token/);
    assert.throws(() => parseOptions(["--token", "x", "--matches", "0"], {}), /at least 1/);
    assert.throws(() => parseOptions(["--token", "x", "--server", "nohost"], {}), /HOST:PORT/);
    assert.throws(() => parseOptions(["--token", "x", "--bogus"], {}), /bogus/);
  });
});

describe("the contract", () => {
  it("loads arena.v1 from the repository and round-trips Play messages", () => {
    const arena = loadArena();
    const connect = arena.Play.service.Connect;
    assert.equal(connect.path, "/arena.v1.Play/Connect");
    assert.ok(connect.requestStream && connect.responseStream);
    const reply = { action: { request_id: "r-7", action: PAIR } };
    const bytes = connect.requestSerialize(reply);
    const back = connect.requestDeserialize(bytes);
    assert.equal(back.body, "action");
    assert.equal(back.action.request_id, "r-7");
    assert.deepEqual(back.action.action.cards, ["3s", "3d"]);
    const server = connect.responseDeserialize(
      connect.responseSerialize({ match_result: { match_id: "m", winner_team: 0, totals: [1] } }),
    );
    assert.equal(server.body, "match_result");
    assert.equal(server.match_result.winner_team, 0, "seat 0 is a real value, not unset");
    const byIndex = connect.requestDeserialize(
      connect.requestSerialize({ action: { request_id: "r-8", index: 0 } }),
    );
    assert.equal(byIndex.action.index, 0, "index 0 is sent, not taken for unset");
    const join = connect.requestDeserialize(
      connect.requestSerialize({ join: { variants: ["guandan"], fill_after_ms: 50, fill_bot: "first" } }),
    );
    assert.equal(join.join.fill_after_ms, 50, "the Join's field names are the contract's");
    assert.equal(join.join.fill_bot, "first");
    const unset = connect.responseDeserialize(connect.responseSerialize({ match_result: {} }));
    assert.equal(unset.match_result.winner_team, undefined);
  });

  it("names the missing contract", () => {
    assert.throws(() => loadArena("/nonexistent"), /no arena\/v1\/arena.proto under \/nonexistent/);
  });
});

describe("counts", () => {
  it("say their noun singular for one and plural for every other count", () => {
    assert.deepEqual(
      [0, 1, 2].map((n) => counted(n, "match", "matches")),
      ["0 matches", "1 match", "2 matches"],
    );
    assert.deepEqual([0, 1, 2].map((n) => counted(n, "decision")), [
      "0 decisions",
      "1 decision",
      "2 decisions",
    ]);
  });
});
