"use strict";
// Line and bar charts as inline SVG, drawn by this file alone (no chart library).
(function () {
  const NS = "http://www.w3.org/2000/svg";

  function el(name, attributes, text) {
    const node = document.createElementNS(NS, name);
    for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function niceMax(value) {
    if (value <= 0) return 1;
    const power = Math.pow(10, Math.floor(Math.log10(value)));
    for (const step of [1, 2, 2.5, 5, 10]) if (value <= step * power) return step * power;
    return 10 * power;
  }

  function format(value) {
    if (value >= 1000) return (value / 1000).toFixed(value >= 10000 ? 0 : 1) + "k";
    if (Math.round(value) !== value) return String(Number(value.toPrecision(2)));
    return String(value);
  }

  // series: [{name, className, points: [[x, y], …]}]; x in seconds (unix), y ≥ 0.
  function line(container, series, options) {
    const opts = options || {};
    const width = opts.width || 720, height = opts.height || 200;
    const left = 44, right = 12, top = 12, bottom = 26;
    const xs = series.flatMap(function (s) { return s.points.map(function (p) { return p[0]; }); });
    const ys = series.flatMap(function (s) { return s.points.map(function (p) { return p[1]; }); });
    const xMin = opts.xMin !== undefined ? opts.xMin : Math.min.apply(null, xs.concat([0]));
    const xMax = opts.xMax !== undefined ? opts.xMax : Math.max.apply(null, xs.concat([1]));
    const yMax = niceMax(Math.max.apply(null, ys.concat([0])));
    const sx = function (x) { return left + (xMax === xMin ? 0 : (x - xMin) / (xMax - xMin)) * (width - left - right); };
    const sy = function (y) { return top + (1 - y / yMax) * (height - top - bottom); };
    const svg = el("svg", { viewBox: "0 0 " + width + " " + height, class: "chart", role: "img",
                            "aria-label": opts.label || "chart", "data-max": yMax });
    for (let i = 0; i <= 4; i++) {
      const y = yMax * i / 4;
      svg.appendChild(el("line", { x1: left, x2: width - right, y1: sy(y), y2: sy(y), class: "grid" }));
      svg.appendChild(el("text", { x: left - 6, y: sy(y) + 4, class: "axis", "text-anchor": "end" }, format(y)));
    }
    const ticks = width < 500 ? 3 : 5;
    for (let i = 0; i <= ticks; i++) {
      const x = xMin + (xMax - xMin) * i / ticks;
      const date = new Date(x * 1000);
      const label = date.toISOString().slice(11, opts.seconds ? 19 : 16);
      svg.appendChild(el("text", { x: sx(x), y: height - 8, class: "axis", "text-anchor": i === 0 ? "start" : i === ticks ? "end" : "middle" }, label));
    }
    for (const s of series) {
      if (!s.points.length) continue;
      // One sample so far: a flat line up to it, so it shows.
      const points = s.points.length === 1 ? [[xMin, s.points[0][1]], s.points[0]] : s.points;
      const d = points.map(function (p, i) { return (i ? "L" : "M") + sx(p[0]).toFixed(1) + " " + sy(p[1]).toFixed(1); }).join(" ");
      const total = s.points.reduce(function (sum, p) { return sum + p[1]; }, 0);
      const last = s.points[s.points.length - 1][1];
      svg.appendChild(el("path", { d: d, class: "series " + (s.className || ""), "data-series": s.name,
                                   "data-total": total, "data-last": last, "data-max": Math.max.apply(null, s.points.map(function (p) { return p[1]; })) }));
    }
    const legend = document.createElement("div");
    legend.className = "legend";
    for (const s of series) {
      const item = document.createElement("span");
      item.className = "key " + (s.className || "");
      const last = s.points.length ? s.points[s.points.length - 1][1] : 0;
      item.textContent = s.name + (opts.showLast === false ? "" : ": " + format(last));
      legend.appendChild(item);
    }
    container.replaceChildren(svg, legend);
    return svg;
  }

  // A funnel as horizontal bars: steps [{name, value}], widths relative to the first.
  function funnel(container, steps) {
    const width = 420, row = 26, height = steps.length * row + 4;
    const max = Math.max.apply(null, steps.map(function (s) { return s.value; }).concat([1]));
    const svg = el("svg", { viewBox: "0 0 " + width + " " + height, class: "funnel", role: "img", "aria-label": "delivery funnel" });
    steps.forEach(function (step, i) {
      const y = i * row + 2;
      const w = Math.max(step.value > 0 ? 2 : 0, (step.value / max) * (width - 190));
      svg.appendChild(el("text", { x: 0, y: y + 16, class: "label" }, step.name));
      svg.appendChild(el("rect", { x: 90, y: y + 3, width: w.toFixed(1), height: row - 8, rx: 3, class: "bar step-" + i,
                                   "data-step": step.name, "data-value": step.value }));
      svg.appendChild(el("text", { x: 96 + w, y: y + 16, class: "value" }, String(step.value)));
    });
    container.replaceChildren(svg);
    return svg;
  }

  window.OpenPushCharts = { line, funnel };
})();
