/* A person's seat at a table (templates/seat.html, templates/table_wait.html).

   The seat's own stream (/api/tables/ID/seat, server-sent events, authenticated by the
   session cookie) brings the person's hand, each decision (its legal actions as texts and
   its time) and the refusals; the felt above is drawn by table.js from the match's
   public stream. The person selects cards (click, tap, or ← → and Space), sees the legal
   plays that hold the selection and what the selection reads as, and sends an action's
   text with the request's id (POST /api/tables/ID/act, with the CSRF token). A selection
   that no listed action has is sent as it is: the rules refuse it or not, and a refusal's
   reason is shown. A waiting table's page reloads once the match starts. */
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

  function drawHand() {
    if (!el.hand) {
      return;
    }
    const chosen = selectedCards();
    const fitting = legalActions().filter((a) => a.cards.length && within(chosen, a.cards));
    const usable = new Set(fitting.flatMap((a) => a.cards));
    // a sampled list (Shengji's long follows, burying) cannot tell: nothing is dimmed
    const sampled = Boolean(state.decision) && state.decision.complete === false;
    el.hand.replaceChildren(...state.hand.map(cardButton));
    for (const button of el.hand.children) {
      const index = Number(button.dataset.index);
      const playable = sampled || usable.has(button.dataset.card);
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
    const exact = actions.filter((a) => a.cards.length && sameCards(a.cards, chosen));
    const shown = actions.filter((a) => !a.cards.length || within(chosen, a.cards));
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
    const ready = Boolean(decision) && !state.sent && chosen.length > 0;
    el.send.disabled = !ready;
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

  function drawTurn() {
    panel.dataset.state = state.over ? "over" : state.decision ? (state.sent ? "sent" : "acting") : "waiting";
    panel.dataset.request = state.decision ? state.decision.request_id : "";
    if (!el.turn || !seat.started) {
      return; // a waiting table's page keeps its own words until it reloads
    }
    if (state.over) {
      el.turn.textContent = word("over");
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
    if (state.selected.has(index)) {
      state.selected.delete(index);
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
    state.selected.clear();
    drawHand();
  }

  /** Ask what the selection reads as (Guandan: its kinds, its wild cards; Shengji: a
   *  throw safe to try or not), shortly after the selection stops changing; shown
   *  beside the button. */
  function readSoon() {
    if (seat.variant.startsWith("sanfu")) {
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

  async function send(text) {
    const decision = state.decision;
    if (!decision || state.sent) {
      return;
    }
    state.sent = true;
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
      send(selectionText());
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
    if (state.hand.join(" ") !== before) {
      state.selected.clear();
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
    drawTurn();
    drawHand();
    tickClock();
    if (seat.tutorial) {
      hint(); // a tutorial deal shows the bot's suggestion at every turn
    }
  }

  function onRefused(data) {
    if (state.decision && data.request_id === state.decision.request_id) {
      state.sent = false;
    }
    showRefusal(data.reason || data.status);
    drawTurn();
    drawChoices();
  }

  function onTimedOut(data) {
    state.decision = null;
    state.sent = false;
    showRefusal("");
    if (el.refusal) {
      el.refusal.hidden = false;
      el.refusal.textContent = `${word("timed_out")}${data.action ? `: ${data.action}` : ""}`;
    }
    drawTurn();
    drawHand();
  }

  function onOver(result) {
    state.over = true;
    state.decision = null;
    if (el.over) {
      el.over.hidden = false;
    }
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
    if (state.sent) {
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
    source.addEventListener("problem", (event) => {
      const data = JSON.parse(event.data);
      showRefusal(data.message || "");
    });
    source.addEventListener("error", () => {
      source.close();
      if (state.over) {
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

  if (el.send) {
    el.send.addEventListener("click", () => send(selectionText()));
    el.clear.addEventListener("click", clear);
    el.hint.addEventListener("click", hint);
    document.addEventListener("keydown", onKey, true); // before the felt's keys
    setInterval(tickClock, 250);
  }
  drawTurn();
  connect();
})();
