// Forms whose fields depend on a chosen kind (a search engine, a machine judge's provider, an authentication): each
// such field names its control (data-kind-control) and the kinds it applies to (data-kinds); only the chosen
// kind's are shown. Without this script every field shows, and the server ignores those that do not apply.
(() => {
  "use strict";
  const fields = Array.from(document.querySelectorAll("[data-kinds]"));
  if (!fields.length) return;
  const chosen = (name) => {
    const control = document.querySelector(`[name="${name}"]:checked`) || document.querySelector(`select[name="${name}"]`);
    return control ? control.value : "";
  };
  const update = () => {
    for (const field of fields) {
      let box = field; // the field's own block: the form's child that holds it, with its label and help
      while (box.parentElement && box.parentElement.tagName !== "FORM") box = box.parentElement;
      box.hidden = !field.dataset.kinds.split(" ").includes(chosen(field.dataset.kindControl));
    }
  };
  const controls = new Set(fields.map((field) => field.dataset.kindControl));
  document.addEventListener("change", (event) => { if (controls.has(event.target.name)) update(); });
  update();
})();
