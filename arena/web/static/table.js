/* The drawn card table of a match page (templates/match.html).

   The page carries the match's table view (arena/web/table.py) as JSON in #table-data:
   a header, every deal's entry (its number and the numbers of its first and last
   frames), the frames of one deal (one per step: the deal's start, each action, the
   deal's result), the result and the words ("labels") in the page's language. The
   frames of another deal are fetched (/api/matches/ID/table?deal=N) when the table
   moves into it, kept, and the next deal's fetched ahead near a deal's end; a field a
   frame leaves out (or a seat's field) is the one of the frame before. This
   script draws one frame at a time on the felt and moves between frames: by action, by
   trick, by deal, playing at a chosen speed, by the scrub bar, the deal picker, the keys
   and the URL hash (#d2-s15: deal 2, its 15th step; #f123: frame 123), which keeps the
   position across a reload. A live match (data-live="true") follows its server-sent
   events stream, appending frames as they come and reconnecting after the last one
   received.

   Seats sit around the felt as the game's seed has them: the next seat (s + 1) a quarter
   turn counter-clockwise, on the player's right (Guandan, Shengji), or clockwise, on the
   left (sanfu), as the header's "turn" says; a person's seat page (data-bottom) turns
   the table so that their seat is south.
   Every word shown comes from the view's labels, log lines and facts. */
