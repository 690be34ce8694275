// The judging page's keyboard-first behaviour (the page itself works without it: each grade is a form button).
//
// Judgments are applied to the page at once and saved in the background through an outbox kept in localStorage:
// a failed save (network or server error) stays in the outbox, is shown, and is retried with backoff until the
// server stores it, even across a reload. Saves carry the document's running seconds total, so a retry never
// counts time twice. Documents are fetched once and the next ones prefetched, so judging shows the next document
// without a round trip.
//
// Under an adaptive judging order the server decides the next document from the judgment just made: after a
// judgment the page waits (at most ORDER_WAIT_MS) for the save's answer, which lists the documents still to judge
// in their new order, and puts the remaining documents in that order before moving on. If the answer is late
// (offline, slow server) the page moves on in the order it has, so judging never stalls.
//
// Each entry of the queue is known by its opaque key, not by its document: a document shown again (a repeated
// item, to measure the assessor's consistency) has an entry of its own, whose answer never overwrites the first.
// With such checks on, the progress figures are the server's, which count checks as items (a check moves them as
// any save does) and a judged document whose repeat is waiting, which the page's queue leaves out.
(() => {
  "use strict";
  const config = JSON.parse(document.getElementById("judging-config").textContent);
  const root = document.getElementById("judging");
  const form = document.getElementById("judge-form");
  const slot = document.getElementById("document-slot");
  const complete = document.getElementById("complete");
  const note = document.getElementById("note");
  const reason = document.getElementById("cannot-judge-reason");
  const status = document.getElementById("save-status");
  const keymap = document.getElementById("keymap");
  const saveError = document.getElementById("save-error");
  const keyHint = document.getElementById("key-hint");
  const gradeBar = document.querySelector(".judge-bar .grades");
  const gradeButtons = [...gradeBar.querySelectorAll("button[data-grade]")];
  // The topic and guidelines are shown in full on an assessor's first visit to a topic (in this browser), then
  // folded to their one-line summary, so the document starts near the top; t opens and closes them.
  const topicDetails = document.getElementById("topic-details");
  const seenKey = `workbench:topic-seen:${topicDetails.dataset.topic}`;
  if (window.localStorage.getItem(seenKey)) topicDetails.open = false;
  window.localStorage.setItem(seenKey, "1");
  // Phones get the judged list folded, so the document takes the whole width.
  if (window.matchMedia("(max-width: 700px)").matches) {
    document.getElementById("judged-details").open = false;
    document.querySelector("details.topic").open = false; // the title stays in the bar; details a tap away
  }
  const csrf = form.querySelector("input[name=csrfmiddlewaretoken]").value;
  const queue = config.queue;
  const outboxKey = `judging-outbox-${config.topic}`;
  const GUARD_MS = 250; // a grade key this soon after a document appears is a double press, not a judgment
  const PREFETCH = 3;
  const ORDER_WAIT_MS = 1500;
  const orderWaiters = new Map(); // entry key -> resolve(), called when that entry's save is answered

  const urlFor = (template, id) => template.replace(/\/0\/$/, `/${id}/`);
  const cache = new Map(); // document id -> Promise of its panel's HTML
  let outbox = JSON.parse(localStorage.getItem(outboxKey) || "[]");
  // Notes typed on a document not judged yet: kept (across reloads) until it is judged or the note is cleared.
  const draftsKey = `judging-drafts-${config.topic}`;
  const drafts = JSON.parse(localStorage.getItem(draftsKey) || "{}");
  const persistDrafts = () => localStorage.setItem(draftsKey, JSON.stringify(drafts));
  let sending = false;
  let retryTimer = null;
  // Undo reaches back past a reload: the server sends each judged document's state before its last change.
  const undo = (config.undo || []).flatMap((step) => {
    const index = queue.findIndex((e) => e.key === step.key);
    return index === -1 ? [] : [{ index, before: { ...queue[index], ...step.before } }];
  });
  let position = config.start;
  let shownAt = performance.now();
  let visibleMs = 0; // time on the current document while the page was visible
  let visibleSince = document.visibilityState === "visible" ? performance.now() : null;

  function panel(id) {
    if (!cache.has(id)) {
      const request = fetch(urlFor(config.documentUrl, id), { credentials: "same-origin" }).then((response) => {
        if (!response.ok) throw new Error(`document ${id}: HTTP ${response.status}`);
        return response.text();
      });
      request.catch(() => cache.delete(id)); // fetched again next time
      cache.set(id, request);
    }
    return cache.get(id);
  }

  // --- time actually spent looking at the document -------------------------------------------------------------
  function secondsOnDocument() {
    const running = visibleSince === null ? 0 : performance.now() - visibleSince;
    return (visibleMs + running) / 1000;
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") visibleSince = performance.now();
    else if (visibleSince !== null) { visibleMs += performance.now() - visibleSince; visibleSince = null; }
  });

  // --- showing a document --------------------------------------------------------------------------------------
  function judgedCount() { return queue.filter((e) => e.judged).length; }

  function progressFigures() {
    return config.checking ? config.progress : { judged: judgedCount(), total: queue.length };
  }

  function renderProgress() {
    const { judged, total } = progressFigures();
    const progress = document.getElementById("progress");
    progress.max = Math.max(total, 1);
    progress.value = judged;
    progress.textContent = `${Math.round((100 * judged) / Math.max(total, 1))}%`;
    document.getElementById("judged-count").textContent = `${judged} / ${total} judged`;
    const unlisted = Math.max(judged - judgedCount(), 0); // judged, counted by the server, not in this queue
    document.getElementById("position").textContent = position >= queue.length
      ? `All ${total} judged`
      : `Document ${Math.min(position + 1 + unlisted, total)} of ${total}`;
    // With checks on, the list's length would contradict the figures above (a document shown twice is listed twice).
    document.getElementById("judged-list-count").textContent = config.checking ? "" : `(${judgedCount()})`;
    const list = document.getElementById("judged-list");
    list.replaceChildren(...queue.flatMap((entry, index) => {
      if (!entry.judged) return [];
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = `?doc=${entry.id}`;
      link.dataset.index = index;
      link.textContent = entry.docno;
      item.append(link, ` · ${entry.grade === null ? "can't judge" : `${entry.grade} ${config.labels[entry.grade] || ""}`}`);
      if (rejectedSave(entry.key)) item.append(Object.assign(document.createElement("strong"), { className: "failed", textContent: " · not saved" }));
      if (index === position) item.className = "current";
      return [item];
    }));
  }

  function renderChoice(entry) {
    for (const button of gradeButtons) {
      button.setAttribute("aria-pressed", String(entry.judged && String(entry.grade) === button.dataset.grade));
    }
    note.value = drafts[entry.key] ?? entry.note ?? "";
    note.classList.toggle("draft", entry.key in drafts);
    reason.value = entry.reason || "";
  }

  // Leaving a document: a changed note on a judged document is saved with its judgment; on one not judged yet it
  // stays a draft. A note is never dropped without the assessor clearing it.
  function keepNote() {
    const entry = queue[position];
    if (!entry || note.value === (entry.note || "")) { if (entry) delete drafts[entry.key]; persistDrafts(); return; }
    if (entry.judged) {
      entry.note = note.value;
      delete drafts[entry.key];
      enqueue(saveOf(entry, entry.seconds));
    } else {
      drafts[entry.key] = note.value;
      setStatus(`Note on ${entry.docno} kept as a draft until you judge it`, "muted");
    }
    persistDrafts();
  }
  note.addEventListener("input", () => {
    const entry = queue[position];
    if (!entry) return;
    drafts[entry.key] = note.value;
    persistDrafts();
  });

  async function show(index) {
    if (index < 0 || index >= queue.length) return;
    if (index !== position) keepNote();
    position = index;
    const entry = queue[index];
    const started = performance.now();
    complete.hidden = true;
    form.hidden = false;
    gradeBar.hidden = false;
    renderChoice(entry);
    renderProgress();
    renderSaveError();
    history.replaceState(null, "", `?doc=${entry.id}`);
    visibleMs = 0;
    visibleSince = document.visibilityState === "visible" ? performance.now() : null;
    try {
      const html = await panel(entry.id);
      if (position !== index) return; // the assessor moved on while it loaded
      slot.innerHTML = html; // server-rendered and escaped
    } catch (error) {
      slot.innerHTML = "";
      slot.append(Object.assign(document.createElement("p"), { className: "card error", textContent: `Could not load the document (${error.message}); press j then k to retry.` }));
    }
    shownAt = performance.now();
    root.dataset.lastShowMs = String(Math.round(shownAt - started));
    root.dataset.shown = String(entry.id);
    document.getElementById("document")?.focus({ preventScroll: true });
    for (let k = 1; k <= PREFETCH && index + k < queue.length; k += 1) panel(queue[index + k].id).catch(() => {});
  }

  function showComplete() {
    keepNote();
    position = queue.length;
    form.hidden = true;
    gradeBar.hidden = true;
    slot.replaceChildren();
    complete.hidden = false;
    renderProgress();
    history.replaceState(null, "", "?");
    complete.focus();
  }

  function nextUnjudged(after) {
    for (let k = 1; k <= queue.length; k += 1) {
      const index = (after + k) % queue.length;
      if (!queue[index].judged) return index;
    }
    return -1;
  }

  // --- saving --------------------------------------------------------------------------------------------------
  // Each document's latest save waits in the outbox. A network or server error (5xx, 429) retries that save with
  // its own backoff while the others go on; a refusal (4xx) is permanent: it stays on its document, marked, until
  // the assessor judges it again. One save can never hold back the others.
  function persist() { localStorage.setItem(outboxKey, JSON.stringify(outbox)); }

  function setStatus(text, kind) {
    status.textContent = text;
    status.className = kind || "muted";
  }

  function rejectedSave(key) { return outbox.find((pending) => pending.key === key && pending.rejected); }

  function renderSaveError() {
    const entry = queue[position];
    const refused = entry && rejectedSave(entry.key);
    saveError.hidden = !refused;
    saveError.textContent = refused ? `Not saved: ${refused.rejected}. Correct it and judge this document again.` : "";
  }

  function renderOverallStatus() {
    const refused = outbox.filter((pending) => pending.rejected).length;
    const waiting = outbox.length - refused;
    const retrying = outbox.find((pending) => !pending.rejected && !pending.inFlight && pending.attempts > 0);
    if (retrying) {
      const seconds = Math.max(0, Math.round((retrying.retryAt - Date.now()) / 1000));
      setStatus(`Not saved yet (${retrying.error}); retrying in ${seconds} s${refused ? `; ${refused} not saved (marked in the list)` : ""}`, "failed");
    } else if (refused) setStatus(`${refused} judgment${refused > 1 ? "s" : ""} not saved (marked in the list)${waiting ? "; saving the others…" : ""}`, "failed");
    else if (waiting) setStatus("Saving…", "saving");
    else setStatus("All saved", "muted");
  }

  function enqueue(save) {
    // One pending save per entry is enough: the latest state is what must reach the server.
    outbox = outbox.filter((pending) => pending.key !== save.key || pending.inFlight);
    outbox.push({ ...save, attempts: 0, retryAt: 0 });
    persist();
    renderSaveError();
    flush();
  }

  function scheduleRetry() {
    const waiting = outbox.filter((pending) => !pending.inFlight && !pending.rejected);
    if (!waiting.length || retryTimer) return;
    const wait = Math.max(0, Math.min(...waiting.map((pending) => pending.retryAt)) - Date.now());
    retryTimer = setTimeout(() => { retryTimer = null; flush(); }, wait);
  }

  function nextToSend() {
    const now = Date.now();
    return outbox.find((pending) => !pending.inFlight && !pending.rejected && pending.retryAt <= now);
  }

  async function flush() {
    if (sending) return;
    const save = nextToSend();
    if (!save) { renderOverallStatus(); scheduleRetry(); return; }
    sending = true;
    save.inFlight = true;
    setStatus("Saving…", "saving");
    try {
      const response = await fetch(urlFor(config.saveUrl, save.id), {
        method: "POST",
        credentials: "same-origin",
        headers: { "X-CSRFToken": csrf, Accept: "application/json" },
        body: new URLSearchParams(save.fields),
      });
      if (response.status >= 500 || response.status === 429) throw new Error(`the server answered ${response.status}`);
      save.inFlight = false;
      if (response.ok) {
        outbox = outbox.filter((pending) => pending !== save);
        const answer = config.adaptive || config.verifying || config.pausing || config.checking ? await response.json().catch(() => ({})) : {};
        if (answer.progress) config.progress = answer.progress;
        if (answer.upcoming) applyUpcoming(answer.upcoming);
        if (answer.paused) showPaused(answer.paused);
        if (answer.machine !== undefined && save.fields.action !== "delete") showMachine(save, answer.machine);
      } else {
        const answer = await response.json().catch(() => ({}));
        save.rejected = answer.error?.message || `the server refused it (${response.status})`;
      }
    } catch (error) {
      save.inFlight = false;
      save.attempts += 1;
      save.retryAt = Date.now() + Math.min(1000 * 2 ** (save.attempts - 1), 10000);
      save.error = error.message;
    }
    persist();
    sending = false;
    settleOrder(save.key); // answered or failed: a judgment waiting for its next document waits no longer
    renderSaveError();
    renderProgress();
    flush();
  }

  // --- a paused assessor ---------------------------------------------------------------------------------------
  // The judgment just saved is kept; the page says, once and kindly, why the next ones will be refused.
  function showPaused(message) {
    if (document.getElementById("paused")) return;
    const note = Object.assign(document.createElement("p"), { id: "paused", className: "card warning", textContent: message });
    note.setAttribute("role", "alert");
    document.getElementById("judging").before(note);
  }

  // --- verification -------------------------------------------------------------------------------------------
  // Blind verification: once the person's judgment is saved, the machine's grade for that document is shown, with
  // its reply folded, so that the person learns where it errs without having been led by it.
  function showMachine(save, machine) {
    const note = document.getElementById("machine-note");
    if (!note) return;
    const entry = queue.find((item) => item.key === save.key);
    note.replaceChildren();
    if (!machine) { note.hidden = true; return; }
    const yours = save.fields.grade === "" ? "can't judge" : save.fields.grade;
    const agree = String(machine.grade) === String(save.fields.grade);
    note.append(`${entry ? entry.docno : "That document"}: you ${yours}, ${machine.judge} (machine) ${machine.grade} ${machine.label}`);
    note.append(Object.assign(document.createElement("strong"), { textContent: agree ? " · agreed" : " · differs" }));
    if (machine.explanation) {
      const details = document.createElement("details");
      details.append(Object.assign(document.createElement("summary"), { textContent: "Its reply" }));
      details.append(Object.assign(document.createElement("pre"), { className: "reply", textContent: machine.explanation }));
      note.append(details);
    }
    note.hidden = false;
  }

  // --- what comes next ----------------------------------------------------------------------------------------
  // The entries not judged yet move into the server's order (an adaptive order re-decides after each judgment;
  // checks come due), and entries new to the page join them; judged ones keep their places (undo keeps working).
  // The slots are filled from just after the current document onwards, so the next document is the server's choice.
  function applyUpcoming(upcoming) {
    const known = new Set(queue.map((entry) => entry.key));
    const wasComplete = position >= queue.length;
    const fresh = upcoming.filter((item) => !known.has(item.key));
    for (const item of fresh) queue.push({ ...item, judged: false, grade: null, note: "", reason: "", seconds: 0 });
    if (wasComplete && fresh.length) { show(position); return; }
    const rank = new Map(upcoming.map((item, index) => [item.key, index]));
    const slots = [];
    for (let k = 1; k < queue.length; k += 1) {
      const index = (position + k) % queue.length;
      if (!queue[index].judged) slots.push(index);
    }
    const entries = slots.map((index) => queue[index]);
    const sorted = entries
      .map((entry, order) => ({ entry, order }))
      .sort((a, b) => (rank.get(a.entry.key) ?? Infinity) - (rank.get(b.entry.key) ?? Infinity) || a.order - b.order)
      .map((item) => item.entry);
    slots.forEach((index, k) => { queue[index] = sorted[k]; });
    renderProgress();
  }

  function settleOrder(key) {
    const resolve = orderWaiters.get(key);
    if (resolve) { orderWaiters.delete(key); resolve(); }
  }

  function orderAfterSave(key) {
    return new Promise((resolve) => {
      orderWaiters.set(key, resolve);
      setTimeout(() => settleOrder(key), ORDER_WAIT_MS);
    });
  }

  function saveOf(entry, seconds) { return { key: entry.key, id: entry.id, fields: fieldsOf(entry, seconds) }; }

  function fieldsOf(entry, seconds) {
    if (!entry.judged) return { action: "delete", entry: entry.key };
    return {
      entry: entry.key,
      grade: entry.grade === null ? "" : String(entry.grade),
      note: entry.note || "",
      cannot_judge_reason: entry.grade === null ? entry.reason : "",
      seconds_total: seconds.toFixed(2),
    };
  }

  // --- judging -------------------------------------------------------------------------------------------------
  let choosing = false; // an adaptive order's next document is on its way: grade keys wait for it
  async function judge(grade, cannotJudgeReason = "") {
    if (position >= queue.length || choosing) return;
    const entry = queue[position];
    undo.push({ index: position, before: { ...entry } });
    const seconds = entry.seconds + secondsOnDocument();
    Object.assign(entry, { judged: true, grade, note: note.value, reason: cannotJudgeReason, seconds });
    delete drafts[entry.key];
    persistDrafts();
    if (config.adaptive) {
      choosing = true;
      root.dataset.choosing = "true";
      const answered = orderAfterSave(entry.key);
      enqueue(saveOf(entry, seconds));
      await answered;
      choosing = false;
      delete root.dataset.choosing;
    } else {
      enqueue(saveOf(entry, seconds));
    }
    const next = nextUnjudged(position);
    if (next === -1) showComplete(); else show(next);
  }

  function undoLast() {
    const last = undo.pop();
    if (!last) { setStatus("Nothing to undo", "muted"); return; }
    const entry = queue[last.index];
    Object.assign(entry, last.before);
    enqueue(saveOf(entry, entry.seconds));
    show(last.index);
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault(); // mouse clicks on the grade buttons take the same path as keys
    const button = event.submitter;
    if (!button) return;
    if (button.id === "cannot-judge") {
      if (!reason.value) { reason.focus(); setStatus("Choose a reason first", "failed"); return; }
      judge(null, reason.value);
    } else {
      judge(Number(button.dataset.grade));
    }
  });

  reason.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && reason.value) { event.preventDefault(); judge(null, reason.value); }
  });

  document.getElementById("judged-list").addEventListener("click", (event) => {
    const link = event.target.closest("a[data-index]");
    if (!link) return;
    event.preventDefault();
    show(Number(link.dataset.index));
  });

  document.getElementById("show-keys").addEventListener("click", () => keymap.showModal());
  document.getElementById("previous").addEventListener("click", () => { if (position > 0) show(position - 1); });
  document.getElementById("next").addEventListener("click", () => { if (position < queue.length - 1) show(position + 1); });
  document.getElementById("undo").addEventListener("click", () => undoLast());

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest("textarea, input, select")) {
      if (event.key === "Escape") { event.target.blur(); document.getElementById("document")?.focus(); }
      return;
    }
    if (keymap.open) { if (event.key === "?") { keymap.close(); event.preventDefault(); } return; }
    const key = event.key;
    if (key in config.keys) {
      event.preventDefault();
      if (form.hidden) return;
      if (event.repeat || performance.now() - shownAt < GUARD_MS) {
        keyHint.textContent = `Key ${key} ignored: pressed within ${GUARD_MS} ms of this document appearing (a double press?). Press it again to judge.`;
        return;
      }
      keyHint.textContent = "";
      judge(config.keys[key]);
    } else if (key === "j" || key === "ArrowRight") {
      event.preventDefault();
      if (position < queue.length - 1) show(position + 1);
    } else if (key === "k" || key === "ArrowLeft") {
      event.preventDefault();
      if (position > 0) show(position - 1);
    } else if (key === "u") {
      event.preventDefault();
      undoLast();
    } else if (key === "e") {
      event.preventDefault();
      note.focus();
    } else if (key === "x") {
      event.preventDefault();
      reason.focus();
    } else if (key === "t") {
      event.preventDefault();
      topicDetails.open = !topicDetails.open;
    } else if (key === "?") {
      event.preventDefault();
      keymap.showModal();
    }
  });

  window.addEventListener("online", () => {
    clearTimeout(retryTimer);
    retryTimer = null;
    for (const pending of outbox) pending.retryAt = 0;
    flush();
  });

  // Saves left from before a reload: show them as made, and send them.
  for (const pending of outbox) {
    delete pending.inFlight;
    pending.attempts = pending.attempts || 0;
    pending.retryAt = 0;
    pending.key = pending.key || queue.find((e) => e.id === pending.id)?.key; // a save kept before entries had keys
    const entry = queue.find((e) => e.key === pending.key);
    if (!entry) continue;
    if (pending.fields.action === "delete") Object.assign(entry, { judged: false, grade: null });
    else Object.assign(entry, { judged: true, grade: pending.fields.grade === "" ? null : Number(pending.fields.grade), note: pending.fields.note, reason: pending.fields.cannot_judge_reason });
  }
  persist();
  if (config.start < queue.length && queue[config.start].judged && outbox.some((p) => p.key === queue[config.start].key)) {
    const next = nextUnjudged(config.start);
    if (next === -1) showComplete(); else show(next);
  } else if (config.start < queue.length) {
    renderChoice(queue[config.start]);
    renderProgress();
    cache.set(queue[config.start].id, Promise.resolve(slot.innerHTML));
    root.dataset.shown = String(queue[config.start].id);
    document.getElementById("document")?.focus({ preventScroll: true });
    for (let k = 1; k <= PREFETCH && config.start + k < queue.length; k += 1) panel(queue[config.start + k].id).catch(() => {});
  } else {
    showComplete();
  }
  flush();
})();
