"use strict";
(() => {
  const toolbar = document.getElementById("toolbar");
  const input = document.getElementById("search");
  const count = document.getElementById("search-count");
  const messages = Array.from(document.querySelectorAll("article.message"));
  let texts = null;
  let timer = 0;

  const filter = () => {
    const terms = input.value.toLowerCase().split(/\s+/).filter((t) => t !== "");
    if (texts === null) {
      texts = messages.map((m) => m.textContent.toLowerCase());
    }
    let shown = 0;
    messages.forEach((message, i) => {
      const match = terms.every((t) => texts[i].includes(t));
      message.hidden = !match;
      if (match) shown += 1;
    });
    count.textContent = terms.length ? `${shown} of ${messages.length} messages` : "";
  };

  const setAll = (open) => {
    document.querySelectorAll("main details").forEach((d) => {
      d.open = open;
    });
  };

  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(filter, 120);
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      clearTimeout(timer);
      filter();
    }
  });
  document.getElementById("expand-all").addEventListener("click", () => setAll(true));
  document.getElementById("collapse-all").addEventListener("click", () => setAll(false));
  toolbar.hidden = false;

  // Printing shows everything: open each closed block for the print, then close it again.
  let reopened = [];
  window.addEventListener("beforeprint", () => {
    reopened = Array.from(document.querySelectorAll("details:not([open])"));
    reopened.forEach((d) => {
      d.open = true;
    });
  });
  window.addEventListener("afterprint", () => {
    reopened.forEach((d) => {
      d.open = false;
    });
    reopened = [];
  });
})();
