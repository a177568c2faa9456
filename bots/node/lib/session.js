// One Play.Connect stream, as a state machine without I/O.
//
// The client (client.js) feeds every ServerMessage to `handle`; the session answers
// through `send` (one ClientMessage at a time) and says when the stream should end
// (`done`) or has failed (`failure`). Messages are plain objects in the shape
// @grpc/proto-loader gives them: field names as in the .proto, enums by name, the
// `body` oneof named in `message.body`, unset optional fields absent.
//
// The flow (docs/protocol.md, "Play: a bot's connection"), protocol 2:
//   Hello → Welcome; Join → Joined; SeatAssigned; per deal DealStarted,
//   DecisionRequest (the events since the last one inside) → ActionReply (the action's
//   index), an ActionResult only when the answer is refused or late, DealResult;
//   MatchResult. An answer is accepted when the seat's next DecisionRequest names it
//   (`accepted`) or the deal ends.

export const PROTOCOL = 2;
export const CLIENT = "arena-node-bot 0.1.0";
/** The built-in bot a server fills seats with when the Join names none. */
export const DEFAULT_FILL_BOT = "random";

const RETRY = new Set(["ACTION_STATUS_ILLEGAL", "ACTION_STATUS_MALFORMED"]);
/** Error codes that make a connection useless: the Join (or the Hello) was refused. */
const FATAL_ERRORS = new Set(["INVALID_ARGUMENT", "FAILED_PRECONDITION", "PERMISSION_DENIED"]);

/** A refusal by the server that ends the run (an Error body or a call status). */
export class ArenaError extends Error {
  /**
   * @param {string} code a gRPC status name ("UNAUTHENTICATED" …)
   * @param {string} message what the server said
   */
  constructor(code, message) {
    super(`${code}: ${message}`);
    this.name = "ArenaError";
    this.code = code;
  }
}

/** What a run did, over all its connections. */
export class Stats {
  constructor() {
    /** @type {{matchId: string, variant: string, player: number | null, reason: string,
     *   winnerTeam: number | null, totals: number[], deals: number, summary: string}[]} */
    this.matches = [];
    this.decisions = 0;
    /** Decisions answered from an incomplete (sampled) legal list. */
    this.sampled = 0;
    /** Replies sent again after an ILLEGAL or MALFORMED result. */
    this.retries = 0;
    /** Decisions the server made by automatic play (TIMED_OUT). */
    this.timedOut = 0;
    this.reconnects = 0;
  }

  /** The summary line printed at the end of a run. */
  summary(botName) {
    const byVariant = new Map();
    for (const m of this.matches) byVariant.set(m.variant, (byVariant.get(m.variant) ?? 0) + 1);
    const variants = [...byVariant].sort().map(([v, n]) => `${v} ${n}`).join(", ");
    return (
      `${botName || "bot"}: ${counted(this.matches.length, "match", "matches")} played` +
      (variants ? ` (${variants})` : "") +
      `; ${counted(this.decisions, "decision")}, ${this.sampled} from sampled legal lists, ` +
      `${counted(this.retries, "retry", "retries")} after refusals, ${this.timedOut} timed out, ` +
      `${counted(this.reconnects, "reconnect")}`
    );
  }
}

/** A count and its noun in the number the count takes: "1 match", "0 matches". */
export function counted(n, one, other = `${one}s`) {
  return `${n} ${Math.abs(Number(n)) === 1 ? one : other}`;
}

/** One line for a MatchResult. */
export function describeMatch(m) {
  const seat = m.player === null ? "" : ` as player ${m.player}`;
  const own = m.player === null ? "" : `; own total ${m.totals[m.player]}`;
  return (
    `match ${m.matchId} (${m.variant})${seat}: ${m.summary || m.reason} ` +
    `[${m.reason}], ${m.deals} deals, totals ${m.totals.join(" ")}${own}`
  );
}

