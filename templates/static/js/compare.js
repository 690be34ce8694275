// The comparison page's keys: 1 or ArrowLeft, 2 or ArrowRight, e, n answer; u undoes. The page is a plain form
// (it works without this script); the script also sends the seconds spent looking at the pair.
(() => {
  "use strict";
  const form = document.getElementById("compare-form");
  const shownAt = performance.now();
  const KEYS = { 1: "left", ArrowLeft: "left", 2: "right", ArrowRight: "right", e: "equal", n: "neither" };
  const GUARD_MS = 250; // a key this soon after the pair appears is a double press, not an answer
  if (form) {
    form.addEventListener("submit", () => {
      form.querySelector("input[name=seconds]").value = ((performance.now() - shownAt) / 1000).toFixed(2);
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("textarea, input, select")) return;
    if (event.key === "u") {
      const undo = document.getElementById("undo");
      if (undo) { event.preventDefault(); undo.click(); }
      return;
    }
    const answer = KEYS[event.key];
    if (!form || !answer || event.repeat || performance.now() - shownAt < GUARD_MS) return;
    event.preventDefault();
    form.querySelector(`button[data-answer="${answer}"]`).click();
  });
})();
