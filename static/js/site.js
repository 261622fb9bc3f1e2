// Site behaviour kept out of the HTML so the Content-Security-Policy can forbid inline scripts.
(function () {
  "use strict";

  function renderMath(root) {
    if (!window.renderMathInElement) return;
    window.renderMathInElement(root, {
      delimiters: [
        { left: "\\[", right: "\\]", display: true },
        { left: "\\(", right: "\\)", display: false },
      ],
      throwOnError: false,
    });
  }

  // Narration: play the generated audio file; without one, the browser speaks the guide text.
  function setupSpeechFallback(root) {
    root.querySelectorAll("[data-speech-fallback]").forEach(function (button) {
      if (button.dataset.ready) return;
      button.dataset.ready = "1";
      if (!("speechSynthesis" in window)) { button.hidden = true; return; }
      button.addEventListener("click", function () {
        var synth = window.speechSynthesis;
        if (synth.speaking) { synth.cancel(); return; }
        var source = document.querySelector(button.dataset.speechFallback);
        var utterance = new SpeechSynthesisUtterance(source ? source.innerText : "");
        utterance.lang = document.documentElement.lang;
        synth.speak(utterance);
      });
    });
  }

  function setupCopyButtons(root) {
    root.querySelectorAll("[data-copy]").forEach(function (button) {
      if (button.dataset.ready) return;
      button.dataset.ready = "1";
      button.addEventListener("click", function () {
        navigator.clipboard.writeText(button.dataset.copy).then(function () {
          button.textContent = button.dataset.copied || "✓";
        });
      });
    });
  }

  // Code and wide formulas scroll sideways instead of wrapping (wrapped Python misleads); a
  // scrolling box must be reachable from the keyboard, so it joins the tab order.
  function makeScrollersFocusable(root) {
    root.querySelectorAll("pre, div.arithmatex").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth && !box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
    });
  }

  function enhance(root) {
    renderMath(root);
    makeScrollersFocusable(root);
    setupSpeechFallback(root);
    setupCopyButtons(root);
  }

  // Targets marked data-swap-errors receive a 400 holding the form and its error messages: show
  // it, where htmx would drop an error response. (In htmx 2 detail.elt is the swap target.)
  document.addEventListener("htmx:beforeSwap", function (event) {
    var elt = event.detail.elt;
    if (event.detail.xhr.status === 400 && elt.closest && elt.closest("[data-swap-errors]")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // A form on a page cached for every visitor carries no CSRF token (a token is the visitor's
  // own): data-csrf-from names where to fetch it, once the form is sent.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var field = form.querySelector("input[name=csrfmiddlewaretoken]");
    if (!form.dataset.csrfFrom || !field || field.value) return;
    event.preventDefault();
    fetch(form.dataset.csrfFrom, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (data) { field.value = data.token; form.submit(); });
  });

  document.addEventListener("DOMContentLoaded", function () { enhance(document.body); });
  document.addEventListener("htmx:afterSwap", function (event) { enhance(event.target); });
  window.courseSite = { enhance: enhance };
})();
