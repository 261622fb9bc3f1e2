// Quiz behaviour, kept out of the HTML for the Content-Security-Policy. Everything here is an
// enhancement: the forms post normally without JavaScript.
(function () {
  "use strict";

  // A refused answer (400 bad input, 409 already answered) comes back as the question's card with
  // the reason in it: show it instead of dropping it as htmx does with error statuses.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var status = event.detail.xhr.status;
    if (!event.detail.elt.closest || !event.detail.elt.closest(".quiz")) return;
    if (status === 400 || status === 409) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    } else if (status >= 400) {
      var box = document.getElementById("quiz-status");
      var quiz = event.detail.elt.closest(".quiz");
      if (box && quiz) {
        box.textContent = quiz.dataset.sendError;
        box.hidden = false;
      }
    }
  });

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
