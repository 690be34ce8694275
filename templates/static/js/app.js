// Behaviour every page may use, declared in the markup (the Content-Security-Policy allows no inline handler):
//   <select data-autosubmit>        submits its form when changed (the form's button stays for keyboards and no-JS)
//   <details data-remember="KEY">   opens or closes as the reader last left it, remembered per KEY in this browser
(() => {
  "use strict";
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
})();
