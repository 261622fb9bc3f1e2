// Lab charts: loss curves drawn with the vendored Chart.js from JSON the server writes into the
// `data-chart` attribute of the element the canvas names (an attribute, not a script block: htmx
// drops script elements from swapped content here). Redrawn when htmx swaps in fresh data (live
// runs) and when the compare controls change.
(function () {
  "use strict";

  var COLORS = ["#1f4e8c", "#c2410c", "#1d6b3a", "#7a1fa2", "#9b2226", "#0e7490", "#a16207", "#4b5563"];
  var X_COLUMN = { step: 0, samples: 1, seconds: 2 }; // point = [step, samples, seconds, loss]
  var LOSS_COLUMN = 3;

  function readData(id) {
    var holder = document.getElementById(id);
    if (!holder || !holder.dataset.chart) return null;
    try { return JSON.parse(holder.dataset.chart); } catch (error) { return null; }
  }

  function controls() { return document.querySelector("[data-lab-controls]"); }

  function currentView() {
    var form = controls();
    if (!form) return { x: "step", y: "linear", smooth: 0, xTitle: null };
    var x = form.elements.x;
    return {
      x: x.value,
      y: form.elements.y.value,
      smooth: parseFloat(form.elements.smooth.value) || 0,
      xTitle: x.options[x.selectedIndex].textContent,
    };
  }

  // Exponential moving average with bias correction (as TensorBoard), skipping missing values.
  function smoothed(values, weight) {
    if (!weight) return values;
    var average = 0, count = 0;
    return values.map(function (value) {
      if (value === null || !isFinite(value)) return value;
      average = average * weight + (1 - weight) * value;
      count += 1;
      return average / (1 - Math.pow(weight, count));
    });
  }

  function datasets(data, view) {
    return data.runs.map(function (run, index) {
      var color = COLORS[index % COLORS.length];
      var losses = smoothed(run.points.map(function (p) { return p[LOSS_COLUMN]; }), view.smooth);
      return {
        label: run.label,
        data: run.points.map(function (p, i) { return { x: p[X_COLUMN[view.x]], y: losses[i] }; }),
        borderColor: color,
        backgroundColor: color,
        borderWidth: 2,
        pointRadius: 0,
        spanGaps: false,
      };
    });
  }

  function draw(canvas) {
    var data = readData(canvas.dataset.labChart);
    if (!window.Chart || !data) return;
    var view = currentView();
    var xTitle = view.xTitle || canvas.dataset.xLabel;
    var yType = view.y === "log" ? "logarithmic" : "linear";
    var chart = window.Chart.getChart(canvas);
    if (chart) {
      chart.data.datasets = datasets(data, view);
      chart.options.scales.x.title.text = xTitle;
      chart.options.scales.y.type = yType;
      chart.update("none");
    } else {
      new window.Chart(canvas, {
        type: "line",
        data: { datasets: datasets(data, view) },
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          interaction: { mode: "nearest", axis: "x", intersect: false },
          scales: {
            x: { type: "linear", title: { display: true, text: xTitle } },
            y: { type: yType, title: { display: true, text: canvas.dataset.yLabel } },
          },
          plugins: { legend: { position: "bottom" } },
        },
      });
    }
    canvas.dataset.series = String(data.runs.length);
    canvas.dataset.points = String(data.runs.reduce(function (n, run) { return n + run.points.length; }, 0));
  }

  function drawAll() {
    document.querySelectorAll("canvas[data-lab-chart]").forEach(draw);
  }

  // The controls also live in the URL, so the shareable link keeps the chosen view.
  function rememberView(form) {
    var query = new URLSearchParams(new FormData(form)).toString();
    var output = form.querySelector("[data-lab-smooth-value]");
    if (output) output.textContent = form.elements.smooth.value;
    if (new URL(form.action, window.location.href).pathname !== window.location.pathname) return;
    window.history.replaceState(null, "", window.location.pathname + "?" + query);
    var share = document.querySelector("[data-lab-share]");
    if (share) share.value = window.location.origin + window.location.pathname + "?" + query;
  }

  function setupControls() {
    var form = controls();
    if (!form) return;
    form.addEventListener("input", function () { rememberView(form); drawAll(); });
    form.addEventListener("change", function () { rememberView(form); drawAll(); });
  }

  document.addEventListener("DOMContentLoaded", function () { setupControls(); drawAll(); });
  // htmx:load fires on content htmx puts in the page; after an outerHTML swap the old element is
  // detached, so events fired on it (htmx:afterSwap) never reach the document.
  document.addEventListener("htmx:load", drawAll);
})();