export class Session {
  /**
   * @param {object} o
   * @param {{choose: Function}} o.policy picks an action from a LegalActions
   * @param {(message: object) => void} o.send writes one ClientMessage
   * @param {string[]} o.variants variants to join (empty: every variant offered)
   * @param {boolean} o.rated rated or casual matches
   * @param {number | null} o.matches matches to play in the run (null: no limit)
   * @param {number} [o.fillAfterMs] ask for built-in bots in the seats still empty after
   *   this wait (0: wait for bots as long as it takes)
   * @param {string} [o.fillBot] the built-in bot that fills them (empty: the server's, random)
   * @param {Stats} o.stats shared by the run's connections
   * @param {(line: string) => void} [o.log] progress lines (stdout)
   * @param {(line: string) => void} [o.warn] warnings (stderr)
   * @param {boolean} [o.verbose] log every deal, event and decision too
   * @param {() => number} [o.now] a clock in milliseconds (for the Ping round trip)
   */
  constructor({
    policy,
    send,
    variants,
    rated,
    matches,
    fillAfterMs,
    fillBot,
    stats,
    log,
    warn,
    verbose,
    now,
  }) {
    this.policy = policy;
    this.send = send;
    this.variants = variants;
    this.rated = rated;
    this.matches = matches;
    this.fillAfterMs = fillAfterMs ?? 0;
    this.fillBot = fillBot ?? "";
    this.stats = stats;
    this.log = log ?? (() => {});
    this.warn = warn ?? (() => {});
    this.verbose = Boolean(verbose);
    this.now = now ?? (() => performance.now());

    this.welcome = null;
    this.match = null;
    this.player = null;
    this.deal = 0;
    this.events = 0;
    /** @type {{requestId: string, legal: object, tried: Set<string>, last: string} | null} */
    this.decision = null;
    this.leaving = false;
    this.draining = false;
    this.done = false;
    /** @type {ArenaError | null} */
    this.failure = null;
    this.ping = null;
  }

  /** The bot's name as the server knows it (after Welcome). */
  get botName() {
    return this.welcome?.bot_name ?? "";
  }

  /** Matches still to play in the run; 0 when there is no limit. */
  remaining() {
    return this.matches === null ? 0 : Math.max(this.matches - this.stats.matches.length, 0);
  }

  /** Opens the stream: the Hello. */
  start() {
    this.send({ hello: { protocol: PROTOCOL, client: CLIENT } });
  }

  /**
   * Stop playing. `now` false: finish the current match (if any) and take no new one;
   * true: leave the seat at once (it counts as fled).
   */
  leave(now) {
    if (now || this.match === null) {
      this.done = true; // set first: the client ends the call once this is sent
      this.send({ leave: { now: Boolean(now) } });
    } else if (!this.leaving) {
      this.leaving = true;
      this.send({ leave: { now: false } });
    }
  }

  /** Handles one ServerMessage. */
  handle(message) {
    const body = message.body;
    const handler = body ? this[`on_${body}`] : undefined;
    if (typeof handler === "function") handler.call(this, message[body]);
    // bodies this version does not know are ignored (forward compatibility)
  }

  on_welcome(welcome) {
    this.welcome = welcome;
    this.log(
      `connected as ${welcome.bot_name} (connection ${welcome.connection_id}, ` +
        `server ${welcome.server_version}, protocol ${welcome.protocol})`,
    );
    const join = { variants: this.variants, rated: this.rated, matches: this.remaining() };
    if (this.fillAfterMs > 0) {
      join.fill_after_ms = this.fillAfterMs;
      join.fill_bot = this.fillBot;
    }
    this.send({ join });
    this.ping = { nonce: String(Math.floor(Math.random() * 2 ** 52)), sent: this.now() };
    this.send({ ping: { nonce: this.ping.nonce } });
  }

  on_joined(joined) {
    const left = joined.matches ? `, ${counted(joined.matches, "match", "matches")} to play` : "";
    const fill = this.fillAfterMs
      ? `; '${this.fillBot || DEFAULT_FILL_BOT}' fills empty seats after ${this.fillAfterMs / 1000} s`
      : "";
    this.log(
      `waiting for a ${joined.rated ? "rated" : "casual"} match of ` +
        `${joined.variants.join(", ")}${left}${fill}`,
    );
  }

  on_pong(pong) {
    if (this.ping !== null && pong.nonce === this.ping.nonce) {
      const ms = this.now() - this.ping.sent;
      if (this.verbose) this.log(`ping round trip ${ms.toFixed(1)} ms`);
      this.ping = null;
    }
  }

  on_seat_assigned(seat) {
    this.match = seat.match;
    this.player = seat.player ?? null;
    this.deal = 0;
    const partner = seat.partner ? `, partner ${seat.partner}` : "";
    this.log(
      `match ${seat.match.match_id} (${seat.match.variant}) starts: player ` +
        `${this.player}${partner}; players ${seat.match.players.join(", ")}`,
    );
    this.leaveAfterLastMatch();
  }

  /** In the last match of the run: ask for no other. */
  leaveAfterLastMatch() {
    if (this.matches !== null && this.stats.matches.length + 1 >= this.matches) {
      this.leave(false);
    }
  }

  on_deal_started(deal) {
    this.deal = deal.deal;
    this.events = 0;
    this.decision = null;
    if (this.verbose) {
      this.log(`deal ${deal.deal}: seat ${deal.seat}, hand ${deal.hand.join(" ") || "(none yet)"}`);
    }
  }

