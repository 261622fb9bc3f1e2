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

  // A timed exam: the time left counts down every second from the deadline the server gave (an ISO
  // instant in data-deadline), and the end time is shown in the learner's own time zone, in the
  // page's language. Without JavaScript the server's minutes left and end time in UTC stay.
  function clockText(seconds) {
    var hours = Math.floor(seconds / 3600), minutes = Math.floor((seconds % 3600) / 60);
    var rest = String(seconds % 60).padStart(2, "0");
    return hours ? hours + ":" + String(minutes).padStart(2, "0") + ":" + rest : minutes + ":" + rest;
  }

  function localTime(instant) {
    var options = { hour: "numeric", minute: "2-digit", timeZoneName: "short" };
    try {
      return new Intl.DateTimeFormat(document.documentElement.lang || undefined, options).format(instant);
    } catch (error) {
      return new Intl.DateTimeFormat(undefined, options).format(instant);
    }
  }

  var nextTick = null;
  function showTimeLeft() {
    clearTimeout(nextTick);
    var wait = 0;
    document.querySelectorAll("[data-deadline]").forEach(function (box) {
      var deadline = Date.parse(box.dataset.deadline);
      if (isNaN(deadline)) return;
      var left = Math.max(0, deadline - Date.now());
      var timer = box.querySelector("[role=timer][data-template]");
      if (timer) timer.textContent = timer.dataset.template.replace("{time}", clockText(Math.ceil(left / 1000)));
      var end = box.querySelector("time[data-template]");
      if (end && !end.dataset.local) {
        end.textContent = end.dataset.template.replace("{time}", localTime(new Date(deadline)));
        end.dataset.local = "1";
      }
      // The next change of the shown second, so every tick lands on one (and a late tick catches up).
      if (left > 0) wait = Math.min(wait || 1000, left % 1000 || 1000);
    });
    if (wait) nextTick = setTimeout(showTimeLeft, wait);
  }

  function enhance() {
    setupOrdering(document.body);
    showTimeLeft();
  }

  document.addEventListener("DOMContentLoaded", enhance);
  document.addEventListener("htmx:afterSwap", enhance);
  document.addEventListener("htmx:oobAfterSwap", enhance); // an answer's reply brings a new progress line
})();
