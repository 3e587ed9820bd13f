// pgtrial's report page: draws each chart from its JSON with uPlot (Time,
// XY, Spectrum), counts the inline SVG ones (Forest, Dots), makes sortable
// tables sort, and says when it is done: the html element's data-ready
// becomes 1 and window.pgtrialReport = {charts, drawn, errors, markers} (DOM16.md).
(function () {
  "use strict";
  var report = { charts: 0, drawn: 0, errors: [], markers: [] };
  window.pgtrialReport = report;

  function fail(what, e) {
    var msg = what + ": " + (e && e.message ? e.message : String(e));
    report.errors.push(msg);
    if (window.console) console.error("pgtrial report: " + msg);
  }
  window.onerror = function (msg, src, line) {
    report.errors.push(String(msg) + (line ? " (line " + line + ")" : ""));
  };

  // Colours: series (Tableau 10) and markers by kind.
  // tone is a series' palette index: its tone (1-based) when set, so that
  // series drawn alike share a colour, else its position.
  function tone(s, i) { return s.tone > 0 ? s.tone - 1 : i; }

  var PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
  var KIND = {
    phase: "#555555", checkpoint: "#1f77b4", autovacuum: "#2ca02c",
    stall: "#d62728", error: "#e6550d", connection: "#9467bd", change: "#8c564b", other: "#7f7f7f"
  };
  function kindColour(k) { return KIND[k] || KIND.other; }
  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16 & 255) + "," + (n >> 8 & 255) + "," + (n & 255) + "," + a + ")";
  }

  // fmt: a number with at most 4 significant digits, thousands grouped.
  function fmt(v) {
    if (v == null || !isFinite(v)) return "—";
    var a = Math.abs(v);
    if (a >= 10000) return Math.round(v).toLocaleString("en-US");
    if (a === 0) return "0";
    return String(Number(v.toPrecision(4)));
  }
  function withUnit(s, unit) { return unit ? s + " " + unit : s; }
  function axisLabel(ax) {
    if (!ax) return "";
    var l = ax.label || "";
    // "active sessions (sessions)" says its unit twice: the label alone.
    if (ax.unit && l.split(" ").indexOf(ax.unit) < 0) l += (l ? " " : "") + "(" + ax.unit + ")";
    return l;
  }

  // Spectrum X: q in [0, 1) as log10(1/(1−q)): 0 → 0, 0.9 → 1, 0.99 → 2.
  var QMAX = 1 - 1e-9;
  function qx(q) {
    if (q == null || !isFinite(q) || q < 0) return null;
    return -Math.log10(1 - Math.min(q, QMAX));
  }
  // The quantile at t = log10(1/(1−q)) as a percentage: "0%", "90%", "99.9%".
  function qLabel(t) {
    var p = 100 * (1 - Math.pow(10, -t));
    var d = Math.max(0, Math.ceil(t) - 2);
    if (Math.abs(t - Math.round(t)) > 1e-9) d = Math.max(1, Math.ceil(t) - 1);
    return p.toFixed(Math.min(d, 9)) + "%";
  }

  // align: the series' own X arrays as uPlot's one shared X: the same
  // array when they are equal (the usual case), else their sorted union
  // with null where a series has no value.
  function align(series, xf) {
    var xs = series.length ? series[0].x : [];
    var asc = true;
    for (var k = 1; k < xs.length; k++) if (!(xs[k] > xs[k - 1])) { asc = false; break; }
    var same = asc && series.every(function (s) {
      if (s.x.length !== xs.length) return false;
      for (var i = 0; i < xs.length; i++) if (s.x[i] !== xs[i]) return false;
      return true;
    });
    var out;
    if (same) {
      out = [xs.slice()].concat(series.map(function (s) { return s.y.slice(); }));
    } else {
      var set = {};
      series.forEach(function (s) { s.x.forEach(function (x) { if (x != null) set[x] = true; }); });
      var ux = Object.keys(set).map(Number).sort(function (a, b) { return a - b; });
      var at = {};
      ux.forEach(function (x, i) { at[x] = i; });
      out = [ux];
      series.forEach(function (s) {
        var ys = new Array(ux.length).fill(null);
        s.x.forEach(function (x, i) { if (x != null) ys[at[x]] = s.y[i]; });
        out.push(ys);
      });
    }
    if (xf) {
      // Transform X (Spectrum); drop points whose X has no place.
      var keep = [];
      out[0] = out[0].map(xf);
      out[0].forEach(function (x, i) { if (x != null) keep.push(i); });
      out = out.map(function (col) { return keep.map(function (i) { return col[i]; }); });
    }
    return out;
  }

  // Groups of linked Time panels: the uPlot instances, for the zoom.
  var groups = {};
  var plots = [];

  function linkZoom(u, group) {
    if (!group) return;
    (groups[group] = groups[group] || []).push(u);
  }
  var syncing = {};
  function onScale(group) {
    return function (u, key) {
      if (key !== "x" || !group || syncing[group]) return;
      syncing[group] = true;
      try {
        var min = u.scales.x.min, max = u.scales.x.max;
        (groups[group] || []).forEach(function (o) {
          if (o !== u && (o.scales.x.min !== min || o.scales.x.max !== max)) {
            o.setScale("x", { min: min, max: max });
          }
        });
      } finally { syncing[group] = false; }
    };
  }

  // The markers', spans' and refs' drawing, and the markers' tooltip.
  function overlays(c, fig) {
    var markers = (c.markers || []).filter(function (m) { return m.x != null && isFinite(m.x); });
    var spans = (c.spans || []).filter(function (s) { return s.from != null && s.to != null; });
    var refs = (c.refs || []).filter(function (r) { return r.value != null; });
    var xv = c.kind === "spectrum" ? qx : function (x) { return x; };
    var tip = document.createElement("div");
    tip.className = "marker-tip";
    tip.style.display = "none";
    function inX(u, x) { return x != null && x >= u.scales.x.min && x <= u.scales.x.max; }
    return {
      hooks: {
        init: [function (u) { u.over.appendChild(tip); }],
        drawAxes: [function (u) {
          var ctx = u.ctx, b = u.bbox;
          ctx.save();
          spans.forEach(function (s) {
            var lo = Math.max(xv(s.from), u.scales.x.min), hi = Math.min(xv(s.to), u.scales.x.max);
            if (!(hi >= lo)) return;
            var x0 = u.valToPos(lo, "x", true), x1 = u.valToPos(hi, "x", true);
            ctx.fillStyle = alpha(kindColour(s.kind), 0.12);
            ctx.fillRect(x0, b.top, Math.max(x1 - x0, 1), b.height);
          });
          ctx.restore();
        }],
        draw: [function (u) {
          var ctx = u.ctx, b = u.bbox, dpr = window.devicePixelRatio || 1;
          ctx.save();
          ctx.lineWidth = 1.5 * dpr;
          refs.forEach(function (r) {
            var sk = r.right && u.scales.y2 ? "y2" : "y";
            var s = u.scales[sk];
            if (s.min == null || r.value < s.min || r.value > s.max) return;
            var y = u.valToPos(r.value, sk, true);
            ctx.strokeStyle = "#333";
            ctx.setLineDash([6 * dpr, 4 * dpr]);
            ctx.beginPath(); ctx.moveTo(b.left, y); ctx.lineTo(b.left + b.width, y); ctx.stroke();
            if (r.label) {
              ctx.setLineDash([]);
              ctx.fillStyle = "#333";
              ctx.font = (11 * dpr) + "px system-ui, sans-serif";
              ctx.textAlign = "right";
              ctx.fillText(r.label, b.left + b.width - 4 * dpr, y - 4 * dpr);
            }
          });
          ctx.setLineDash([]);
          markers.forEach(function (m) {
            var x = xv(m.x);
            if (!inX(u, x)) return;
            var px = Math.round(u.valToPos(x, "x", true));
            ctx.strokeStyle = kindColour(m.kind);
            ctx.beginPath(); ctx.moveTo(px, b.top); ctx.lineTo(px, b.top + b.height); ctx.stroke();
            ctx.fillStyle = kindColour(m.kind);
            ctx.beginPath();
            ctx.moveTo(px - 4 * dpr, b.top); ctx.lineTo(px + 4 * dpr, b.top); ctx.lineTo(px, b.top + 6 * dpr);
            ctx.fill();
          });
          ctx.restore();
        }],
        setCursor: [function (u) {
          var left = u.cursor.left;
          if (left == null || left < 0 || !markers.length) { tip.style.display = "none"; return; }
          var near = markers.filter(function (m) {
            var x = xv(m.x);
            return inX(u, x) && Math.abs(u.valToPos(x, "x") - left) <= 5;
          });
          if (!near.length) { tip.style.display = "none"; return; }
          tip.textContent = near.map(function (m) { return m.label + " (" + m.kind + ")"; }).join("\n");
          tip.style.display = "block";
          var w = u.over.clientWidth;
          tip.style.left = Math.min(left + 8, Math.max(0, w - 260)) + "px";
          tip.style.top = "4px";
        }]
      }
    };
  }

  // yRange: a Y scale's range from the data, widened to show the refs on
  // it (an SLO above every value is still drawn) and 0 under stacked
  // areas; the axis' Min and Max, when set, win.
  function yRange(ax, refs, zero) {
    ax = ax || {};
    return function (u, dmin, dmax) {
      var lo = dmin, hi = dmax;
      refs.forEach(function (v) {
        if (lo == null || v < lo) lo = v;
        if (hi == null || v > hi) hi = v;
      });
      if (lo == null || hi == null) { lo = 0; hi = 1; }
      if (zero && !ax.log) lo = Math.min(0, lo);
      // Shares, counts, rates and times are never below 0: no axis
      // under 0 when no value is (all 0 is 0…1, not −1…1).
      var nonNeg = lo >= 0;
      var r;
      if (ax.log) {
        if (lo <= 0) lo = hi > 0 ? hi / 1000 : 1;
        if (hi <= lo) hi = lo * 10;
        r = uPlot.rangeLog(lo, hi, 10, true);
      } else {
        if (hi <= lo) { hi = lo + 1; lo = zero ? lo : lo - 1; }
        if (nonNeg && lo < 0) lo = 0;
        r = uPlot.rangeNum(lo, hi, 0.1, true);
        if (nonNeg && r[0] < 0) r[0] = 0;
      }
      if (ax.min != null) r[0] = ax.min;
      if (ax.max != null) r[1] = ax.max;
      if (!(r[1] > r[0])) r[1] = r[0] + 1;
      return r;
    };
  }
  function xRange(ax) {
    if (!ax || (ax.min == null && ax.max == null)) return null;
    return function (u, dmin, dmax) {
      var lo = ax.min != null ? ax.min : dmin, hi = ax.max != null ? ax.max : dmax;
      if (hi == null || lo == null) return [lo, hi];
      if (hi <= lo) hi = lo + 1;
      return [lo, hi];
    };
  }

  // logSplits: a log axis' ticks and grid lines, at the decades only
  // (0.01, 0.1, 1, 10, …; every other one when they would crowd the
  // axis); within less than two decades 1, 2 and 5 × 10^k, then every
  // integer multiple.
  function logSplits(u, ai, min, max) {
    if (!(min > 0) || !(max > min)) return [];
    var out = [];
    var e0 = Math.floor(Math.log10(min) - 1e-9), e1 = Math.ceil(Math.log10(max) + 1e-9);
    var within = function (v) { return v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9); };
    var pick = function (ms) {
      var o = [];
      for (var e = e0; e <= e1 && o.length < 100; e++) {
        ms.forEach(function (m) {
          var v = Number((m * Math.pow(10, e)).toPrecision(12));
          if (within(v)) o.push(v);
        });
      }
      return o;
    };
    out = pick([1]);
    if (out.length < 2) out = pick([1, 2, 5]);
    if (out.length < 2) out = pick([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    if (out.length < 2) out = [min, max];
    var ax = u.axes[ai], vertical = ax && (ax.side === 1 || ax.side === 3);
    var room = (vertical ? u.bbox.height : u.bbox.width) / (window.devicePixelRatio || 1);
    var step = 1;
    while (room > 0 && out.length / step * (vertical ? 18 : 50) > room && step < out.length) step *= 2;
    if (step > 1) out = out.filter(function (v, i) { return i % step === 0; });
    return out;
  }

  // keepAll: every split of logSplits keeps its label (uPlot's own filter
  // of a log axis blanks every other one).
  function keepAll(u, splits) { return splits; }

  // The axis labels' font, as uPlot draws them, for measuring.
  var LABEL_FONT = "bold 12px system-ui, -apple-system, \"Segoe UI\", Roboto, \"Helvetica Neue\", Arial, \"Noto Sans\", sans-serif";
  var measureCtx = null;
  function textW(s) {
    if (!measureCtx) measureCtx = document.createElement("canvas").getContext("2d");
    measureCtx.font = LABEL_FONT;
    return measureCtx.measureText(s).width;
  }
  // fitText: s shortened with an ellipsis to at most w px wide.
  function fitText(s, w) {
    if (textW(s) <= w) return s;
    var r = Array.from(s);
    while (r.length > 0) {
      r.pop();
      var t = r.join("").replace(/\s+$/, "") + "…";
      if (textW(t) <= w) return t;
    }
    return "";
  }

  // fitLabel: an axis label shortened to w px, keeping its unit: "full-page
  // images of… (%)".
  function fitLabel(s, w) {
    var m = /^(.*\S)(\s\([^()]*\))$/.exec(s);
    if (m && textW(m[2]) < w / 2) return fitText(m[1], w - textW(m[2])) + m[2];
    return fitText(s, w);
  }

  // fitAxisLabels: a rotated Y axis label longer than the plot's height
  // is shortened to fit, its full text on a hover over the label (a
  // transparent element over it, title = the label). uPlot's setSize hook:
  // the plot's size is known and the axes are drawn after it.
  function fitAxisLabels(u) {
    // The label is centred on the plot and may run over the X axis' room
    // below it, not past the canvas' top or bottom.
    var dpr = window.devicePixelRatio || 1;
    var mid = (u.bbox.top + u.bbox.height / 2) / dpr;
    var room = 2 * Math.min(mid, u.height - mid) - 8;
    var wrap = u.root.querySelector(".u-wrap") || u.root;
    u.axes.forEach(function (ax) {
      if (!(ax.side === 1 || ax.side === 3) || !ax.label) return;
      if (ax.fullLabel == null) ax.fullLabel = ax.label;
      var full = ax.fullLabel;
      var fits = room <= 0 || textW(full) <= room;
      ax.label = fits ? full : fitLabel(full, room);
      if (fits) {
        if (ax.tipEl) ax.tipEl.style.display = "none";
        return;
      }
      if (!ax.tipEl) {
        ax.tipEl = document.createElement("div");
        ax.tipEl.className = "axis-tip";
        ax.tipEl.title = full;
        ax.tipEl.setAttribute("data-label", full);
        wrap.appendChild(ax.tipEl);
      }
      var st = ax.tipEl.style;
      st.display = "block";
      st.top = (u.bbox.top / dpr) + "px";
      st.height = (u.bbox.height / dpr) + "px";
      st.width = (ax.labelSize || 30) + "px";
      if (ax.side === 3) st.left = "0px";
      else st.right = "0px";
    });
  }

  // isolated: the indices of a column's values with no value beside them
  // (a line draws nothing there), for uPlot's points.filter.
  function isolated(col) {
    var out = [];
    for (var j = 0; j < col.length; j++) {
      if (col[j] == null) continue;
      if ((j === 0 || col[j - 1] == null) && (j === col.length - 1 || col[j + 1] == null)) out.push(j);
    }
    return out;
  }

  function draw(fig, c) {
    var holder = fig.querySelector(".plot") || fig;
    var series = (c.series || []).filter(function (s) { return s && s.x && s.y; });
    if (!series.length) throw new Error("no series");
    var spectrum = c.kind === "spectrum";
    var data = align(series, spectrum ? qx : null);
    var raw = data.map(function (col) { return col.slice(); });

    // Stacked areas: cumulate in series order, bottom first; a gap in a
    // series is a gap in its band, and counts 0 for the ones above it.
    var stackPrev = {}; // stack name → index in data of the series below
    var bands = [];
    series.forEach(function (s, i) {
      if (!s.stack) return;
      var di = i + 1, below = stackPrev[s.stack];
      if (below != null) {
        var ys = data[di], bs = data[below];
        for (var j = 0; j < ys.length; j++) {
          var base = bs[j] == null ? 0 : bs[j];
          ys[j] = ys[j] == null ? (bs[j] == null ? null : base) : ys[j] + base;
        }
        bands.push({ series: [di, below], fill: alpha(PALETTE[tone(s, i) % PALETTE.length], 0.45) });
      }
      stackPrev[s.stack] = di;
    });
    var stackBottom = {};
    series.forEach(function (s, i) { if (s.stack && stackBottom[s.stack] == null) stackBottom[s.stack] = i; });

    var yUnit = (c.y && c.y.unit) || "", y2Unit = (c.y2 && c.y2.unit) || "";
    var xUnit = (c.x && c.x.unit) || (c.kind === "time" ? "s" : "");
    var hasRight = series.some(function (s) { return s.right; });

    var useries = [{
      label: spectrum ? "quantile" : ((c.x && c.x.label) || (c.kind === "time" ? "time" : "x")),
      value: function (u, v) {
        if (v == null) return "—";
        return spectrum ? qLabel(v) : withUnit(fmt(v), xUnit);
      }
    }];
    series.forEach(function (s, i) {
      var col = PALETTE[tone(s, i) % PALETTE.length];
      var unit = s.right ? y2Unit : yUnit;
      var o = {
        label: s.name + (unit ? " (" + unit + ")" : ""),
        scale: s.right ? "y2" : "y",
        stroke: col,
        width: 1.5,
        spanGaps: false,
        value: function (u, v, si, di) {
          return fmt(di == null ? v : raw[si][di]);
        }
      };
      if (s.dash) o.dash = [6, 4];
      if (s.points) {
        o.paths = function () { return null; };
        o.points = { show: true, size: 7, stroke: col, fill: col };
      } else if (c.kind === "xy") {
        // A ramp's few levels: a point at every value, lines between (a
        // series, or a stacked layer, of one value still shows).
        o.points = { show: true, size: 8, stroke: col, fill: col };
      } else {
        // A value with gaps either side draws no line: a point there.
        var iso = isolated(data[i + 1]);
        o.points = { show: false, size: 4, stroke: col, fill: col };
        if (iso.length) o.points.filter = function () { return iso; };
      }
      if (s.stack) {
        o.width = 1;
        if (stackBottom[s.stack] === i) o.fill = alpha(col, 0.45);
      }
      useries.push(o);
    });

    var scales = { x: { time: false } };
    if (c.x && c.x.log && !spectrum) scales.x.distr = 3;
    var xr = spectrum ? null : xRange(c.x);
    if (xr) scales.x.range = xr;
    else if (c.kind === "xy") {
      // Points at the ends of the range are drawn whole.
      scales.x.range = function (u, lo, hi) { return lo == null ? [0, 1] : uPlot.rangeNum(lo, hi, 0.05, false); };
    }
    var refVals = function (right) {
      return (c.refs || []).filter(function (r) { return r.value != null && !!r.right === right; })
        .map(function (r) { return r.value; });
    };
    var stackedOn = function (right) { return series.some(function (s) { return s.stack && !!s.right === right; }); };
    scales.y = { range: yRange(c.y, refVals(false), stackedOn(false)) };
    if (c.y && c.y.log) scales.y.distr = 3;
    if (hasRight) {
      scales.y2 = { range: yRange(c.y2, refVals(true), stackedOn(true)) };
      if (c.y2 && c.y2.log) scales.y2.distr = 3;
    }

    var xAxis = { label: spectrum ? "quantile" : axisLabel(c.x) || (c.kind === "time" ? "time (s)" : ""), size: 44, labelSize: 30, labelFont: LABEL_FONT };
    if (spectrum) {
      xAxis.splits = function (u, ai, min, max) {
        var out = [];
        for (var t = Math.max(0, Math.ceil(min)); t <= Math.floor(max); t++) out.push(t);
        return out;
      };
      xAxis.values = function (u, splits) { return splits.map(qLabel); };
    }
    if (!spectrum && c.x && c.x.log) { xAxis.splits = logSplits; xAxis.filter = keepAll; }
    var yVals = function (u, splits) { return splits.map(function (v) { return v == null ? "" : fmt(v); }); };
    // Fixed axis sizes (ticks 60 px, label 30 px, left and right), and a
    // right axis on every Time panel, empty without Y2: the linked panels'
    // plots have the same left and right edges, the same time at the same
    // x on each.
    var yAxis = { label: axisLabel(c.y), labelSize: 30, labelFont: LABEL_FONT, values: yVals, size: 60 };
    if (c.y && c.y.log) { yAxis.splits = logSplits; yAxis.filter = keepAll; }
    var axes = [xAxis, yAxis];
    if (hasRight) {
      var y2Axis = { scale: "y2", side: 1, label: axisLabel(c.y2), labelSize: 30, labelFont: LABEL_FONT, values: yVals, size: 60, grid: { show: false } };
      if (c.y2 && c.y2.log) { y2Axis.splits = logSplits; y2Axis.filter = keepAll; }
      axes.push(y2Axis);
    } else if (c.kind === "time") {
      axes.push({ scale: "y", side: 1, label: "", labelSize: 30, size: 60, grid: { show: false }, ticks: { show: false },
        border: { show: false }, values: function (u, splits) { return splits.map(function () { return ""; }); } });
    }

    var ov = overlays(c, fig);
    var group = c.kind === "time" ? c.group : "";
    var hooks = ov.hooks;
    // The X range shown is on the figure (data-x-min, data-x-max), for a
    // test to see the linked zoom.
    hooks.setScale = [function (u, key) {
      if (key !== "x") return;
      fig.setAttribute("data-x-min", String(u.scales.x.min));
      fig.setAttribute("data-x-max", String(u.scales.x.max));
    }];
    if (group) hooks.setScale.push(onScale(group));
    hooks.setSize = [fitAxisLabels];
    var opts = {
      width: Math.max(320, holder.clientWidth || fig.clientWidth || 800),
      height: c.kind === "time" ? 240 : 300,
      scales: scales,
      series: useries,
      axes: axes,
      bands: bands,
      legend: { live: true },
      cursor: {
        drag: { x: true, y: false, setScale: true },
        sync: group ? { key: "pgtrial-" + group, setSeries: false } : undefined,
        points: { size: 6 }
      },
      hooks: hooks
    };
    if (!group) delete opts.cursor.sync;
    var u = new uPlot(opts, data, holder);
    plots.push({ u: u, holder: holder });
    linkZoom(u, group);
    return u;
  }

  function drawAll() {
    var figs = document.querySelectorAll("figure.chart");
    report.charts = figs.length;
    Array.prototype.forEach.call(figs, function (fig) {
      var id = (fig.id || "").replace(/^chart-/, "");
      try {
        var el = document.getElementById("data-" + id);
        if (!el) throw new Error("no data script data-" + id);
        var c = JSON.parse(el.textContent);
        (c.markers || []).forEach(function (m) {
          report.markers.push({ chart: id, kind: m.kind, label: m.label, x: m.x });
        });
        if (fig.getAttribute("data-error")) throw new Error(fig.getAttribute("data-error"));
        if (fig.getAttribute("data-drawn") === "svg") {
          if (!fig.querySelector("svg")) throw new Error("no svg element");
          report.drawn++;
          return;
        }
        if (c.kind !== "time" && c.kind !== "xy" && c.kind !== "spectrum") throw new Error("cannot draw a chart of kind " + c.kind);
        if (typeof uPlot !== "function") throw new Error("uPlot is not loaded");
        draw(fig, c);
        fig.setAttribute("data-drawn", "canvas");
        report.drawn++;
      } catch (e) {
        fig.setAttribute("data-failed", "1");
        fail("chart " + id, e);
      }
    });
    var pending = null;
    window.addEventListener("resize", function () {
      clearTimeout(pending);
      pending = setTimeout(function () {
        plots.forEach(function (p) {
          var w = p.holder.clientWidth;
          if (w > 0 && Math.abs(w - p.u.width) > 2) p.u.setSize({ width: Math.max(320, w), height: p.u.height });
        });
      }, 100);
    });
  }

  // Sortable tables: a click on a th sorts by its column, figures by their
  // number, text by locale, "—" (missing) last either way.
  function cellKey(td) {
    var t = (td ? td.textContent : "").trim();
    if (t === "" || t === "—") return { missing: true };
    var s = t.replace(/[,\u2009\u202f]/g, "").replace(/^[~≈×±]/, "").replace(/^\u2212/, "-");
    var n = parseFloat(s);
    return { missing: false, num: /^[-+]?(\d|\.\d)/.test(s) && isFinite(n) ? n : null, text: t };
  }
  function sortable(table) {
    var ths = table.querySelectorAll("thead th");
    Array.prototype.forEach.call(ths, function (th, col) {
      th.setAttribute("tabindex", "0");
      th.title = "sort";
      var run = function () {
        var tbody = table.tBodies[0];
        if (!tbody) return;
        var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
        Array.prototype.forEach.call(ths, function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(tbody.rows).map(function (tr, i) {
          return { tr: tr, k: cellKey(tr.cells[col]), i: i };
        });
        var numeric = rows.every(function (r) { return r.k.missing || r.k.num != null; });
        rows.sort(function (a, b) {
          if (a.k.missing !== b.k.missing) return a.k.missing ? 1 : -1;
          if (a.k.missing) return a.i - b.i;
          var d = numeric ? a.k.num - b.k.num : a.k.text.localeCompare(b.k.text, undefined, { numeric: true });
          return d !== 0 ? dir * d : a.i - b.i;
        });
        rows.forEach(function (r) { tbody.appendChild(r.tr); });
      };
      th.addEventListener("click", run);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); run(); } });
    });
  }

  function main() {
    try { drawAll(); } catch (e) { fail("charts", e); }
    try { Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable); } catch (e) { fail("tables", e); }
    document.documentElement.setAttribute("data-ready", "1");
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
  else main();
})();
