"use strict";
(() => {
  const table = document.getElementById("sessions");
  const body = table.tBodies[0];
  const rows = Array.from(body.rows);
  const filter = document.getElementById("filter");
  const harness = document.getElementById("harness");
  const shown = document.getElementById("shown");
  const texts = rows.map((row) =>
    [row.dataset.title, row.dataset.cwd, row.dataset.id, row.dataset.harness].join(" ").toLowerCase(),
  );

  const apply = () => {
    const terms = filter.value.toLowerCase().split(/\s+/).filter((t) => t !== "");
    const wanted = harness.value;
    let count = 0;
    rows.forEach((row, i) => {
      const match = (wanted === "" || row.dataset.harness === wanted) &&
        terms.every((t) => texts[i].includes(t));
      row.hidden = !match;
      if (match) count += 1;
    });
    shown.textContent = count === rows.length ? "" : `${count} shown`;
  };

  const sortBy = (th) => {
    const key = th.dataset.key;
    const numeric = th.dataset.numeric === "1";
    const descending = th.getAttribute("aria-sort") !== "descending";
    table.querySelectorAll("th").forEach((h) => h.removeAttribute("aria-sort"));
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
    const value = (row) => (numeric ? Number(row.dataset[key]) : row.dataset[key].toLowerCase());
    const sorted = rows.slice().sort((a, b) => {
      const x = value(a);
      const y = value(b);
      const order = x < y ? -1 : x > y ? 1 : 0;
      return descending ? -order : order;
    });
    sorted.forEach((row) => body.appendChild(row));
  };

  table.querySelectorAll("th button").forEach((button) => {
    button.addEventListener("click", () => sortBy(button.parentElement));
  });
  filter.addEventListener("input", apply);
  harness.addEventListener("change", apply);
  document.getElementById("toolbar").hidden = false;
})();
