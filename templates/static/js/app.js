// Behaviour every page may use, declared in the markup (the Content-Security-Policy allows no inline handler):
//   <select data-autosubmit>        submits its form when changed (the form's button stays for keyboards and no-JS)
//   <details data-remember="KEY">   opens or closes as the reader last left it, remembered per KEY in this browser
//   <div data-scroll-hint>          a table wider than its box says how many columns lie to the right
//   <button data-print>             prints the page (a report, laid out for paper by the print style sheet)
//   <form data-confirm="QUESTION">  asks before it is sent (a withdrawal that cannot be undone)
//   <form data-upload>              shows a file's upload as it goes (a bar, the megabytes sent), then that the
//                                   server is checking it; the answer replaces the page as a plain submit's would
(() => {
  "use strict";
  document.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-confirm]");
    if (form && !window.confirm(form.dataset.confirm)) event.preventDefault();
  });
  const megabytes = (bytes) => (bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0);
  document.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-upload]");
    if (!form || event.defaultPrevented) return;
    event.preventDefault();
    const bar = Object.assign(document.createElement("progress"), { max: 100, value: 0 });
    const words = document.createElement("span");
    let status = form.querySelector(".upload-status");
    if (!status) {
      status = Object.assign(document.createElement("p"), { className: "upload-status" });
      status.setAttribute("role", "status");
      form.append(status);
    }
    status.replaceChildren(bar, words);
    const buttons = [...form.querySelectorAll("button")];
    const data = new FormData(form, event.submitter);
    buttons.forEach((button) => { button.disabled = true; });
    const request = new XMLHttpRequest();
    request.open("POST", form.action || window.location.href);
    request.upload.addEventListener("progress", (progress) => {
      if (!progress.lengthComputable) return;
      bar.value = (100 * progress.loaded) / progress.total;
      words.textContent = `Uploading: ${megabytes(progress.loaded)} of ${megabytes(progress.total)} MB`;
    });
    request.upload.addEventListener("load", () => {
      bar.removeAttribute("value"); // indeterminate: the server reads and checks the file now
      words.textContent = "Uploaded; the server is checking it…";
    });
    request.addEventListener("load", () => {
      // The page the server answered (after its redirect), with its messages, in place of this one.
      window.history.replaceState(null, "", request.responseURL);
      document.open();
      document.write(request.responseText);
      document.close();
      window.scrollTo(0, 0); // a new page opens at its top, where its message is
    });
    request.addEventListener("error", () => {
      bar.remove();
      words.textContent = "The upload stopped (the connection dropped): nothing was received. Submit it again.";
      buttons.forEach((button) => { button.disabled = false; });
    });
    request.send(data);
  });
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-print]")) window.print();
  });
  document.addEventListener("change", (event) => {
    const field = event.target.closest("[data-autosubmit]");
    if (field && field.form) field.form.requestSubmit();
  });
  for (const details of document.querySelectorAll("details[data-remember]")) {
    const key = `workbench:open:${details.dataset.remember}`;
    const stored = window.localStorage.getItem(key);
    if (stored !== null) details.open = stored === "1";
    details.addEventListener("toggle", () => window.localStorage.setItem(key, details.open ? "1" : "0"));
  }
  function hintScroll(box) {
    let hint = box.nextElementSibling?.classList.contains("scroll-hint") ? box.nextElementSibling : null;
    const table = box.querySelector("table");
    const hidden = table ? [...table.querySelectorAll("thead th")].filter(
      (th) => th.getBoundingClientRect().right > box.getBoundingClientRect().right + 1).length : 0;
    if (!hidden) { hint?.remove(); return; }
    if (!hint) {
      hint = Object.assign(document.createElement("p"), { className: "scroll-hint" });
      box.after(hint);
    }
    hint.textContent = `${hidden} more column${hidden === 1 ? "" : "s"} → scroll the table sideways`;
  }
  for (const box of document.querySelectorAll("[data-scroll-hint]")) {
    hintScroll(box);
    box.addEventListener("scroll", () => hintScroll(box), { passive: true });
    window.addEventListener("resize", () => hintScroll(box));
  }
})();