(function () {
  "use strict";

  const root = document.getElementById("table");
  const dataBlock = document.getElementById("table-data");
  if (!root || !dataBlock) {
    return;
  }

  const view = JSON.parse(dataBlock.textContent);
  const labels = view.labels || {};
  const frames = [];
  const POSITIONS = ["south", "west", "north", "east"];
  const BOTTOM = Number(root.dataset.bottom || 0); // the seat drawn south

  /** Where `seat` is drawn: 0 south, 1 west, 2 north, 3 east; the seat after the one
   *  drawn south is east when the turn goes counter-clockwise, west when clockwise. */
  function place(seat) {
    const after = (((seat - BOTTOM) % 4) + 4) % 4;
    const counter = Boolean(view.match && view.match.turn === "counter-clockwise");
    return counter ? (4 - after) % 4 : after;
  }
  const SUIT_SYMBOLS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const RED_SUITS = new Set(["h", "d"]);
  const STEP_MS = 900; // one step at speed 1×
  const MAX_BACKS = 13; // backs drawn for a hidden hand (its count is written beside)
  const RETRY_MS = [500, 1000, 2000, 4000, 8000];

  const state = {
    index: -1,
    following: true, // a live table shows the newest frame until the user steps back
    playing: false,
    timer: null,
    live: root.dataset.live === "true",
    ended: false,
    source: null,
    retries: 0,
    dealFirst: new Map(), // deal number → index of its first frame
    dealLast: new Map(),
    fetching: new Map(), // deal number → the fetch of its frames
    wanted: null, // the frame a move waits for while its deal is fetched
    followPaint: null, // the next paint after a live frame was drawn
    followLate: false, // a frame came after it, to draw at that paint
    clockFrame: null, // the frame whose clock was last told (live), and when
    clockAt: 0,
    clockTimer: null,
  };

  const el = {
    seats: [0, 1, 2, 3].map((s) => root.querySelector(`.seat[data-seat="${s}"]`)),
    trick: document.getElementById("trick"),
    lastTrick: document.getElementById("last-trick"),
    facts: document.getElementById("facts"),
    legend: document.getElementById("legend"),
    info: document.getElementById("table-info"),
    moment: document.getElementById("moment"),
    stepLine: document.getElementById("step-line"),
    result: document.getElementById("result"),
    log: document.getElementById("log"),
    position: document.getElementById("position"),
    scrub: document.getElementById("scrub"),
    deal: document.getElementById("deal"),
    speed: document.getElementById("speed"),
    play: document.getElementById("play"),
    badge: document.getElementById("live-badge"),
  };

  /* ---------- words ---------- */

  function label(key, fields) {
    const text = labels[key];
    if (text === undefined) {
      return "";
    }
    if (!fields) {
      return text;
    }
    return window.arenaWords.fill(text, fields);
  }

  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  /* ---------- cards ---------- */

  function cardParts(code) {
    if (code === "BJ" || code === "SJ") {
      return { joker: code === "BJ" ? "big" : "small" };
    }
    const rank = code.slice(0, -1);
    const suit = code.slice(-1);
    return { rank, suit, rankText: rank === "T" ? "10" : rank };
  }

  function isLevel(parts, marks) {
    const level = marks && marks.level;
    return Boolean(level) && !parts.joker && (parts.rank === level || parts.rankText === level);
  }

  /** Whether a card is a trump beyond the trump suit: a Shengji deal whose trump is
   *  known makes the jokers trumps (SJ-2), and the 2s with `constant_twos`. */
  function alwaysTrump(parts, marks) {
    if (!marks || !marks.trump || !view.match || view.match.game !== "shengji") {
      return false;
    }
    const options = view.match.options || {};
    return Boolean(parts.joker) || (Boolean(options.constant_twos) && parts.rank === "2");
  }

  /** A face-up card: rank and suit in two corners, a large pip; jokers named down the
   *  corner with a star; marks (level, trump, wild) as classes. */
  function faceCard(code, marks) {
    const parts = cardParts(code);
    const card = make("div", "card");
    card.dataset.card = code;
    if (alwaysTrump(parts, marks)) {
      card.classList.add("trump");
    }
    if (parts.joker) {
      card.classList.add("joker", parts.joker);
      const name = parts.joker === "big" ? label("joker_big") : label("joker_small");
      card.append(make("span", "idx", name), make("span", "pip", "★"));
      const corner = make("span", "idx flip", name);
      card.append(corner);
      return card;
    }
    const symbol = SUIT_SYMBOLS[parts.suit] || parts.suit;
    if (RED_SUITS.has(parts.suit)) {
      card.classList.add("red");
    }
    for (const flip of [false, true]) {
      const corner = make("span", flip ? "idx flip" : "idx");
      corner.append(
        make("span", parts.rankText === "10" ? "rank ten" : "rank", parts.rankText),
        make("span", "suit", symbol),
      );
      card.append(corner);
    }
    card.append(make("span", "pip", symbol));
    if (marks) {
      if (marks.trump && marks.trump === parts.suit) {
        card.classList.add("trump");
      }
      if (isLevel(parts, marks)) {
        card.classList.add("level");
      }
      if ((marks.wild || []).includes(code)) {
        card.classList.add("wild");
      }
    }
    return card;
  }

  function backCard() {
    return make("div", "card back");
  }

  /* ---------- seats ---------- */

  function signed(value) {
    return value > 0 ? `+${value}` : String(value);
  }

  function seatPlate(seat, frame) {
    const plate = make("div", "plate");
    const dot = make("span", "team");
    dot.title = label("team");
    plate.append(dot, make("span", "name", seat.name));
    if (seat.where) {
      plate.append(make("span", "where", seat.where));
    }
    if (frame.to_act === seat.seat) {
      const turn = make("span", "tag to-act", label(`to_${frame.phase}`) || label("to_act"));
      turn.append(make("span", "clock"));
      plate.append(turn);
    }
    if (seat.role) {
      plate.append(make("span", `tag role role-${seat.role}`, label(seat.role)));
    }
    if (seat.out) {
      plate.append(make("span", `tag out place-${seat.out}`, label(`place.${seat.out}`)));
    }
    if (seat.auto) {
      plate.append(make("span", "tag auto", label("auto")));
    }
    if (seat.fled) {
      plate.append(make("span", "tag fled", label("fled")));
    }
    if (seat.points) {
      plate.append(make("span", "tag points", label("seat_points", { points: seat.points })));
    }
    if (seat.count && Array.isArray(seat.hand)) {
      // a hidden hand's count is written on its backs (seatHand)
      const count = make("span", "tag count", label("count", { count: seat.count }));
      count.title = label("cards_left");
      plate.append(count);
    }
    const total = seatTotal(seat, frame);
    if (total !== null) {
      const chip = make("span", "tag total", signed(total));
      chip.title = label("totals");
      plate.append(chip);
    }
    return plate;
  }

  /** The match total of the player in a seat: the seat's own (`total`), else the
   *  frame's totals, which are by player (in sanfu players move between seats). */
  function seatTotal(seat, frame) {
    if (typeof seat.total === "number") {
      return seat.total;
    }
    const player = typeof seat.player === "number" ? seat.player : seat.seat;
    const total = frame.totals ? frame.totals[player] : null;
    return typeof total === "number" ? total : null;
  }

  /** A hand: its cards face up when revealed, else backs; a public count (GD-12 once
   *  10 or fewer, Shengji and sanfu after the dealing) draws that many backs (at most
   *  MAX_BACKS) and is written on the stack. */
  function seatHand(seat, marks) {
    const hand = make("div", "hand");
    if (Array.isArray(seat.hand)) {
      if (seat.hand.length === 0) {
        hand.classList.add("empty");
      }
      for (const code of seat.hand) {
        hand.append(faceCard(code, marks));
      }
      return hand;
    }
    const known = typeof seat.count === "number";
    const count = known ? seat.count : MAX_BACKS;
    if (count === 0) {
      hand.classList.add("empty");
      return hand;
    }
    hand.classList.add("backs");
    for (let k = 0; k < Math.min(count, MAX_BACKS); k += 1) {
      hand.append(backCard());
    }
    if (known) {
      hand.dataset.count = String(count);
      const badge = make("span", "stack-count", String(count));
      badge.title = label("cards_left");
      hand.append(badge);
    }
    return hand;
  }

  function drawSeat(node, seat, frame) {
    const position = POSITIONS[place(seat.seat)];
    node.className = `seat seat-${position}`;
    if (seat.team === 0 || seat.team === 1) {
      node.classList.add(`team-${seat.team}`);
    }
    node.classList.toggle("acting", frame.actor === seat.seat);
    node.classList.toggle("to-act", frame.to_act === seat.seat);
    node.classList.toggle("is-out", Boolean(seat.out));
    node.classList.toggle("has-fled", Boolean(seat.fled));
    node.replaceChildren(seatPlate(seat, frame), seatHand(seat, frame.marks));
  }

  function emptySeats() {
    const players = (view.match && view.match.players) || [];
    return [0, 1, 2, 3].map((s) => ({
      seat: s,
      name: (players[s] || "").replace(/^person:/, ""),
      team: s % 2,
      hand: null,
      count: null,
      out: null,
      role: null,
      auto: false,
      fled: false,
      points: null,
    }));
  }

  /* ---------- the trick ---------- */

  /** The entry shown per seat: its last one (a pass after a play in a climbing game
   *  shows the pass; `skipPasses` keeps the play, for the last trick). */
  function shownBySeat(entries, skipPasses) {
    const bySeat = new Map();
    entries.forEach((entry, order) => {
      if (!(skipPasses && entry.pass && bySeat.has(entry.seat))) {
        bySeat.set(entry.seat, { entry, order });
      }
    });
    return bySeat;
  }

  function cardRow(codes, marks, className) {
    const cards = make("div", className);
    for (const code of codes || []) {
      cards.append(faceCard(code, marks));
    }
    return cards;
  }

  function playNode(entry, marks) {
    const node = make("div", `play at-${place(entry.seat)}`);
    if (entry.pass) {
      node.append(make("span", "pass", label("pass")));
      return node;
    }
    if (entry.failed) {
      node.classList.add("failed");
      if (entry.tried && entry.tried.length) {
        const tried = make("div", "tried");
        tried.append(cardRow(entry.tried, marks, "cards"), make("span", "label", label("tried")));
        node.append(tried);
      }
    }
    node.append(cardRow(entry.cards, marks, "cards"));
    if (entry.label) {
      node.append(make("span", "label", entry.label));
    }
    return node;
  }

  function drawTrick(container, entries, marks, options) {
    const list = entries || [];
    const bySeat = shownBySeat(list, options.skipPasses);
    const hasBest = list.some((entry) => entry.best);
    const topSeat = hasBest ? null : options.markTop ? topOf(list) : null;
    let newest = -1;
    for (const shown of bySeat.values()) {
      newest = Math.max(newest, shown.order);
    }
    const nodes = [];
    for (const [seat, shown] of bySeat) {
      const node = playNode(shown.entry, marks);
      node.classList.toggle("top", hasBest ? Boolean(shown.entry.best) : seat === topSeat);
      node.classList.toggle("latest", options.animate && shown.order === newest);
      nodes.push(node);
    }
    if (options.trickNumber) {
      const trick = options.trickNumber;
      nodes.push(make("span", "trick-no", label("trick_no", { trick })));
    }
    if (options.note) {
      nodes.push(make("p", "note", options.note));
    }
    container.replaceChildren(...nodes);
  }

  /** The first frame, in its deal, of the cards on the table at frame `index`. */
  function tableSince(index) {
    const frame = frames[index];
    const shown = JSON.stringify(frame.table || []);
    let k = index;
    while (k > 0) {
      const before = frames[k - 1];
      if (!before || before.deal !== frame.deal || JSON.stringify(before.table || []) !== shown) {
        break;
      }
      k -= 1;
    }
    return k;
  }

  /** What the kitty turned over said (抠底 with its multiplier, or the four-deck last
   *  trick's settlement) while its cards still lie on the table at a later step, the
   *  deal's result: written under them, since the strip says the result then. */
  function kittyNote(index) {
    const since = tableSince(index);
    const moment = frames[since].moment;
    if (since === index || !moment || moment.kind !== "kitty" || !moment.text) {
      return null;
    }
    return moment.text;
  }

  /** In a climbing game the last play that was not a pass leads the trick. */
  function topOf(entries) {
    for (let k = entries.length - 1; k >= 0; k -= 1) {
      if (!entries[k].pass) {
        return entries[k].seat;
      }
    }
    return null;
  }

  /* ---------- header, moment, result, log ---------- */

  function drawFacts(frame) {
    const nodes = (frame.facts || []).map(([name, value]) => {
      const fact = make("div", "fact");
      fact.append(make("dt", null, name), make("dd", null, value));
      return fact;
    });
    el.facts.replaceChildren(...nodes);
  }

  function drawLegend(marks) {
    const keys = [];
    if (marks && marks.level) {
      keys.push(["card level", label("level")]);
    }
    if (marks && marks.trump && marks.trump !== "notrump") {
      keys.push(["card trump", label("trump")]);
    }
    if (marks && marks.wild && marks.wild.length) {
      keys.push(["card wild", label("wild")]);
    }
    el.legend.replaceChildren(
      ...keys.map(([swatch, word]) => {
        const item = make("span", "key");
        item.append(make("span", `swatch ${swatch}`), make("span", null, word));
        return item;
      }),
    );
  }

  /** The strip above the trick says one thing: the match's result at its end, else
   *  the step's moment, else the step's last log line. */
  function drawStrip(frame, atResult) {
    const moment = atResult ? null : frame.moment;
    drawMoment(moment && moment.text ? moment : null);
    const lines = frame.log || [];
    const line = atResult || (moment && moment.text) || !lines.length ? "" : lines[lines.length - 1].text;
    el.stepLine.textContent = line;
    el.stepLine.title = line;
    el.stepLine.hidden = !line;
    drawResult(atResult ? frame : null);
  }

  function drawMoment(moment) {
    if (!moment) {
      el.moment.hidden = true;
      el.moment.textContent = "";
      el.moment.title = "";
      el.moment.removeAttribute("data-kind");
      return;
    }
    el.moment.className = `moment kind-${moment.kind}`;
    el.moment.dataset.kind = moment.kind;
    el.moment.textContent = moment.text;
    el.moment.title = moment.text; // the whole text, when the strip's lines cut it
    el.moment.hidden = false;
    el.moment.style.animation = "none";
    void el.moment.offsetWidth; // restart the banner's animation for this step
    el.moment.style.animation = "";
  }

  /** The match's result at its last frame (`frame`; null: none shown): its totals are
   *  by player, each coloured by the team the player sits in at that frame. */
  function drawResult(frame) {
    const result = view.result;
    if (!frame || !result) {
      el.result.hidden = true;
      return;
    }
    el.result.querySelector(".summary").textContent = result.summary || "";
    el.result.querySelector(".reason").textContent = result.reason || "";
    const players = (view.match && view.match.players) || [];
    const seats = frame.seats || [];
    const rows = (result.totals || []).map((total, player) => {
      const seat = seats.find((s) => s.player === player);
      const team = seat ? seat.team : player % 2;
      const row = make("tr", `team-${team}`);
      const name = seat ? label("named", { name: seat.name, where: seat.where }) : players[player] || "";
      row.append(make("td", "name", name), make("td", "num", signed(total)));
      return row;
    });
    el.result.querySelector("tbody").replaceChildren(...rows);
    el.result.hidden = false;
  }

  function teamOf(frame, seat) {
    if (seat === null || seat === undefined || !frame.seats || !frame.seats[seat]) {
      return null;
    }
    return frame.seats[seat].team;
  }

  function drawLog(index) {
    const frame = frames[index];
    const first = state.dealFirst.get(frame.deal);
    const items = [];
    let current = null;
    for (let k = first; k <= index; k += 1) {
      for (const line of frames[k].log || []) {
        const item = make("li", `kind-${line.kind}`, line.text);
        item.dataset.frame = String(k);
        const team = teamOf(frames[k], line.seat);
        if (team === 0 || team === 1) {
          item.classList.add(`team-${team}`);
        }
        if (line.auto) {
          item.classList.add("auto");
          item.dataset.auto = label("auto");
        }
        if (k === index) {
          item.classList.add("now");
          current = current || item;
        }
        items.push(item);
      }
    }
    el.log.replaceChildren(...items);
    const shown = current || items[items.length - 1];
    if (shown) {
      el.log.scrollTop = Math.max(0, shown.offsetTop - el.log.clientHeight + shown.offsetHeight * 3);
    }
  }

  /* ---------- one frame ---------- */

  function stepOf(index) {
    const frame = frames[index];
    const first = state.dealFirst.get(frame.deal);
    const last = state.dealLast.get(frame.deal);
    return { deal: frame.deal, step: index - first + 1, steps: last - first + 1 };
  }

  function dealName(number) {
    return label("deal_option", { number });
  }

  function draw(previous) {
    const index = state.index;
    const frame = frames[index];
    root.dataset.frame = String(index);
    root.dataset.seq = String(frame.seq || 0); // the newest event drawn (benchmarks watch it)
    const seats = frame.seats && frame.seats.length === 4 ? frame.seats : emptySeats();
    seats.forEach((seat, s) => drawSeat(el.seats[s], seat, frame));
    const climbing = view.match && view.match.game !== "shengji";
    drawTrick(el.trick, frame.table, frame.marks, {
      markTop: climbing,
      animate: previous === index - 1,
      trickNumber: frame.trick || null,
      note: kittyNote(index),
    });
    if (frame.last_trick && frame.last_trick.length) {
      drawTrick(el.lastTrick.querySelector(".trick"), frame.last_trick, frame.marks, {
        markTop: false,
        animate: false,
        skipPasses: true,
      });
      el.lastTrick.hidden = false;
    } else {
      el.lastTrick.querySelector(".trick").replaceChildren(); // no earlier deal's cards kept
      el.lastTrick.hidden = true;
    }
    drawFacts(frame);
    drawLegend(frame.marks);
    const atResult = index === frames.length - 1 && (!state.live || state.ended);
    drawStrip(frame, atResult && view.result);
    const position = stepOf(index);
    el.position.textContent = label("position", position);
    el.info.textContent = dealName(frame.deal);
    el.scrub.max = String(frames.length - 1);
    el.scrub.value = String(index);
    if (el.deal.value !== String(frame.deal)) {
      el.deal.value = String(frame.deal);
    }
    drawLog(index);
    drawClock();
    updateButtons();
    keepInHash(position);
    if (state.playing || position.steps - position.step < 3) {
      prefetchAfter(frame.deal);
    }
  }

  /* ---------- whose turn: the clock ---------- */

  /** Seconds as m:ss. */
  function clockText(ms) {
    const seconds = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  }

  /** The time the seat to act has left, counting down: on a live match's newest frame
   *  only (a stored match, or a step back, shows whose turn it was, no clock). The
   *  decision's own time first, then the seat's time bank. */
  function drawClock() {
    const frame = frames[state.index];
    const node = root.querySelector(".seat.to-act .clock");
    const clock = frame && frame.clock;
    const newest = state.index === frames.length - 1 && state.live && !state.ended;
    if (!node || !clock || !newest) {
      if (node) {
        node.hidden = true;
      }
      stopClock();
      return;
    }
    if (state.clockFrame !== frame) {
      state.clockFrame = frame;
      state.clockAt = performance.now();
    }
    const spent = performance.now() - state.clockAt;
    const own = (clock.decision_ms || 0) - spent;
    const bank = (clock.bank_ms || 0) + Math.min(0, own);
    const inBank = own <= 0;
    node.hidden = false;
    node.classList.toggle("bank", inBank);
    node.classList.toggle("low", !inBank && own < 3000);
    node.textContent = inBank ? `${label("time_bank")} ${clockText(bank)}` : clockText(own);
    node.title = inBank ? label("time_bank") : label("time_left");
    if (state.clockTimer === null) {
      state.clockTimer = setInterval(drawClock, 250);
    }
  }

  function stopClock() {
    if (state.clockTimer !== null) {
      clearInterval(state.clockTimer);
      state.clockTimer = null;
    }
  }

  /** A `turn` event: whose turn it is completes a frame already held. */
  function receiveTurn(event) {
    const turn = JSON.parse(event.data);
    const frame = frames[turn.i];
    if (!frame || frame.deal !== turn.deal) {
      return;
    }
    // the frames since the last decision were sent before whose turn it is was known
    for (let i = Math.min(turn.first ?? turn.i, turn.i); i <= turn.i; i += 1) {
      if (frames[i] && frames[i].deal === turn.deal) {
        frames[i].to_act = turn.to_act;
        frames[i].phase = turn.phase;
      }
    }
    frame.clock = turn.clock;
    state.clockFrame = null; // the clock restarts from what this turn says
    if (state.index >= Math.min(turn.first ?? turn.i, turn.i) && state.index <= turn.i) {
      draw(state.index); // redrawn in place, nothing animated
    }
  }

  function updateButtons() {
    const atStart = state.index <= 0;
    const atEnd = state.index >= frames.length - 1;
    for (const id of ["first", "prev", "prev-trick", "prev-deal"]) {
      document.getElementById(id).disabled = atStart;
    }
    for (const id of ["last", "next", "next-trick", "next-deal"]) {
      document.getElementById(id).disabled = atEnd;
    }
  }

  function drawEmpty() {
    emptySeats().forEach((seat, s) => drawSeat(el.seats[s], seat, { totals: null, marks: null }));
    el.position.textContent = "";
    for (const id of ["first", "prev", "prev-trick", "prev-deal", "last", "next", "next-trick", "next-deal"]) {
      document.getElementById(id).disabled = true;
    }
  }

  /* ---------- moving ---------- */

  function go(index, byUser) {
    if (!frames.length) {
      return;
    }
    const target = Math.max(0, Math.min(frames.length - 1, index));
    if (frames[target] === undefined) {
      state.wanted = target;
      loadDeal(dealAt(target)).then(() => {
        if (state.wanted === target && frames[target] !== undefined) {
          go(target, byUser);
        }
      });
      return;
    }
    state.wanted = null;
    if (byUser) {
      state.following = target === frames.length - 1;
    }
    if (target === state.index) {
      return;
    }
    const previous = state.index;
    state.index = target;
    draw(previous);
  }

  function trickStart(index) {
    const frame = frames[index];
    let k = index;
    if (!frame) {
      return k;
    }
    while (k > 0 && frames[k - 1] && frames[k - 1].deal === frame.deal && frames[k - 1].trick === frame.trick) {
      k -= 1;
    }
    return k;
  }

  function nextTrick(index) {
    const frame = frames[index];
    let k = index + 1;
    while (k < frames.length && frames[k] && frames[k].deal === frame.deal && frames[k].trick === frame.trick) {
      k += 1;
    }
    return k;
  }

  function prevTrick(index) {
    const start = trickStart(index);
    return start < index ? start : trickStart(Math.max(0, index - 1));
  }

  function dealNumbers() {
    return Array.from(state.dealFirst.keys()).sort((a, b) => a - b);
  }

  function nextDeal(index) {
    const deal = frames[index].deal;
    const later = dealNumbers().find((number) => number > deal);
    return later === undefined ? frames.length - 1 : state.dealFirst.get(later);
  }

  function prevDeal(index) {
    const deal = frames[index].deal;
    const first = state.dealFirst.get(deal);
    if (first < index) {
      return first;
    }
    const earlier = dealNumbers().filter((number) => number < deal).pop();
    return earlier === undefined ? 0 : state.dealFirst.get(earlier);
  }

  const moves = {
    first: () => 0,
    last: () => frames.length - 1,
    prev: (i) => i - 1,
    next: (i) => i + 1,
    "prev-trick": prevTrick,
    "next-trick": nextTrick,
    "prev-deal": prevDeal,
    "next-deal": nextDeal,
  };

  function move(name) {
    if (!frames.length) {
      return;
    }
    go(moves[name](state.index), true);
  }

  /* ---------- playing ---------- */

  function setPlaying(playing) {
    state.playing = playing;
    el.play.setAttribute("aria-pressed", playing ? "true" : "false");
    const text = el.play.dataset[playing ? "pauseText" : "playText"];
    el.play.title = text;
    el.play.setAttribute("aria-label", text);
    clearTimeout(state.timer);
    state.timer = null;
    if (playing) {
      if (state.index >= frames.length - 1 && (!state.live || state.ended)) {
        go(0, true);
      }
      schedule();
    }
  }

  function schedule() {
    const speed = Number(el.speed.value) || 1;
    state.timer = setTimeout(tick, STEP_MS / speed);
  }

  function tick() {
    if (!state.playing) {
      return;
    }
    if (state.index < frames.length - 1) {
      go(state.index + 1, true);
    } else if (!state.live || state.ended) {
      setPlaying(false);
      return;
    }
    schedule();
  }

  /* ---------- the URL hash ---------- */

  /** The position in the URL (a reload lands on it), and in the language switch's
   *  links, so that the other language opens at the same step. */
  function keepInHash(position) {
    const hash = `#d${position.deal}-s${position.step}`;
    if (window.location.hash !== hash) {
      history.replaceState(null, "", hash);
    }
    for (const link of document.querySelectorAll("a[data-lang][href]")) {
      link.hash = hash;
    }
  }

  function indexFromHash(hash) {
    let found = /^#f(\d+)$/.exec(hash);
    if (found) {
      return Number(found[1]) < frames.length ? Number(found[1]) : null;
    }
    found = /^#d(\d+)-s(\d+)$/.exec(hash);
    if (found && state.dealFirst.has(Number(found[1]))) {
      const deal = Number(found[1]);
      const index = state.dealFirst.get(deal) + Math.max(1, Number(found[2])) - 1;
      return Math.min(index, state.dealLast.get(deal));
    }
    return null;
  }

  /* ---------- frames in ---------- */

  /** Add a frame at its number (`i`, from the match's start) unless it is one already
   *  held: a reconnection sends the frames of the last event again. */
  function append(frame) {
    const index = typeof frame.i === "number" ? frame.i : frames.length;
    if (frames[index] !== undefined) {
      return false;
    }
    carryForward(frames[index - 1], frame);
    frames[index] = frame;
    addDeal(frame.deal, index, index);
    return true;
  }

  /** A field a frame leaves out (and a field a seat of it leaves out) is the one the
   *  frame before in the same deal holds. */
  function carryForward(before, frame) {
    if (!before || before.deal !== frame.deal) {
      return;
    }
    const own = frame.seats;
    for (const key of Object.keys(before)) {
      if (!(key in frame)) {
        frame[key] = before[key];
      }
    }
    if (own && own !== before.seats && before.seats) {
      own.forEach((seat, s) => {
        for (const key of Object.keys(before.seats[s] || {})) {
          if (!(key in seat)) {
            seat[key] = before.seats[s][key];
          }
        }
      });
    }
  }

  /** Know a deal: its option in the picker, its first and last frames' numbers. */
  function addDeal(number, first, last) {
    if (!state.dealFirst.has(number)) {
      state.dealFirst.set(number, first);
      const option = make("option", null, dealName(number));
      option.value = String(number);
      const later = Array.from(el.deal.options).find((o) => Number(o.value) > number);
      el.deal.insertBefore(option, later || null);
    }
    state.dealLast.set(number, Math.max(last, state.dealLast.get(number) ?? last));
    if (frames.length < last + 1) {
      frames.length = last + 1;
    }
  }

  function addDeals(entries) {
    for (const entry of entries || []) {
      addDeal(entry.number, entry.first, entry.last);
    }
  }

  /** The deal whose frames include frame `index`. */
  function dealAt(index) {
    for (const [number, first] of state.dealFirst) {
      if (first <= index && index <= state.dealLast.get(number)) {
        return number;
      }
    }
    return undefined;
  }

  /** The query naming the player whose own page it is (seats named from them), if any. */
  function viewerParam() {
    const viewer = view.match && typeof view.match.viewer === "number" ? view.match.viewer : null;
    return viewer === null ? "" : `&viewer=${viewer}`;
  }

  /** Fetch a deal's frames once (again after a failure); resolves when they are held. */
  function loadDeal(number) {
    if (number === undefined) {
      return Promise.resolve();
    }
    if (!state.fetching.has(number)) {
      const id = encodeURIComponent(root.dataset.match);
      const lang = encodeURIComponent(root.dataset.lang || "");
      const fetched = fetch(`/api/matches/${id}/table?deal=${number}&lang=${lang}${viewerParam()}`, {
        headers: { accept: "application/json" },
      })
        .then((response) => {
          if (!response.ok) {
            throw new Error(`deal ${number}: ${response.status}`);
          }
          return response.json();
        })
        .then((data) => {
          addDeals(data.deals);
          for (const frame of data.frames || []) {
            append(frame);
          }
          updateButtons();
        })
        .catch(() => {
          state.fetching.delete(number);
        });
      state.fetching.set(number, fetched);
    }
    return state.fetching.get(number);
  }

  /** Fetch the deal after `deal` ahead of the table (playing, or near a deal's end). */
  function prefetchAfter(deal) {
    const next = dealNumbers().find((number) => number > deal);
    if (next !== undefined && frames[state.dealFirst.get(next)] === undefined) {
      loadDeal(next);
    }
  }

  function lastSeq() {
    return frames.reduce((most, frame) => Math.max(most, frame.seq || 0), 0);
  }

  /* ---------- live ---------- */

  function setBadge(mode) {
    if (!el.badge) {
      return;
    }
    el.badge.hidden = false;
    el.badge.classList.toggle("ended", mode === "ended");
    el.badge.classList.toggle("waiting", mode === "waiting");
    el.badge.textContent = el.badge.dataset[`${mode}Text`] || "";
  }

  function receiveFrame(event) {
    const added = append(JSON.parse(event.data));
    if (!added) {
      return;
    }
    if (state.index < 0 || (state.following && !state.playing)) {
      followSoon();
    } else {
      el.scrub.max = String(frames.length - 1);
      updateButtons();
      if (el.position && state.index >= 0) {
        el.position.textContent = label("position", stepOf(state.index));
      }
    }
  }

  /** Show the newest frame: at once, unless a frame was drawn since the last paint;
   *  then at the next paint. A burst of frames (bots that answer at once) is drawn once
   *  a paint, not frame by frame; a lone frame is drawn as it comes. */
  function followSoon() {
    if (state.followPaint !== null) {
      state.followLate = true;
      return;
    }
    go(frames.length - 1, false);
    state.followPaint = requestAnimationFrame(() => {
      state.followPaint = null;
      const late = state.followLate;
      state.followLate = false;
      if (late && (state.index < 0 || (state.following && !state.playing))) {
        followSoon();
      }
    });
  }

  function finish(result) {
    view.result = result;
    state.ended = true;
    root.dataset.ended = "true";
    setBadge("ended");
    if (state.source) {
      state.source.close();
      state.source = null;
    }
    if (state.following && frames.length) {
      state.index = -1;
      go(frames.length - 1, false);
    }
  }

  function connect() {
    const id = encodeURIComponent(root.dataset.match);
    const lang = encodeURIComponent(root.dataset.lang || "");
    const url = `/api/matches/${id}/live?lang=${lang}&after=${lastSeq()}${viewerParam()}`;
    const source = new EventSource(url);
    state.source = source;
    source.addEventListener("open", () => {
      state.retries = 0;
      setBadge("live");
    });
    source.addEventListener("header", (event) => {
      view.match = Object.assign({}, view.match, JSON.parse(event.data));
    });
    source.addEventListener("frame", receiveFrame);
    source.addEventListener("turn", receiveTurn);
    source.addEventListener("result", (event) => finish(JSON.parse(event.data)));
    source.addEventListener("error", () => {
      source.close();
      if (state.source !== source || state.ended) {
        return;
      }
      state.source = null;
      setBadge("waiting");
      const delay = RETRY_MS[Math.min(state.retries, RETRY_MS.length - 1)];
      state.retries += 1;
      setTimeout(connect, delay);
    });
  }

  /* ---------- input ---------- */

  function bindControls() {
    for (const name of Object.keys(moves)) {
      document.getElementById(name).addEventListener("click", () => move(name));
    }
    el.play.addEventListener("click", () => setPlaying(!state.playing));
    el.speed.addEventListener("change", () => {
      if (state.playing) {
        clearTimeout(state.timer);
        schedule();
      }
    });
    el.scrub.addEventListener("input", () => go(Number(el.scrub.value), true));
    el.deal.addEventListener("change", () => {
      const first = state.dealFirst.get(Number(el.deal.value));
      if (first !== undefined) {
        go(first, true);
      }
    });
    el.log.addEventListener("click", (event) => {
      const item = event.target.closest("li[data-frame]");
      if (item) {
        go(Number(item.dataset.frame), true);
      }
    });
    window.addEventListener("hashchange", () => {
      const index = indexFromHash(window.location.hash);
      if (index !== null) {
        go(index, true);
      }
    });
    document.addEventListener("keydown", onKey);
    bindSwipe();
  }

  const KEYS = {
    ArrowLeft: (shift) => (shift ? "prev-trick" : "prev"),
    ArrowRight: (shift) => (shift ? "next-trick" : "next"),
    PageUp: () => "prev-deal",
    PageDown: () => "next-deal",
    Home: () => "first",
    End: () => "last",
  };

  function onKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey) {
      return;
    }
    const target = event.target;
    if (target && (target.tagName === "SELECT" || target.tagName === "TEXTAREA")) {
      return;
    }
    if (target && target.tagName === "INPUT" && target.type !== "range") {
      return;
    }
    if (event.key === " " || event.code === "Space") {
      event.preventDefault();
      setPlaying(!state.playing);
      return;
    }
    const pick = KEYS[event.key];
    if (pick) {
      event.preventDefault();
      move(pick(event.shiftKey));
    }
  }

  /** On a touch screen a horizontal swipe on the felt steps back or forth. */
  function bindSwipe() {
    const felt = document.getElementById("felt");
    let start = null;
    felt.addEventListener("touchstart", (event) => {
      const touch = event.changedTouches[0];
      start = { x: touch.clientX, y: touch.clientY };
    }, { passive: true });
    felt.addEventListener("touchend", (event) => {
      if (!start) {
        return;
      }
      const touch = event.changedTouches[0];
      const dx = touch.clientX - start.x;
      const dy = touch.clientY - start.y;
      start = null;
      if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) {
        move(dx < 0 ? "next" : "prev");
      }
    }, { passive: true });
  }

  /* ---------- start ---------- */

  function start() {
    addDeals(view.deals);
    for (const frame of view.frames || []) {
      append(frame);
    }
    bindControls();
    const fromHash = indexFromHash(window.location.hash);
    if (state.live && view.result) {
      state.ended = true;
      root.dataset.ended = "true";
      setBadge("ended");
    }
    if (!frames.length) {
      drawEmpty();
    } else if (fromHash !== null) {
      go(fromHash, true);
    } else {
      const shown = (view.frames || []).length ? view.frames[0].i : 0;
      go(state.live ? frames.length - 1 : shown, false);
    }
    if (state.live && !state.ended) {
      setBadge("live");
      connect();
    }
  }

  start();

  /* What a person's seat panel (static/seat.js) draws with: the same card faces, marked
     as the newest frame marks them (level, trump, wild cards), and the table's words. */
  window.ArenaTable = {
    faceCard: (code) => faceCard(code, frames.length ? frames[frames.length - 1].marks : null),
    label,
  };
})();
