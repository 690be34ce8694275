// The answer page's keys: j/k or the arrows move between nuggets and citations; on a nugget s, p, n label it
// (support, partial, no support), on a citation f, p, n (full, partial, none); ] and [ go to the next and previous
// answer. Each label is saved without leaving the page (the forms also work without this script).
(() => {
  "use strict";
  const items = Array.from(document.querySelectorAll("[data-item]"));
  const progress = document.getElementById("answer-progress");
  let current = 0;

  // The page opens at the answer (the first item is chosen, not scrolled to: on a phone the nuggets sit below it).
  const focusItem = (index, scroll = true) => {
    if (!items.length) return;
    current = Math.max(0, Math.min(items.length - 1, index));
    items.forEach((item, i) => item.classList.toggle("current", i === current));
    items[current].focus({ preventScroll: true });
    if (scroll) items[current].scrollIntoView({ block: "nearest" });
  };

  const labelled = (selector) => {
    const found = Array.from(document.querySelectorAll(selector));
    return [found.filter((n) => n.querySelector('button[aria-pressed="true"]')).length, found.length];
  };

  const countLabelled = () => {
    const [nuggetsDone, nuggets] = labelled(".nugget-item");
    const [citationsDone, citations] = labelled(".citation-item");
    if (progress) {
      progress.textContent = `${nuggetsDone} of ${nuggets} nuggets labelled, ${citationsDone} of ${citations} citations judged`;
    }
  };

  const save = async (form, button) => {
    const body = new FormData(form);
    body.set(button.name, button.value);
    const response = await fetch(form.action, { method: "POST", body, headers: { Accept: "application/json" } });
    if (!response.ok) {
      const answer = await response.json().catch(() => ({}));
      if (progress) progress.textContent = `Not saved: ${answer.error?.message || "the server refused it"}`;
      return false;
    }
    form.querySelectorAll("button[aria-pressed]").forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
    countLabelled();
    return true;
  };

  items.forEach((form, index) => {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const button = event.submitter;
      if (!button) return;
      current = index;
      if (await save(form, button)) focusItem(index + 1);
    });
    form.addEventListener("focusin", () => { current = index; items.forEach((item, i) => item.classList.toggle("current", i === index)); });
  });

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("textarea, input, select")) return;
    const link = { "]": "next-answer", "[": "previous-answer" }[event.key];
    if (link) {
      const anchor = document.getElementById(link);
      if (anchor) { event.preventDefault(); anchor.click(); }
      return;
    }
    if (["j", "ArrowDown"].includes(event.key)) { event.preventDefault(); focusItem(current + 1); return; }
    if (["k", "ArrowUp"].includes(event.key)) { event.preventDefault(); focusItem(current - 1); return; }
    if (!items.length || event.repeat) return;
    const button = items[current].querySelector(`button[data-key="${event.key}"]`);
    if (button) { event.preventDefault(); items[current].requestSubmit(button); }
  });
  if (items.length) focusItem(0, false);
})();
