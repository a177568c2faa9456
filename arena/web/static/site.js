/* The site's own script (the table has table.js): a running tournament's progress,
   polled from /api/tournaments/ID/progress every few seconds; the page reloads when the
   tournament's status changes (its standings and matches then are final) or when its
   running matches change (a match started or ended: the page lists them to watch). */
(function () {
  "use strict";

  const POLL_MS = 3000;
  const box = document.getElementById("progress");
  if (!box || box.dataset.status !== "running") {
    return;
  }

  const fill = window.arenaWords.fill; // static/words.js

  function show(progress) {
    const bar = box.querySelector("progress");
    const text = box.querySelector(".progress-text");
    if (bar && progress.planned) {
      bar.max = progress.planned;
      bar.value = progress.played;
    }
    if (text) {
      const template = progress.planned ? box.dataset.text : box.dataset.textOpen;
      text.textContent = fill(template, progress);
    }
    box.dataset.played = String(progress.played);
  }

  async function poll() {
    try {
      const response = await fetch(box.dataset.url, { cache: "no-store" });
      if (response.ok) {
        const progress = await response.json();
        const live = (progress.live || []).join(" ");
        if (progress.status !== box.dataset.status || live !== box.dataset.live) {
          window.location.reload();
          return;
        }
        show(progress);
      }
    } catch (error) {
      /* the server may be restarting: try again at the next tick */
    }
    window.setTimeout(poll, POLL_MS);
  }

  window.setTimeout(poll, POLL_MS);
})();
