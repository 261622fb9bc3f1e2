// Site behaviour kept out of the HTML so the Content-Security-Policy can forbid inline scripts.
(function () {
  "use strict";

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

  // Chapter links (the narration's section list, the table of contents) play the full narration
  // from their section. Without JavaScript the link opens the audio file at that time (#t=).
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("[data-chapter-start]");
    var audio = document.getElementById("narration-full");
    if (!link || !audio) return;
    event.preventDefault();
    audio.currentTime = parseFloat(link.dataset.chapterStart) || 0;
    audio.play().catch(function () {});
  });

  // One voice at a time: starting the summary pauses the full narration and the other way round.
  document.addEventListener("play", function (event) {
    if (!event.target.dataset || !event.target.dataset.narration) return;
    document.querySelectorAll("audio[data-narration]").forEach(function (other) {
      if (other !== event.target) other.pause();
    });
  }, true);

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

  // Code blocks of a guide get "Copy" and, for Python, "Download as .py" under them (the file is made in the
  // page: a Blob link, nothing fetched). Without JavaScript the code is there to read and select.
  // A block is Python when Pygments coloured it: the guides' fences are Python or plain text
  // (diagrams), and plain text gets no colour spans. Labels come, translated, from data- attributes.
  function codeOf(block) {
    var code = block.querySelector("pre code") || block.querySelector("pre");
    return code ? code.textContent.replace(/\n$/, "") : "";
  }

  function copyText(text, button) {
    var done = function () { button.textContent = button.dataset.copied; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () {});
      return;
    }
    var area = document.createElement("textarea"); // http pages have no clipboard API
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    try { if (document.execCommand("copy")) done(); } catch (error) { /* the text stays selectable */ }
    area.remove();
  }

  function setupCodeTools(root) {
    var body = root.closest ? root.closest("[data-code-tools]") || root.querySelector("[data-code-tools]") : null;
    if (!body) return;
    var labels = body.dataset;
    var python = 0;
    body.querySelectorAll(".codehilite").forEach(function (block) {
      if (block.querySelector(".code-tools")) return;
      var text = codeOf(block);
      if (!text) return;
      var tools = document.createElement("div");
      tools.className = "code-tools";
      var copy = document.createElement("button");
      copy.type = "button";
      copy.className = "code-tool";
      copy.textContent = labels.copyLabel;
      copy.dataset.copied = labels.copiedLabel;
      copy.addEventListener("click", function () { copyText(text, copy); });
      tools.appendChild(copy);
      if (block.querySelector("pre code span[class]")) {
        python += 1;
        var download = document.createElement("a");
        download.className = "code-tool";
        download.textContent = labels.downloadLabel;
        download.download = labels.codeTools + "-" + python + ".py";
        download.setAttribute("aria-label", labels.downloadLabel + " (" + download.download + ")");
        download.href = URL.createObjectURL(new Blob([text + "\n"], { type: "text/x-python" }));
        tools.appendChild(download);
      }
      block.appendChild(tools);
    });
  }

  // Code and wide formulas scroll sideways instead of wrapping (wrapped Python misleads); a
  // scrolling box must be reachable from the keyboard, so it joins the tab order. A guide's code
  // blocks and figures are focusable as served (course/rendering.py, the figure templates). The
  // others are measured when the browser has laid them out (a ResizeObserver's callback), never
  // by forcing a layout of the whole page while it loads, which is a long task on a Hindi guide.
  function markIfScrolls(box) {
    if (box.scrollWidth > box.clientWidth && !box.hasAttribute("tabindex")) box.setAttribute("tabindex", "0");
  }
  var scrollerSizes = window.ResizeObserver && new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { markIfScrolls(entry.target); });
  });
  function makeScrollersFocusable(root) {
    root.querySelectorAll("pre:not([tabindex]), div.arithmatex:not([tabindex])").forEach(function (box) {
      if (scrollerSizes) scrollerSizes.observe(box); else markIfScrolls(box);
    });
  }

  // The table of contents is a <details>: closed on a phone (it would fill the screen), opened
  // here on a screen wide enough to show it beside the text (site.css's 60rem breakpoint).
  function openWhereWide(root) {
    if (!window.matchMedia("(min-width: 60rem)").matches) return;
    root.querySelectorAll("details[data-open-wide]").forEach(function (details) { details.open = true; });
  }

  // Framework tabs (Markdown's `=== "Lightning"`, CSS-only radio buttons): the learner's choice is
  // kept for a year in a cookie and chosen again in every tab set of every page. The label's text
  // is the framework's name, the same in every language (content/AUTHORING.md).
  var FRAMEWORK_COOKIE = "framework";

  function chosenFramework() {
    var match = document.cookie.match(/(?:^|;\s*)framework=([^;]*)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function selectFramework(root, name) {
    root.querySelectorAll(".tabbed-set .tabbed-labels > label").forEach(function (label) {
      var input = document.getElementById(label.htmlFor);
      if (input && label.textContent.trim() === name) input.checked = true;
    });
  }

  function setupFrameworkTabs(root) {
    var name = chosenFramework();
    if (name) selectFramework(root, name);
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches(".tabbed-set > input[type=radio]")) return;
    var label = input.parentNode.querySelector('label[for="' + input.id + '"]');
    if (!label) return;
    var name = label.textContent.trim();
    document.cookie = FRAMEWORK_COOKIE + "=" + encodeURIComponent(name) + "; path=/; max-age=31536000; SameSite=Lax";
    selectFramework(document, name); // the page's other tab sets follow
  });

  function enhance(root) {
    openWhereWide(root);
    setupFrameworkTabs(root);
    makeScrollersFocusable(root);
    setupSpeechFallback(root);
    setupCopyButtons(root);
    setupCodeTools(root);
  }

  // How htmx treats every answer, in one place. A 400 or 409 carries the form or the question's
  // card with the reason in it, so it is swapped in like a success; any other error status, or no
  // answer at all, leaves the page as it was and shows one message (its words come, translated,
  // from the nearest data-swap-error: the #swap-error box's own, or a more precise one such as
  // the quiz's) instead of failing silently.
  if (window.htmx) {
    window.htmx.config.responseHandling = [
      { code: "204", swap: false },
      { code: "[23]..", swap: true },
      { code: "40[09]", swap: true, error: false },
      { code: "[45]..", swap: false, error: true },
      { code: "...", swap: false },
    ];
  }

  // A 429 that names where its message goes (HX-Retarget: a quiz card's slot, say) is swapped
  // there, so the learner reads how long to wait beside what they sent; other 429s stay errors.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var xhr = event.detail.xhr;
    if (xhr.status !== 429 || !xhr.getResponseHeader("HX-Retarget") || !event.detail.target) return;
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  });

  function showSwapError(event) {
    var box = document.getElementById("swap-error");
    if (!box) return;
    var elt = event.detail.elt;
    var source = (elt && elt.closest && elt.closest("[data-swap-error]")) || box;
    box.textContent = source.dataset.swapError;
    box.hidden = false;
  }
  document.addEventListener("htmx:responseError", showSwapError);
  document.addEventListener("htmx:sendError", showSwapError);
  document.addEventListener("htmx:afterRequest", function (event) {
    var box = document.getElementById("swap-error");
    if (box && event.detail.successful) box.hidden = true;
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

  // Offline reading (templates/course/service_worker.js). The worker is registered once the page
  // has loaded and the browser is idle, so it costs the page's first paint nothing.
  function registerWorker() {
    var script = document.querySelector("script[data-service-worker]");
    var url = script && script.dataset.serviceWorker;
    if (!url || !("serviceWorker" in navigator)) return Promise.reject(new Error("no service worker"));
    return navigator.serviceWorker.register(url, { scope: "/" });
  }
  // A guide opened before the worker was there (the first visit) is kept as the next ones will be.
  function keepThisPage() {
    if (navigator.serviceWorker.controller || !document.querySelector("[data-offline-save]")) return;
    navigator.serviceWorker.ready.then(function (registration) {
      registration.active.postMessage({ type: "save-for-offline", pages: [location.pathname], narration: [] });
    });
  }
  window.addEventListener("load", function () {
    var register = function () { registerWorker().then(keepThisPage).catch(function () {}); };
    if ("requestIdleCallback" in window) window.requestIdleCallback(register, { timeout: 5000 });
    else window.setTimeout(register, 2000);
  });

  // The quiet mark on a page read from the store (the worker marks the body) or while offline.
  function showOfflineMark() {
    var mark = document.getElementById("offline-mark");
    if (mark) mark.hidden = !(document.body.hasAttribute("data-from-store") || navigator.onLine === false);
  }
  window.addEventListener("online", showOfflineMark);
  window.addEventListener("offline", showOfflineMark);

  function megabytes(box, bytes) { // binary megabytes, as Django's filesizeformat says the narration's size
    var number = new Intl.NumberFormat(document.documentElement.lang, { maximumFractionDigits: 1 });
    return box.dataset.megabytes.replace("{n}", number.format(Math.max(bytes / 1048576, 0.1)));
  }

  // "Save for offline": the worker stores the guides (and the narration, when asked) and says how
  // many bytes it stored.
  function setupOfflineSave(root) {
    root.querySelectorAll("[data-offline-save]").forEach(function (box) {
      if (box.dataset.ready || !("serviceWorker" in navigator) || !window.MessageChannel) return;
      box.dataset.ready = "1";
      box.hidden = false;
      var button = box.querySelector("[data-offline-button]");
      var status = box.querySelector("[data-offline-status]");
      var narration = box.querySelector("[data-offline-narration]");
      button.addEventListener("click", function () {
        button.disabled = true;
        status.textContent = box.dataset.saving;
        var message = {
          type: "save-for-offline",
          pages: JSON.parse(box.dataset.pages),
          narration: narration && narration.checked ? JSON.parse(box.dataset.narration) : [],
        };
        registerWorker().then(function () { return navigator.serviceWorker.ready; }).then(function (registration) {
          return new Promise(function (resolve, reject) {
            var channel = new MessageChannel();
            channel.port1.onmessage = function (event) {
              if (event.data.ok) resolve(event.data.bytes); else reject(new Error(event.data.error));
            };
            registration.active.postMessage(message, [channel.port2]);
          });
        }).then(function (bytes) {
          status.textContent = box.dataset.saved.replace("{size}", megabytes(box, bytes));
          box.dataset.savedBytes = String(bytes);
        }, function () {
          status.textContent = box.dataset.failed;
        }).then(function () { button.disabled = false; });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    showOfflineMark();
    setupOfflineSave(document.body);
    enhance(document.body);
  });
  document.addEventListener("htmx:afterSwap", function (event) { enhance(event.target); });
  window.courseSite = { enhance: enhance };
})();
