// A bot for `arena bot run --exec "node examples/exec_bot.js"`: one JSON line in per
// decision (the seat's observation), one line out (an index in legal_actions).
// It plays the legal action with the fewest cards, as late in the list as it can.
const readline = require("node:readline");

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const seen = JSON.parse(line);
  if (seen.refused) console.error(`refused ${seen.refused.answer}: ${seen.refused.reason}`);
  let best = 0;
  seen.legal_actions.forEach((text, index) => {
    const size = text.split(" ").length;
    const bestSize = seen.legal_actions[best].split(" ").length;
    if (size <= bestSize) best = index;
  });
  process.stdout.write(`${best}\n`);
});
