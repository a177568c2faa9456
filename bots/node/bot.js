#!/usr/bin/env node
// arena-node-bot: a random bot that plays on an arena server over gRPC.
//
//   node bot.js --server 127.0.0.1:50051 --token TOKEN --variant guandan --matches 3
//
// Exit status: 0 when the matches asked for are played, 1 when the server refuses
// the bot (UNAUTHENTICATED, an unknown variant …), 2 for bad command-line input,
// 3 when the server stays UNAVAILABLE, 130 when interrupted (Ctrl-C).

import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { DEFAULT_PROTO_DIR, register, run } from "./lib/client.js";
import { RandomPolicy, seededRandom } from "./lib/policy.js";

export const TOKEN_ENV = "ARENA_BOT_TOKEN";
export const PROTO_ENV = "ARENA_PROTO_DIR";
export const OWNER_KEY_ENV = "ARENA_OWNER_KEY";
const NAME = "arena-node-bot";

const USAGE = `usage: node bot.js [options]
       node bot.js --register NAME [--owner-key KEY] [--server HOST:PORT] [--variant NAME]…

Plays random legal actions on an arena server (Play.Connect over gRPC). With
--register, registers a bot NAME instead (Registry.Register) and prints its new token.

options:
  --server HOST:PORT   the server (default 127.0.0.1:50051)
  --token TOKEN        the bot token (default $${TOKEN_ENV})
  --variant NAME       a variant to join, repeatable: guandan, shengji-1 … shengji-4,
                       sanfu (default guandan)
  --matches N          stop after N matches (default: play until interrupted)
  --casual             casual matches (default rated)
  --seed N             seed of the random choices (default: random)
  --fill-after SECONDS when no match has formed after this long, built-in bots fill
                       the empty seats (default: wait for bots as long as it takes)
  --fill-bot NAME      the built-in bot that fills seats: random, first, heuristic …
                       (default random)
  --retries N          reconnections in a row after UNAVAILABLE (default 3)
  --proto DIR          directory holding arena/v1/arena.proto
                       (default $${PROTO_ENV}, else ${DEFAULT_PROTO_DIR})
  --tls                connect over TLS with the system's roots
  --verbose            log every deal, event and decision
  --register NAME      register (or update) the bot NAME, print its token and exit;
                       --variant then names the games it plays (default: all)
  --owner-key KEY      the owner key for --register (default $${OWNER_KEY_ENV})
  -h, --help           show this help`;

class UsageError extends Error {}

/** The options of a run, from the command line and the environment. */
export function parseOptions(argv, env = process.env) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        server: { type: "string", default: "127.0.0.1:50051" },
        token: { type: "string" },
        variant: { type: "string", multiple: true },
        matches: { type: "string" },
        casual: { type: "boolean", default: false },
        seed: { type: "string" },
        retries: { type: "string", default: "3" },
        "fill-after": { type: "string" },
        "fill-bot": { type: "string" },
        proto: { type: "string" },
        tls: { type: "boolean", default: false },
        verbose: { type: "boolean", default: false },
        register: { type: "string" },
        "owner-key": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError(err.message);
  }
  if (values.help) return { help: true };
  checkServer(values.server);
  const common = {
    server: values.server,
    protoDir: values.proto ?? env[PROTO_ENV] ?? DEFAULT_PROTO_DIR,
    tls: values.tls,
  };
  if (values.register !== undefined) {
    const ownerKey = values["owner-key"] ?? env[OWNER_KEY_ENV] ?? "";
    if (!ownerKey) throw new UsageError(`no owner key: give --owner-key or set $${OWNER_KEY_ENV}`);
    if (!values.register) throw new UsageError("--register needs a bot name");
    const games = values.variant ?? [];
    return { ...common, mode: "register", name: values.register, ownerKey, games };
  }
  const token = values.token ?? env[TOKEN_ENV] ?? "";
  if (!token) throw new UsageError(`no token: give --token or set $${TOKEN_ENV}`);
  return {
    ...common,
    mode: "play",
    token,
    variants: values.variant ?? ["guandan"],
    matches: values.matches === undefined ? null : integer("--matches", values.matches, 1),
    rated: !values.casual,
    seed: values.seed === undefined ? null : integer("--seed", values.seed, 0),
    retries: integer("--retries", values.retries, 0),
    fillAfterMs: values["fill-after"] === undefined ? 0 : milliseconds("--fill-after", values["fill-after"]),
    fillBot: fillBot(values["fill-bot"]),
    verbose: values.verbose,
  };
}

/** The largest --fill-after: Join.fill_after_ms is a uint32. */
const MAX_FILL_AFTER_MS = 2 ** 32 - 1;

/** Seconds (a decimal number, at least 0.001) as whole milliseconds. */
function milliseconds(flag, text) {
  const ms = Math.round(Number(text) * 1000);
  if (!/^\d+(\.\d+)?$/.test(text) || ms < 1 || ms > MAX_FILL_AFTER_MS) {
    throw new UsageError(
      `${flag} must be seconds between 0.001 and ${MAX_FILL_AFTER_MS / 1000}, got '${text}'`,
    );
  }
  return ms;
}

/** The server checks the name (an unknown one refuses the Join: exit status 1). */
function fillBot(name) {
  if (name === "") throw new UsageError("--fill-bot needs a built-in bot's name (random, first …)");
  return name ?? "";
}

function checkServer(server) {
  if (!/^[^:\s]+:\d+$/.test(server) && !/^\[[0-9a-fA-F:]+\]:\d+$/.test(server)) {
    throw new UsageError(`--server must be HOST:PORT, got '${server}'`);
  }
}

function integer(flag, text, least) {
  if (!/^\d+$/.test(text) || Number(text) < least || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`${flag} must be an integer of at least ${least}, got '${text}'`);
  }
  return Number(text);
}

/** Runs the bot; resolves to the process exit status. */
export async function main(argv = process.argv.slice(2), env = process.env) {
  let options;
  try {
    options = parseOptions(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${NAME}: error: ${err.message}\n(--help for the options)`);
    return 2;
  }
  if (options.help) {
    console.log(USAGE);
    return 0;
  }
  if (options.mode === "register") return registerBot(options);
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
  const log = (line) => console.log(line);
  const warn = (line) => console.error(`${NAME}: ${line}`);
  const control = {};
  let interrupted = 0;
  const onSignal = () => {
    interrupted += 1;
    if (interrupted === 1) {
      warn("interrupted: finishing the current match (Ctrl-C again to leave at once)");
      control.stop?.(false);
    } else {
      warn("leaving the seat now");
      control.stop?.(true);
    }
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const { stats, botName } = await run({
      ...options,
      policy: new RandomPolicy(seededRandom(seed)),
      log,
      warn,
      control,
    });
    log(stats.summary(botName));
    return interrupted ? 130 : 0;
  } catch (err) {
    if (err?.name !== "ArenaError") throw err;
    console.error(`${NAME}: error: ${err.message}`);
    return err.code === "UNAVAILABLE" ? 3 : 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** --register: the token on stdout (alone, for scripts), the rest on stderr. */
async function registerBot(options) {
  try {
    const r = await register(options);
    console.error(
      `${NAME}: ${r.created ? "registered" : "updated"} ${r.name} ` +
        `(bot id ${r.bot_id}, token id ${r.token_id})`,
    );
    console.log(r.token);
    return 0;
  } catch (err) {
    if (err?.name !== "ArenaError") throw err;
    console.error(`${NAME}: error: ${err.message}`);
    return err.code === "UNAVAILABLE" ? 3 : 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = await main();
}
