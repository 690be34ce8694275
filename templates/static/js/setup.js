// The collection form: only the grades of the chosen scale are shown, and labels the admin has not typed follow
// the scale's default wording (binary: "Not relevant" / "Relevant"; graded: "Not relevant" ... "Perfect").
(() => {
  "use strict";
  const scale = document.getElementById("id_max_grade");
  const defaults = JSON.parse(document.getElementById("scale-defaults").textContent);
  if (!scale) return;
  const typed = new Set();
  for (const input of document.querySelectorAll("[data-grade-row] input")) {
    input.addEventListener("input", () => typed.add(input.name));
  }
  function apply() {
    const top = Number(scale.value);
    for (const row of document.querySelectorAll("[data-grade-row]")) {
      const value = Number(row.dataset.gradeRow);
      row.hidden = value > top;
      const [label, description] = (defaults[top] || [])[value] || ["", ""];
      const labelInput = row.querySelector(`[name=grade_${value}_label]`);
      const descriptionInput = row.querySelector(`[name=grade_${value}_description]`);
      if (labelInput && !typed.has(labelInput.name)) labelInput.value = label;
      if (descriptionInput && !typed.has(descriptionInput.name)) descriptionInput.value = description;
    }
  }
  scale.addEventListener("change", apply);
  // On load, keep what the server filled in (an edit shows the stored labels) and only hide the unused rows.
  const top = Number(scale.value);
  for (const row of document.querySelectorAll("[data-grade-row]")) row.hidden = Number(row.dataset.gradeRow) > top;
})();
