// The bot's strategy: a random legal action, and another one after a refusal.
//
// A DecisionRequest carries the seat's legal actions (LegalActions): with protocol 2 as
// texts (`texts`), answered by their index; with protocol 1 as Action messages
// (`actions`), answered with the action. When the list is
// complete every legal action is in it; when it is not (Shengji with several decks,
// sanfu) it is a sample of a larger set, and every action listed is still legal. Either
// way the bot picks among the listed actions, so its answer is legal by construction;
// an ILLEGAL or MALFORMED result (which a correct server never gives for a listed
// action) makes it try one it has not tried yet for that request.

/**
 * A small seeded generator of floats in [0, 1) (mulberry32), so that a run can be
 * repeated with --seed.
 * @param {number} seed an integer
 * @returns {() => number}
 */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The text form identifying an action of the legal list (the server fills `text`
 * for every action it sends; the structured form is the fallback).
 * @param {{text?: string, verb?: string, cards?: string[], tag?: string}} action
 * @returns {string}
 */
export function actionKey(action) {
  if (action.text) return action.text;
  const parts = [action.verb ?? "", ...(action.cards ?? [])];
  if (action.tag) parts.push("as", action.tag);
  return parts.filter(Boolean).join(" ");
}

/** Picks a random listed action not tried yet for the current request. */
export class RandomPolicy {
  /** @param {() => number} random a generator of floats in [0, 1) */
  constructor(random = Math.random) {
    this.random = random;
  }

  /**
   * An action to send for a decision, or null when every listed action was tried.
   * @param {{texts?: string[], actions?: object[], complete?: boolean}} legal the
   *   observation's LegalActions
   * @param {Set<string>} tried keys (actionKey) of the actions already refused
   * @returns {{index: number, key: string, action?: object, sampled: boolean} | null}
   *   the action's position in the list, its text, the Action message (protocol 1);
   *   `sampled` is true when the list was only a sample of the legal actions
   */
  choose(legal, tried = new Set()) {
    const texts = legal?.texts ?? [];
    const listed =
      texts.length > 0
        ? texts.map((key, index) => ({ index, key }))
        : (legal?.actions ?? []).map((action, index) => ({ index, key: actionKey(action), action }));
    const open = listed.filter((a) => !tried.has(a.key));
    if (open.length === 0) return null;
    const pick = open[Math.floor(this.random() * open.length)];
    return { ...pick, sampled: legal.complete === false };
  }
}
