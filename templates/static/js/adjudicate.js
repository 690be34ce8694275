// Adjudicating by keyboard: a grade's number presses its button (the form posts through htmx and the next item
// replaces this one), unless the admin is typing the note.
(() => {
  "use strict";
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("input, textarea, select")) return;
    const button = document.querySelector(`#adjudicate-form button[data-grade="${event.key}"]`);
    if (!button) return;
    event.preventDefault();
    button.click();
  });
})();
