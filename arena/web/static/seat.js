/* A person's seat at a table (templates/seat.html, templates/table_wait.html).

   The seat's own stream (/api/tables/ID/seat, server-sent events, authenticated by the
   session cookie) brings the person's hand, each decision (its legal actions as texts and
   its time) and the refusals; the felt above is drawn by table.js from the match's
   public stream. The person selects cards (click, tap, or ← → and Space), sees the legal
   plays that hold the selection and what the selection reads as, and sends an action's
   text with the request's id (POST /api/tables/ID/act, with the CSRF token). A selection
   that no listed action has is sent as it is: the rules refuse it or not, and a refusal's
   reason is shown. A waiting table's page reloads once the match starts.

   The hand comes in the order players hold it (the server's, the felt's: Shengji by
   suit with the trumps together in trump order, Guandan and sanfu by rank), or by rank
   alone (a switch, remembered). A phase of several one-card decisions in a row (the
   kitty buried card by card) is one gesture: the cards are selected against a counter,
   then sent one decision after another. A decision with one legal action is played by
   itself after a short, visible pause (a switch, on unless turned off). The kitty's
   cards are marked once the dealer took them up (their own stream names them). A newer page
   of the same seat (another tab) takes the seat: this one then says so and stops. */
(function () {
  "use strict";

  const panel = document.getElementById("seat");
  const dataBlock = document.getElementById("seat-data");
  if (!panel || !dataBlock) {
    return;
  }
  const seat = JSON.parse(dataBlock.textContent);
  const wordsBlock = document.getElementById("seat-words");
  const words = wordsBlock ? JSON.parse(wordsBlock.textContent) : {};
  const CARD = /^([2-9TJQKA][shdc]|SJ|BJ)$/;
  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const names = seat.words || {};
  const SHOWN_LEGAL = 16; // legal actions listed at once
  const RETRY_MS = [500, 1000, 2000, 4000];
  const FORCED_MS = 800; // the pause before a forced move is played by itself
  const NARROW = "(max-width: 640px)"; // a phone: seat.css's layout
  const RANKS = "23456789TJQKA";
  const SUIT_PLACES = { s: 0, h: 1, c: 2, d: 3 }; // ♠ ♥ ♣ ♦, as the server holds them
  const SWITCHES = { autoplay: "arena.seat.autoplay", byRank: "arena.seat.by-rank" };

  /** A remembered switch (localStorage), `fallback` when never set or unreadable. */
  function remembered(key, fallback) {
    try {
      const value = window.localStorage.getItem(key);
      return value === null ? fallback : value === "1";
    } catch (error) {
      return fallback;
    }
  }

  function remember(key, on) {
    try {
      window.localStorage.setItem(key, on ? "1" : "0");
    } catch (error) {
      // a private window may refuse: the switch holds for this page only
    }
  }

  const state = {
    hand: [],
    selected: new Set(), // positions in the hand
    focus: 0,
    decision: null,
    sent: false,
    deadline: 0, // ms timestamps
    bankMs: 0,
    bankUntil: 0,
    reading: null, // the timer of the next reading asked
    hinted: "", // the open decision's hint, once asked
    retries: 0,
    over: false,
    groups: [], // each card's group in the held order (a suit, the trumps)
    byRank: remembered(SWITCHES.byRank, false),
    autoplay: remembered(SWITCHES.autoplay, true),
    forced: null, // the timer of a forced move
    kitty: [], // the cards of the kitty the seat took up (Shengji's dealer)
    queue: [], // cards still to send, one decision each (burying)
    batch: 0, // how many the gesture sends in all
    sentCards: null, // the hand as it was when cards were last sent
    lastCards: [], // the cards last sent
    replaced: false,
  };

  const el = {
    hand: document.getElementById("my-hand"),
    turn: document.getElementById("turn"),
    clock: document.getElementById("clock"),
    send: document.getElementById("send"),
    clear: document.getElementById("clear"),
    hint: document.getElementById("hint"),
    reading: document.getElementById("reading"),
    legal: document.getElementById("legal"),
    legalNote: document.getElementById("legal-note"),
    refusal: document.getElementById("refusal"),
    over: document.getElementById("seat-over"),
    rating: document.getElementById("seat-rating"),
    count: document.getElementById("seat-count"),
    forced: document.getElementById("forced"),
    autoplay: document.getElementById("autoplay"),
    byRank: document.getElementById("by-rank"),
    result: document.getElementById("seat-result"),
  };

  function word(key, fields) {
    return window.arenaWords.fill(words[key] || "", fields || {});
  }

  /** An action text's parts: its verb, its cards, its kind ("as …"). */
  function parse(text) {
    const tokens = text.split(" ");
    const verb = tokens[0];
    const at = tokens.indexOf("as");
    const cards = tokens.slice(1, at < 0 ? undefined : at).filter((t) => CARD.test(t));
    return { text, verb, cards, tag: at < 0 ? "" : tokens.slice(at + 1).join(" ") };
  }

  function counts(cards) {
    const found = new Map();
    for (const card of cards) {
      found.set(card, (found.get(card) || 0) + 1);
    }
    return found;
  }

  /** Whether `inner` (a multiset of cards) fits in `outer`. */
  function within(inner, outer) {
    const have = counts(outer);
    for (const [card, count] of counts(inner)) {
      if ((have.get(card) || 0) < count) {
        return false;
      }
    }
    return true;
  }

  function sameCards(a, b) {
    return a.length === b.length && within(a, b);
  }

  function selectedCards() {
    return [...state.selected].sort((a, b) => a - b).map((i) => state.hand[i]);
  }

  function legalActions() {
    return state.decision ? state.decision.legal.map(parse) : [];
  }

  /** A card's place when sorted by rank alone: rank, then suit; the jokers last. */
  function rankKey(code) {
    if (code === "SJ" || code === "BJ") {
      return [code === "SJ" ? 13 : 14, 0];
    }
    return [RANKS.indexOf(code[0]), SUIT_PLACES[code[1]]];
  }

  /** The hand's positions in the order drawn: as held (the server's), or by rank. */
  function drawnOrder() {
    const positions = state.hand.map((_, index) => index);
    if (!state.byRank) {
      return positions;
    }
    return positions.sort((a, b) => {
      const [x, y] = [rankKey(state.hand[a]), rankKey(state.hand[b])];
      return x[0] - y[0] || x[1] - y[1] || a - b;
    });
  }

  /** Positions of `cards` (a multiset) in the hand, each copy once, the last copies
   *  first (the ones that came in last). */
  function positionsOf(cards) {
    const left = counts(cards);
    const found = new Set();
    for (let index = state.hand.length - 1; index >= 0; index -= 1) {
      const card = state.hand[index];
      if ((left.get(card) || 0) > 0) {
        left.set(card, left.get(card) - 1);
        found.add(index);
      }
    }
    return found;
  }

  /** A phase of several one-card decisions in a row (the kitty buried card by card):
   *  its verb and how many cards it takes now; null for any other decision. */
  function batchPhase() {
    const decision = state.decision;
    if (!decision || decision.phase !== "bury") {
      return null;
    }
    const actions = legalActions().filter((a) => a.cards.length);
    if (!actions.length || actions.some((a) => a.cards.length !== 1)) {
      return null;
    }
    const held = (decision.public && decision.public.counts) || [];
    const others = held.filter((_, seatIndex) => seatIndex !== decision.seat);
    const total = others.length ? state.hand.length - Math.min(...others) : 1;
    return total > 1 ? { verb: actions[0].verb, total } : null;
  }

  /* ---------- drawing ---------- */

  function cardButton(code, index) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "hand-card";
    button.dataset.card = code;
    button.dataset.index = String(index);
    button.setAttribute("aria-pressed", state.selected.has(index) ? "true" : "false");
    button.tabIndex = index === state.focus ? 0 : -1;
    const face = window.ArenaTable ? window.ArenaTable.faceCard(code) : null;
    if (face) {
      button.append(face);
    } else {
      button.textContent = code;
    }
    button.title = code;
    button.addEventListener("click", () => toggle(index));
    return button;
  }

  /** A decision brings the whole hand and the action buttons (the counter and the
   *  selection's reading beside them, the listed actions) onto the screen, the page
   *  scrolling as little as it takes; on a wider screen the felt's trick stays on
   *  the screen above them (seat.css draws the felt small enough for both). */
  function showDecision() {
    if (!state.decision || !state.hand.length) {
      return;
    }
    const trick = document.getElementById("trick");
    const wide = !window.matchMedia(NARROW).matches;
    const top = (wide && trick ? trick : el.hand).getBoundingClientRect().top - 4;
    const parts = [el.send.parentElement, ...el.legal.querySelectorAll(".legal-action")];
    const bottom = Math.max(...parts.map((part) => part.getBoundingClientRect().bottom));
    const below = bottom + 6 - window.innerHeight;
    if (below > 0) {
      window.scrollBy(0, Math.min(below, top));
    } else if (top < 0) {
      window.scrollBy(0, Math.max(top, below));
    }
  }

  /** Marks the first card of each held group (a gap before it) and the kitty's cards. */
  function markCards(order) {
    const fromKitty = positionsOf(state.kitty);
    let group = null;
    order.forEach((index, at) => {
      const button = el.hand.children[at];
      const starts = !state.byRank && at > 0 && state.groups[index] !== group;
      group = state.groups[index];
      button.classList.toggle("group-start", starts);
      button.classList.toggle("from-kitty", fromKitty.has(index));
      if (fromKitty.has(index)) {
        button.title = `${button.dataset.card} · ${word("kitty_card")}`;
      }
    });
  }

  function drawHand() {
    if (!el.hand) {
      return;
    }
    const chosen = selectedCards();
    const fitting = legalActions().filter((a) => a.cards.length && within(chosen, a.cards));
    const usable = new Set(fitting.flatMap((a) => a.cards));
    // a sampled list (Shengji's long follows, burying) cannot tell: nothing is dimmed
    const sampled = Boolean(state.decision) && state.decision.complete === false;
    const batch = batchPhase(); // any card may be among those the batch sends
    const order = drawnOrder();
    el.hand.replaceChildren(...order.map((index) => cardButton(state.hand[index], index)));
    markCards(order);
    for (const button of el.hand.children) {
      const index = Number(button.dataset.index);
      const playable = sampled || Boolean(batch) || usable.has(button.dataset.card);
      button.classList.toggle("selected", state.selected.has(index));
      button.classList.toggle("playable", Boolean(state.decision) && playable);
    }
    drawChoices();
  }

  /** A card as people read it: ♠A, ♥10, the jokers by name. */
  function cardName(code) {
    if (code === "SJ" || code === "BJ") {
      const key = code === "BJ" ? "joker_big" : "joker_small"; // the felt's own words
      return window.ArenaTable ? window.ArenaTable.label(key) : code;
    }
    const rank = code.slice(0, -1);
    return `${SUITS[code.slice(-1)] || ""}${rank === "T" ? "10" : rank}`;
  }

  /** An action in the page's language: its verb (none for a play), its cards, the kind
   *  it is read as. */
  function actionName(action) {
    const parts = [];
    if (action.verb !== "play" || !action.cards.length) {
      const phase = state.decision ? state.decision.phase : "";
      parts.push(names[`verb.${action.verb}.${phase}`] || names[`verb.${action.verb}`] || action.verb);
    }
    parts.push(...action.cards.map(cardName));
    if (action.tag) {
      parts.push(`· ${names[`kind.${action.tag}`] || action.tag}`);
    }
    return parts.join(" ");
  }

  function actionButton(action) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "legal-action";
    button.dataset.action = action.text;
    button.textContent = actionName(action);
    button.title = action.text;
    button.addEventListener("click", () => send(action.text));
    return button;
  }

  /** The legal actions worth showing now: those without cards (pass), and those that
   *  hold the selection (all of them when nothing is selected, up to SHOWN_LEGAL). */
  function drawChoices() {
    if (!el.legal) {
      return;
    }
    const decision = state.decision;
    const chosen = selectedCards();
    const actions = legalActions();
    const batch = state.queue.length ? null : batchPhase();
    const exact = actions.filter((a) => a.cards.length && sameCards(a.cards, chosen));
    const shown = batch ? [] : actions.filter((a) => !a.cards.length || within(chosen, a.cards));
    el.legal.replaceChildren(...shown.slice(0, SHOWN_LEGAL).map((a) => actionButton(a)));
    if (shown.length > SHOWN_LEGAL) {
      const more = document.createElement("span");
      more.className = "more";
      more.textContent = `+${shown.length - SHOWN_LEGAL}`;
      el.legal.append(more);
    }
    for (const button of el.legal.querySelectorAll(".legal-action")) {
      button.classList.toggle("exact", exact.some((a) => a.text === button.dataset.action));
    }
    if (el.legalNote) {
      el.legalNote.hidden = !decision || decision.complete !== false;
    }
    const ready = Boolean(decision) && !state.sent && chosen.length > 0 && !state.queue.length;
    el.send.disabled = !ready || (batch !== null && chosen.length !== batch.total);
    el.send.textContent = batch ? word("bury", { n: batch.total }) : word("send");
    drawCount(batch, chosen.length);
    el.clear.disabled = chosen.length === 0;
    if (el.hint) {
      el.hint.disabled = !decision || state.sent;
    }
    el.reading.dataset.read = "false";
    el.reading.textContent = chosen.length
      ? exact.length
        ? exact.map(actionName).join(" | ")
        : `${word("selected")}: ${chosen.map(cardName).join(" ")}`
      : "";
  }

  /** The counter of a batch: chosen so far out of the cards it takes, or being sent. */
  function drawCount(batch, chosen) {
    if (!el.count) {
      return;
    }
    if (state.queue.length) {
      const sent = state.batch - state.queue.length;
      el.count.textContent = word("burying", { n: sent, total: state.batch });
    } else if (batch) {
      el.count.textContent = word("kitty_count", { n: chosen, total: batch.total });
    }
    el.count.hidden = !state.queue.length && !batch;
    el.count.classList.toggle("full", Boolean(batch) && chosen === batch.total);
  }

  function drawTurn() {
    panel.dataset.state = state.replaced
      ? "replaced"
      : state.over
        ? "over"
        : state.decision
          ? state.sent
            ? "sent"
            : "acting"
          : "waiting";
    panel.dataset.request = state.decision ? state.decision.request_id : "";
    panel.dataset.phase = state.decision ? state.decision.phase : "";
    panel.dataset.options = state.decision ? String(state.decision.legal.length) : "";
    if (!el.turn || (!seat.started && !state.replaced)) {
      return; // a waiting table's page keeps its own words until it reloads
    }
    if (state.replaced) {
      el.turn.textContent = word("replaced");
    } else if (state.over) {
      el.turn.textContent = ""; // #seat-over says it, with the replay's link
    } else if (state.decision) {
      el.turn.textContent = state.sent ? word("sent") : word("your_turn");
    } else {
      el.turn.textContent = word("waiting_turn");
    }
  }

  function tickClock() {
    if (!el.clock) {
      return;
    }
    if (!state.decision || state.over) {
      el.clock.hidden = true;
      return;
    }
    const now = Date.now();
    const decision = Math.max(0, Math.ceil((state.deadline - now) / 1000));
    const bankLeft = state.deadline > now ? state.bankMs : Math.max(0, state.bankUntil - now);
    el.clock.hidden = false;
    el.clock.querySelector(".decision-time").textContent =
      `${word("decision")} ${word("seconds", { seconds: decision })}`;
    el.clock.querySelector(".bank-time").textContent =
      `${word("bank")} ${word("seconds", { seconds: Math.ceil(bankLeft / 1000) })}`;
    el.clock.classList.toggle("low", decision <= 5);
  }

  /** A refusal: each rule it cites said in the page's language, then the server's own
   *  words (the rules oracle's sentence, with its rule id). */
  function showRefusal(text) {
    if (!el.refusal) {
      return;
    }
    el.refusal.hidden = !text;
    el.refusal.replaceChildren();
    if (!text) {
      return;
    }
    const cited = [...new Set(text.match(/\b(GD|SJ|SF)-\d+\b/g) || [])];
    const rules = cited
      .filter((id) => names[`rule.${id}`])
      .map((id) => (names.rule_is || "{id}: {rule}").replace("{id}", id).replace("{rule}", names[`rule.${id}`]));
    const head = document.createElement("span");
    head.className = "refusal-rules";
    head.textContent = `${word("refused")}: ${rules.length ? rules.join(" ") : text}`;
    el.refusal.append(head);
    if (rules.length) {
      const detail = document.createElement("small");
      detail.className = "refusal-detail";
      detail.textContent = text;
      el.refusal.append(detail);
    }
  }

  /* ---------- acting ---------- */

  function toggle(index) {
    const batch = batchPhase();
    if (state.queue.length) {
      return; // the chosen cards are being sent
    }
    cancelForced(); // the person chooses for themselves
    if (state.selected.has(index)) {
      state.selected.delete(index);
    } else if (batch && state.selected.size >= batch.total) {
      return; // the counter is full: a card is unselected first
    } else {
      state.selected.add(index);
    }
    state.focus = index;
    drawHand();
    readSoon();
    const button = el.hand.querySelector(`[data-index="${index}"]`);
    if (button) {
      button.focus();
    }
  }

  function clear() {
    if (state.queue.length) {
      return;
    }
    state.selected.clear();
    drawHand();
  }

  /** Ask what the selection reads as (Guandan: its kinds, its wild cards; Shengji: a
   *  throw safe to try or not), shortly after the selection stops changing; shown
   *  beside the button. */
  function readSoon() {
    if (seat.variant.startsWith("sanfu") || batchPhase()) {
      return;
    }
    clearTimeout(state.reading);
    state.reading = setTimeout(readSelection, 120);
  }

  async function readSelection() {
    const cards = selectedCards();
    if (!cards.length || !state.decision) {
      return;
    }
    const response = await fetch(`/api/tables/${encodeURIComponent(seat.table)}/read`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": seat.csrf },
      body: JSON.stringify({ cards }),
    });
    if (!response.ok || selectedCards().join(" ") !== cards.join(" ")) {
      return; // refused, or the selection changed meanwhile
    }
    const found = await response.json();
    if (found.throw) {
      el.reading.textContent = found.throw; // Shengji: is this throw safe to try
      el.reading.dataset.read = "true";
      return;
    }
    if (!found.readings) {
      return;
    }
    const parts = found.readings.length
      ? [found.readings.join(" / ")]
      : [word("no_combination", { why: found.why })];
    if (found.wild) {
      parts.push(word("wild", { n: found.wild }));
    }
    el.reading.textContent = parts.join(" · ");
    el.reading.dataset.read = "true";
  }

  /** The text to send for the selection: the listed action of exactly these cards (the
   *  first one when the cards read several ways), else the selection as the decision's
   *  card verb would take it, for the rules to judge. */
  function selectionText() {
    const chosen = selectedCards();
    const actions = legalActions();
    const exact = actions.find((a) => a.cards.length && sameCards(a.cards, chosen));
    if (exact) {
      return exact.text;
    }
    const verbs = actions.filter((a) => a.cards.length).map((a) => a.verb);
    const verb = verbs.length ? verbs[0] : "play";
    return `${verb} ${chosen.join(" ")}`;
  }

  /** The selection sent: a batch's cards one decision after another, else one action. */
  function sendSelection() {
    const batch = batchPhase();
    if (batch && state.selected.size === batch.total) {
      state.queue = selectedCards();
      state.batch = state.queue.length;
      sendQueued();
    } else if (!batch) {
      send(selectionText());
    }
  }

  /** The next queued card, for the open decision of the batch's phase. */
  function sendQueued() {
    if (!state.queue.length || !state.decision || state.sent) {
      return;
    }
    if (state.decision.phase !== "bury") {
      state.queue = []; // the phase ended otherwise: nothing more is sent
      return;
    }
    send(`bury ${state.queue.shift()}`);
  }

  function cancelForced() {
    clearTimeout(state.forced);
    state.forced = null;
    if (el.forced) {
      el.forced.hidden = true;
    }
  }

  /** A decision with one legal action: played by itself after a visible pause, when
   *  the switch is on. */
  function playForced() {
    const decision = state.decision;
    cancelForced();
    if (!state.autoplay || !decision || state.sent || state.queue.length) {
      return;
    }
    if (decision.legal.length !== 1 || decision.complete === false) {
      return;
    }
    if (el.forced) {
      el.forced.hidden = false;
    }
    state.forced = setTimeout(() => {
      cancelForced();
      if (state.decision === decision && !state.sent && state.autoplay) {
        send(decision.legal[0]);
      }
    }, FORCED_MS);
  }

  async function send(text) {
    const decision = state.decision;
    if (!decision || state.sent) {
      return;
    }
    cancelForced();
    state.sent = true;
    state.lastCards = parse(text).cards;
    state.sentCards = state.lastCards.length ? [...state.hand] : null;
    showRefusal("");
    drawTurn();
    drawChoices();
    let problem = "";
    try {
      let response = null;
      for (let attempt = 0; attempt < 4; attempt += 1) {
        if (attempt) {
          await new Promise((resolve) => setTimeout(resolve, 300)); // asked too fast
        }
        response = await fetch(`/api/tables/${encodeURIComponent(seat.table)}/act`, {
          method: "POST",
          credentials: "same-origin",
          headers: { "content-type": "application/json", "x-csrf-token": seat.csrf },
          body: JSON.stringify({ request_id: decision.request_id, action: text }),
        });
        if (response.status !== 429) {
          break;
        }
      }
      if (!response.ok) {
        problem = (await response.text()).slice(0, 300) || String(response.status);
      }
    } catch (error) {
      problem = String(error);
    }
    if (problem) {
      state.sent = false;
      state.queue = [];
      showRefusal(problem);
      drawTurn();
      drawChoices();
    }
  }

  /** Ask what the heuristic bot would play: its cards are selected (nothing is sent). */
  async function hint() {
    const decision = state.decision;
    if (!decision) {
      return;
    }
    const response = await fetch(`/api/tables/${encodeURIComponent(seat.table)}/hint`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "x-csrf-token": seat.csrf },
    });
    if (response.status === 429 && state.decision === decision) {
      setTimeout(() => state.decision === decision && hint(), 500); // asked too fast
      return;
    }
    if (!response.ok) {
      showRefusal((await response.text()).slice(0, 300));
      return;
    }
    const answer = await response.json();
    if (!state.decision || answer.request_id !== state.decision.request_id) {
      return; // the decision moved on meanwhile
    }
    const action = parse(answer.action);
    state.hinted = answer.action;
    state.selected.clear();
    const left = [...action.cards];
    state.hand.forEach((card, index) => {
      const at = left.indexOf(card);
      if (at >= 0) {
        left.splice(at, 1);
        state.selected.add(index);
      }
    });
    drawHand();
    el.reading.textContent = word("hint_is", { action: actionName(action) });
    if (!action.cards.length) {
      const button = el.legal.querySelector(`[data-action="${CSS.escape(answer.action)}"]`);
      if (button) {
        button.classList.add("exact");
        button.focus();
      }
    }
  }

  function pass() {
    const found = legalActions().find((a) => a.verb === "pass");
    if (found) {
      send(found.text);
    }
  }

  /** Keys: Enter plays, Esc clears, P passes, H asks for a hint, anywhere on the page;
   *  ← → and Space move and select among the cards when the focus is in the panel (else
   *  they step the felt, table.js). */
  function onKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey || event.defaultPrevented) {
      return;
    }
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT")) {
      return;
    }
    const inPanel = panel.contains(target);
    if (target && target.tagName === "BUTTON" && !inPanel) {
      return; // the felt's own buttons
    }
    const count = state.hand.length;
    let handled = true;
    if (inPanel && (event.key === "ArrowLeft" || event.key === "ArrowRight") && count) {
      state.focus = (state.focus + (event.key === "ArrowLeft" ? count - 1 : 1)) % count;
      drawHand();
      el.hand.querySelector(`[data-index="${state.focus}"]`).focus();
    } else if (inPanel && (event.key === " " || event.code === "Space") && count) {
      toggle(state.focus);
    } else if (
      event.key === "Enter" &&
      target &&
      target.tagName === "BUTTON" &&
      !target.classList.contains("hand-card")
    ) {
      handled = false; // a focused button (an action, Clear …) is pressed as a button
    } else if (event.key === "Enter" && !el.send.disabled) {
      sendSelection();
    } else if (event.key === "Enter" && state.hinted && !state.selected.size) {
      send(state.hinted); // the hint had no cards to select (a pass)
    } else if (event.key === "Escape") {
      clear();
    } else if (event.key === "p" || event.key === "P") {
      pass();
    } else if (event.key === "h" || event.key === "H") {
      hint();
    } else {
      handled = false;
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation(); // the felt's own keys (table.js) are left alone
    }
  }

  /* ---------- the stream ---------- */

  function onHand(data) {
    const before = state.hand.join(" ");
    state.hand = data.hand || [];
    state.groups = data.groups || [];
    state.kitty = data.kitty || [];
    if (state.hand.join(" ") !== before) {
      state.selected = state.queue.length ? positionsOf(state.queue) : new Set();
      state.focus = Math.min(state.focus, Math.max(0, state.hand.length - 1));
    }
    drawHand();
  }


  function onDecision(data) {
    state.decision = data;
    state.hinted = "";
    state.sent = false;
    const now = Date.now();
    state.deadline = now + (data.decision_ms || 0);
    state.bankMs = data.time_bank_ms || 0;
    state.bankUntil = state.deadline + state.bankMs;
    const batch = batchPhase();
    drawTurn();
    drawHand();
    tickClock();
    window.requestAnimationFrame(showDecision);
    if (state.queue.length) {
      sendQueued();
      return;
    }
    if (seat.tutorial && !batch) {
      hint(); // a tutorial deal shows the bot's suggestion at every turn
    }
    playForced();
  }

  function onRefused(data) {
    if (state.decision && data.request_id === state.decision.request_id) {
      state.sent = false;
    }
    state.queue = [];
    showRefusal(data.reason || data.status);
    drawTurn();
    drawChoices();
  }

  function onTimedOut(data) {
    cancelForced();
    state.decision = null;
    state.sent = false;
    state.queue = [];
    showRefusal("");
    if (el.refusal) {
      el.refusal.hidden = false;
      el.refusal.textContent = `${word("timed_out")}${data.action ? `: ${data.action}` : ""}`;
    }
    drawTurn();
    drawHand();
  }

  /** A deal's or the match's end: the last cards sent leave the hand (no hand comes
   *  after the play that ended it), nothing stays selected. */
  function clearPlayed() {
    if (state.sent && state.sentCards && state.hand.join(" ") === state.sentCards.join(" ")) {
      const gone = positionsOf(state.lastCards);
      state.hand = state.hand.filter((_, index) => !gone.has(index));
      state.groups = state.groups.filter((_, index) => !gone.has(index));
    }
    cancelForced();
    state.sent = false;
    state.sentCards = null;
    state.decision = null;
    state.queue = [];
    state.selected.clear();
    showRefusal("");
    if (el.reading) {
      el.reading.textContent = "";
    }
  }

  /** The match's end for the person: their team won or lost, else (a match cut to so
   *  many deals) the teams' totals. */
  function showResult(result) {
    const won = result.winner_team;
    const totals = result.totals || [];
    if (!el.result) {
      return;
    }
    if (won !== undefined && won !== null) {
      el.result.textContent = word(won === seat.player % 2 ? "team_won" : "team_lost");
    } else if (totals.length === 4) {
      const us = totals[seat.player] || 0;
      const them = totals[(seat.player + 1) % 4] || 0;
      el.result.textContent = word("team_totals", { us, them });
    } else {
      return;
    }
    el.result.hidden = false;
  }

  function onOver(result) {
    clearPlayed();
    state.over = true;
    if (el.over) {
      el.over.hidden = false;
    }
    showResult(result);
    const mine = (result.rating_changes || []).find(
      (change) => change.bot === seat.name && change.system === "elo",
    );
    if (mine && el.rating) {
      const before = mine.before === undefined ? "—" : Math.round(mine.before);
      el.rating.textContent = word("rating_change", { before, after: Math.round(mine.after) });
      el.rating.hidden = false;
    }
    drawTurn();
    drawHand();
  }

  /** A decision ends when the next event of the seat comes after the answer was sent:
   *  the hand changed (the cards left it) or another decision. */
  function settle() {
    if (state.sent && !state.queue.length) {
      state.decision = null;
      state.sent = false;
      drawTurn();
    }
  }

  function connect() {
    const source = new EventSource(`/api/tables/${encodeURIComponent(seat.table)}/seat`);
    const waitingPage = !seat.started;
    source.addEventListener("open", () => {
      state.retries = 0;
    });
    source.addEventListener("hand", (event) => {
      if (waitingPage) {
        window.location.reload();
        return;
      }
      settle();
      onHand(JSON.parse(event.data));
    });
    source.addEventListener("seat", () => {
      if (waitingPage) {
        window.location.reload();
      }
    });
    source.addEventListener("decision", (event) => onDecision(JSON.parse(event.data)));
    source.addEventListener("refused", (event) => onRefused(JSON.parse(event.data)));
    source.addEventListener("timed_out", (event) => onTimedOut(JSON.parse(event.data)));
    source.addEventListener("over", (event) => {
      onOver(JSON.parse(event.data));
      source.close();
    });
    source.addEventListener("deal", () => {
      clearPlayed();
      drawTurn();
      drawHand();
    });
    source.addEventListener("replaced", () => {
      source.close();
      clearPlayed();
      state.replaced = true;
      drawTurn();
      drawHand();
      if (el.send) {
        el.send.disabled = true;
      }
    });
    source.addEventListener("problem", (event) => {
      const data = JSON.parse(event.data);
      showRefusal(data.message || "");
    });
    source.addEventListener("error", () => {
      source.close();
      if (state.over || state.replaced) {
        return;
      }
      if (el.turn && seat.started) {
        el.turn.textContent = word("lost");
      }
      const delay = RETRY_MS[Math.min(state.retries, RETRY_MS.length - 1)];
      state.retries += 1;
      setTimeout(connect, delay);
    });
  }

  /** A switch of the panel: its remembered state shown, its changes kept. */
  function bindSwitch(box, key, apply) {
    if (!box) {
      return;
    }
    box.checked = state[key];
    box.addEventListener("change", () => {
      state[key] = box.checked;
      remember(SWITCHES[key], box.checked);
      apply();
    });
  }

  if (el.send) {
    bindSwitch(el.autoplay, "autoplay", playForced);
    bindSwitch(el.byRank, "byRank", drawHand);
    el.send.addEventListener("click", sendSelection);
    el.clear.addEventListener("click", clear);
    el.hint.addEventListener("click", hint);
    document.addEventListener("keydown", onKey, true); // before the felt's keys
    let width = window.innerWidth; // a phone turned, a window resized: not a bar hidden
    window.addEventListener("resize", () => {
      if (window.innerWidth !== width) {
        width = window.innerWidth;
        window.requestAnimationFrame(showDecision);
      }
    });
    setInterval(tickClock, 250);
  }
  drawTurn();
  connect();
})();
