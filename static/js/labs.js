// Lab charts: loss curves drawn with the vendored Chart.js from JSON the server writes into the
// `data-chart` attribute of the element the canvas names (an attribute, not a script block: htmx
// drops script elements from swapped content here). Redrawn when htmx swaps in fresh data (live
// runs) and when the compare controls change.
(function () {
  "use strict";

  var COLORS = ["#1f4e8c", "#c2410c", "#1d6b3a", "#7a1fa2", "#9b2226", "#0e7490", "#a16207", "#4b5563"];
  // Runs differ by line style and marker too, not by colour alone (colour-blind readers, print).
  var DASHES = [[], [8, 4], [2, 3], [10, 3, 2, 3], [4, 4], [12, 6], [1, 4], [6, 2, 2, 2]];
  var MARKERS = ["circle", "rect", "triangle", "rectRot", "crossRot", "star", "cross", "rect"];
  var MARKERS_PER_LINE = 8; // markers spread along a training curve: enough to tell lines apart
  var FONT_SIZE = 12; // chart text in CSS pixels, whatever the canvas width (readable on a phone)
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

  function xy(points, view, losses) {
    return points.map(function (p, i) { return { x: p[X_COLUMN[view.x]], y: losses[i] }; });
  }

  // A marker on every few points of a long curve, and on its last point.
  function sparseMarkers(count) {
    var every = Math.max(1, Math.ceil(count / MARKERS_PER_LINE));
    return function (context) {
      var i = context.dataIndex;
      return i % every === 0 || i === count - 1 ? 3.5 : 0;
    };
  }

  function datasets(data, view, validationLabel) {
    var sets = [];
    data.runs.forEach(function (run, index) {
      var color = COLORS[index % COLORS.length];
      var marker = MARKERS[index % MARKERS.length];
      var losses = smoothed(run.points.map(function (p) { return p[LOSS_COLUMN]; }), view.smooth);
      sets.push({
        label: run.label,
        data: xy(run.points, view, losses),
        borderColor: color,
        backgroundColor: color,
        borderWidth: 2,
        borderDash: DASHES[index % DASHES.length],
        pointStyle: marker,
        pointRadius: sparseMarkers(run.points.length),
        pointHoverRadius: 5,
        spanGaps: false,
      });
      var checks = (run.validation || []).filter(function (p) { return p[X_COLUMN[view.x]] !== null; });
      if (!checks.length) return;
      sets.push({
        label: run.label + " · " + validationLabel,
        data: xy(checks, view, checks.map(function (p) { return p[LOSS_COLUMN]; })),
        borderColor: color,
        backgroundColor: "#ffffff",
        borderWidth: 1,
        borderDash: [3, 3],
        pointStyle: marker,
        pointRadius: 5,
        pointBorderWidth: 2,
        pointHoverRadius: 6,
        spanGaps: false,
      });
    });
    return sets;
  }

  function draw(canvas) {
    var data = readData(canvas.dataset.labChart);
    if (!window.Chart || !data) return;
    var view = currentView();
    var validationLabel = canvas.dataset.validationLabel || "validation";
    var xTitle = view.xTitle || canvas.dataset.xLabel;
    var yType = view.y === "log" ? "logarithmic" : "linear";
    var chart = window.Chart.getChart(canvas);
    if (chart) {
      chart.data.datasets = datasets(data, view, validationLabel);
      chart.options.scales.x.title.text = xTitle;
      chart.options.scales.y.type = yType;
      chart.update("none");
    } else {
      new window.Chart(canvas, {
        type: "line",
        data: { datasets: datasets(data, view, validationLabel) },
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          interaction: { mode: "nearest", axis: "x", intersect: false },
          scales: {
            x: { type: "linear", title: { display: true, text: xTitle, font: { size: FONT_SIZE } }, ticks: { font: { size: FONT_SIZE } } },
            y: { type: yType, title: { display: true, text: canvas.dataset.yLabel, font: { size: FONT_SIZE } }, ticks: { font: { size: FONT_SIZE } } },
          },
          plugins: { legend: { position: "bottom", labels: { usePointStyle: true, font: { size: FONT_SIZE } } } },
        },
      });
    }
    canvas.dataset.series = String(data.runs.length);
    canvas.dataset.validationSeries = String(data.runs.filter(function (run) { return (run.validation || []).length; }).length);
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
