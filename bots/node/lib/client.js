// The gRPC side: the contract loaded from the repository's .proto at run time, one
// Play.Connect stream per connection, and reconnection after UNAVAILABLE.

import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import grpc from "@grpc/grpc-js";
import protoLoader from "@grpc/proto-loader";

import { ArenaError, Session, Stats } from "./session.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** The repository's proto directory: ../../proto from the bot (bots/node). */
export const DEFAULT_PROTO_DIR = path.resolve(HERE, "..", "..", "..", "proto");
export const PROTO_FILE = "arena/v1/arena.proto";

/** gRPC status names by number (grpc.status maps names to numbers). */
const STATUS_NAMES = Object.fromEntries(Object.entries(grpc.status).map(([k, v]) => [v, k]));

/** The name of a gRPC status code ("UNAVAILABLE"). */
export function statusName(code) {
  return STATUS_NAMES[code] ?? `status ${code}`;
}

/**
 * The arena.v1 package, loaded from `protoDir`/arena/v1/arena.proto.
 * Messages are plain objects: .proto field names, enums as names, 64-bit integers as
 * strings, the oneof's field named in `body`, unset optional fields left out.
 * @param {string} protoDir the directory holding arena/v1/arena.proto
 */
export function loadArena(protoDir = DEFAULT_PROTO_DIR) {
  const file = path.join(protoDir, PROTO_FILE);
  if (!existsSync(file)) {
    throw new ArenaError("NOT_FOUND", `no ${PROTO_FILE} under ${protoDir} (see --proto)`);
  }
  const definition = protoLoader.loadSync(PROTO_FILE, {
    includeDirs: [protoDir],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).arena.v1;
}

/**
 * Plays on a server until `matches` matches are over, reconnecting after UNAVAILABLE
 * (at most `retries` times in a row, the pause doubling from `backoffMs`).
 * Resolves to the Stats; rejects with an ArenaError when the server refuses the bot or
 * stays unavailable.
 *
 * @param {object} o
 * @param {string} o.server HOST:PORT
 * @param {string} o.token the bot token
 * @param {string[]} o.variants
 * @param {boolean} o.rated
 * @param {number | null} o.matches
 * @param {{choose: Function}} o.policy
 * @param {string} [o.protoDir]
 * @param {boolean} [o.tls]
 * @param {number} [o.fillAfterMs] built-in bots fill the seats still empty after this wait
 * @param {string} [o.fillBot] the built-in bot that fills them
 * @param {number} [o.retries]
 * @param {number} [o.backoffMs]
 * @param {(line: string) => void} [o.log]
 * @param {(line: string) => void} [o.warn]
 * @param {boolean} [o.verbose]
 * @param {{stop?: (now: boolean) => void}} [o.control] receives `stop`, to leave on a signal
 */
export async function run(o) {
  const arena = loadArena(o.protoDir);
  const credentials = o.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const stats = new Stats();
  const retries = o.retries ?? 3;
  let delay = o.backoffMs ?? 500;
  let failures = 0;
  let stopping = false;
  let current = null;
  if (o.control) {
    o.control.stop = (now) => {
      stopping = true;
      current?.leave(now);
    };
  }
  let botName = "";
  while (o.matches === null || stats.matches.length < o.matches) {
    const client = new arena.Play(o.server, credentials, {
      "grpc.max_receive_message_length": 4 * 1024 * 1024,
    });
    const session = new Session({ ...o, stats, send: () => {} });
    current = session;
    const status = await connect(client, o.token, session);
    client.close();
    current = null;
    botName = session.botName || botName;
    if (session.failure) throw session.failure;
    if (stopping) break;
    if (session.done && status.code === grpc.status.OK) break;
    if (status.code !== grpc.status.OK && status.code !== grpc.status.UNAVAILABLE) {
      throw new ArenaError(statusName(status.code), status.details || "the call failed");
    }
    const why =
      status.code === grpc.status.OK
        ? "the server ended the stream"
        : status.details || "the server is unavailable";
    if (session.welcome) failures = 0;
    failures += 1;
    if (failures > retries) {
      throw new ArenaError("UNAVAILABLE", `${o.server}: ${why} (gave up after ${retries} retries)`);
    }
    (o.warn ?? (() => {}))(`UNAVAILABLE: ${why}; connecting again in ${delay} ms`);
    stats.reconnects += 1;
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 30_000);
  }
  return { stats, botName };
}

/**
 * Registers (or updates) a bot with an owner key: Registry.Register. Resolves to the
 * RegisterResponse (its `token` is shown once); rejects with an ArenaError.
 * @param {{server: string, ownerKey: string, name: string, version?: string,
 *   games?: string[], protoDir?: string, tls?: boolean}} o
 */
export function register(o) {
  const arena = loadArena(o.protoDir);
  const credentials = o.tls ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
  const client = new arena.Registry(o.server, credentials);
  const metadata = new grpc.Metadata();
  metadata.add("authorization", `Bearer ${o.ownerKey}`);
  const request = {
    name: o.name,
    version: o.version ?? "",
    games: o.games ?? [],
    description: "random legal actions (arena-node-bot)",
  };
  return new Promise((resolve, reject) => {
    client.Register(request, metadata, { deadline: Date.now() + 10_000 }, (err, response) => {
      client.close();
      if (err) reject(new ArenaError(statusName(err.code), err.details || err.message));
      else resolve(response);
    });
  });
}

/**
 * One Play.Connect call driven by `session`; resolves to the call's final status.
 * The call is half-closed once the session is done, and the server then ends it.
 */
function connect(client, token, session) {
  return new Promise((resolve) => {
    const metadata = new grpc.Metadata();
    metadata.add("authorization", `Bearer ${token}`);
    const call = client.Connect(metadata);
    let ended = false;
    const finish = () => {
      if (!ended) {
        ended = true;
        call.end();
      }
    };
    session.send = (message) => {
      if (!ended) call.write(message);
      if (session.done) finish();
    };
    call.on("data", (message) => {
      session.handle(message);
      if (session.done) finish();
    });
    call.on("error", () => {}); // the status event below carries the same code and details
    call.on("status", (status) => resolve(status));
    session.start();
  });
}
