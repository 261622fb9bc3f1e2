// Quiz behaviour, kept out of the HTML for the Content-Security-Policy. Everything here is an
// enhancement: the forms post normally without JavaScript.
(function () {
  "use strict";

  // Ordering: choosing a place that another step holds swaps the two, so every place stays used once.
  function setupOrdering(root) {
    root.querySelectorAll("select[data-rank]").forEach(function (select) {
      if (select.dataset.ready) return;
      select.dataset.ready = "1";
      select.dataset.previous = select.value;
      select.addEventListener("change", function () {
        var list = select.closest(".ordering");
        list.querySelectorAll("select[data-rank]").forEach(function (other) {
          if (other !== select && other.value === select.value) {
            other.value = select.dataset.previous;
            other.dataset.previous = other.value;
          }
        });
        select.dataset.previous = select.value;
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () { setupOrdering(document.body); });
  document.addEventListener("htmx:afterSwap", function (event) { setupOrdering(document.body); });
})();