  on_events(batch) {
    for (const event of batch.events) {
      if (event.deal !== this.deal) continue;
      this.events += 1;
      if (this.verbose) {
        const seat = event.seat === undefined ? "" : ` seat ${event.seat}`;
        this.log(`  #${event.seq}${seat} ${event.kind}: ${event.description}`);
      }
    }
  }

  on_decision(request) {
    this.stats.decisions += 1;
    this.on_events({ events: request.observation?.events ?? [] }); // carried inside
    const legal = request.observation?.legal ?? { texts: [], complete: true };
    this.decision = { requestId: request.request_id, legal, tried: new Set(), last: "" };
    this.answer();
  }

  /** Replies to the open decision with an action not tried yet. */
  answer(retry = false) {
    const decision = this.decision;
    const choice = this.policy.choose(decision.legal, decision.tried);
    if (choice === null) {
      this.warn(
        `request ${decision.requestId}: no listed action left to try ` +
          `(${decision.tried.size} refused); the server will play automatically`,
      );
      return;
    }
    if (!retry && choice.sampled) this.stats.sampled += 1;
    if (retry) this.stats.retries += 1;
    decision.last = choice.key;
    if (this.verbose) {
      const from = choice.sampled ? " (from a sample)" : "";
      this.log(`  ${decision.requestId}: ${retry ? "retry " : ""}${decision.last}${from}`);
    }
    const reply = choice.action ? { action: choice.action } : { index: choice.index };
    this.send({ action: { request_id: decision.requestId, ...reply } });
  }

  on_action_result(result) {
    const decision = this.decision;
    if (decision === null || result.request_id !== decision.requestId) {
      if (result.status === "ACTION_STATUS_STALE") this.warn(`stale reply: ${result.reason}`);
      return;
    }
    if (RETRY.has(result.status)) {
      this.warn(`request ${result.request_id}: ${result.status}: ${result.reason}`);
      decision.tried.add(decision.last);
      if (result.attempts_left > 0 && result.decision_ms > 0) this.answer(true);
      return;
    }
    if (result.status === "ACTION_STATUS_TIMED_OUT") {
      this.stats.timedOut += 1;
      this.warn(`request ${result.request_id} timed out: played ${result.action?.text}`);
    } else if (result.status === "ACTION_STATUS_TOO_MANY_ATTEMPTS") {
      this.warn(`request ${result.request_id}: too many attempts; automatic play follows`);
    } else if (result.status === "ACTION_STATUS_STALE") {
      this.warn(`stale reply: ${result.reason}`);
      return;
    }
    this.decision = null; // accepted, timed out or out of attempts: closed
  }

  on_deal_result(result) {
    if (this.verbose) {
      this.log(`deal ${result.deal} over: ${result.summary}; totals ${result.totals.join(" ")}`);
    }
  }

  on_match_result(result) {
    const played = {
      matchId: result.match_id,
      variant: this.match?.variant ?? "",
      player: this.player,
      reason: result.reason,
      winnerTeam: result.winner_team ?? null,
      totals: [...result.totals],
      deals: result.deals,
      summary: result.summary,
    };
    this.stats.matches.push(played);
    this.log(describeMatch(played));
    this.match = null;
    this.player = null;
    this.decision = null;
    if (this.leaving || (this.matches !== null && this.stats.matches.length >= this.matches)) {
      this.done = true;
    }
  }

  on_resume(resume) {
    // Sent only to a Hello naming a match to take back; this bot never asks for one,
    // but a server may still restore a seat: keep playing it.
    this.match = resume.seat?.match ?? null;
    this.player = resume.seat?.player ?? null;
    this.deal = resume.deal?.deal ?? 0;
    this.events = resume.observation?.events?.length ?? 0;
    this.log(`took back a seat in match ${this.match?.match_id}`);
    if (this.match !== null) this.leaveAfterLastMatch();
  }

  on_error(error) {
    const about = error.request_id ? ` (request ${error.request_id})` : "";
    if (!error.request_id && FATAL_ERRORS.has(error.code)) {
      this.failure = new ArenaError(error.code, error.message);
      this.done = true;
      return;
    }
    this.warn(`server error ${error.code}${about}: ${error.message}`);
  }

  on_draining(draining) {
    this.draining = true;
    const until = draining.deadline ? ` (matches cut at ${timestamp(draining.deadline)})` : "";
    this.warn(`server draining: ${draining.reason || "shutting down"}${until}`);
  }
}

/** A google.protobuf.Timestamp as ISO 8601. */
function timestamp(ts) {
  const ms = Number(ts.seconds) * 1000 + Math.floor((ts.nanos ?? 0) / 1e6);
  return new Date(ms).toISOString();
}
