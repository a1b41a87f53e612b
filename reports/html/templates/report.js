// Enhancements, plus what is built on demand: the top findings, the source and the graphs' summaries are
// server-rendered and read without JavaScript; lower-ranked findings and graphs' guard and kernel tables are built
// (by build.js) from the embedded data when shown, searched or linked to.
// Payloads (data, generated code, chart figures, plotly.js) are stored deflated: the findings are made usable
// first, then plotly.js is run and the charts are drawn one at a time. <html data-ready> says how far it got.
(function () {
  "use strict";
  var root = document.documentElement;
  root.classList.add("js");

  // A payload's text: packed ones (data-encoding="deflate-base85" or "deflate-base64") are inflated by the
  // browser's own DecompressionStream (no network, nothing the page's CSP forbids); plain ones are read as they are.
  function payload(id) {
    var el = document.getElementById(id);
    if (!el) return Promise.resolve("");
    var encoding = el.dataset.encoding;
    if (encoding !== "deflate-base85" && encoding !== "deflate-base64") return Promise.resolve(el.textContent);
    var bytes = encoding === "deflate-base85" ? base85(el.textContent) : base64(el.textContent);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"))).text();
  }
  function base64(text) {
    var bin = atob(text);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }
  // Python's base64.b85encode: 5 characters per 4 bytes, big-endian; a short last group was padded with "~".
  var B85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
  function base85(text) {
    var value = new Uint8Array(128);
    for (var c = 0; c < B85.length; c++) value[B85.charCodeAt(c)] = c;
    var pad = (5 - text.length % 5) % 5;
    var out = new Uint8Array((text.length + pad) / 5 * 4);
    for (var i = 0, o = 0; i < text.length; i += 5, o += 4) {
      var acc = 0;
      for (var j = i; j < i + 5; j++) acc = acc * 85 + (j < text.length ? value[text.charCodeAt(j)] : 84);
      out[o] = acc >>> 24;
      out[o + 1] = (acc >>> 16) & 255;
      out[o + 2] = (acc >>> 8) & 255;
      out[o + 3] = acc & 255;
    }
    return out.subarray(0, out.length - pad);
  }
  function readJson(id) {
    return payload(id).then(function (text) { return text ? JSON.parse(text) : {}; });
  }

  var code = readJson("tdiag-code");
  readJson("tdiag-data").then(function (data) {
    start(new window.tdiagBuild.Data(data));
    root.dataset.ready = "findings";
    performance.mark("tdiag:findings");  // read by benchmarks/bench_html.py
    return drawCharts();
  }).then(function () {
    root.dataset.ready = "charts";
    performance.mark("tdiag:charts");
  }, function (err) {
    root.dataset.ready = "failed";
    throw err;
  });

  // plotly.js is inlined packed: run it (an inline script, as the CSP's 'unsafe-inline' allows), then draw each
  // chart in its own task so the page stays responsive while plotly lays them out.
  function drawCharts() {
    var boxes = document.querySelectorAll("div.chart");
    if (!boxes.length) return Promise.resolve();
    return Promise.all([payload("tdiag-plotly"), readJson("tdiag-charts")]).then(function (loaded) {
      var script = document.createElement("script");
      script.textContent = loaded[0];
      document.body.appendChild(script);
      var charts = loaded[1];
      return Array.prototype.reduce.call(boxes, function (done, el) {
        return done.then(function () {
          return new Promise(function (resolve) { setTimeout(resolve, 0); });
        }).then(function () {
          var fig = charts[el.id];
          if (!fig || typeof Plotly === "undefined") return null;
          return Plotly.newPlot(el, fig.data, fig.layout, { displaylogo: false, responsive: true });
        });
      }, Promise.resolve());
    });
  }

  function start(data) {
    // toggle does not bubble: listen in the capture phase for every <details> of the page
    document.addEventListener("toggle", function (ev) {
      var el = ev.target;
      if (!el.open || !el.classList) return;
      if (el.classList.contains("graph")) buildGraph(el);
      if (el.classList.contains("more")) buildFinding(el.parentElement);
      if (!el.dataset.code) return;
      var pre = el.querySelector(":scope > pre");
      if (pre && !pre.dataset.loaded) {
        pre.dataset.loaded = "1";
        code.then(function (texts) { pre.textContent = texts[el.dataset.code] || ""; });
      }
    }, true);

    function buildGraph(details) {
      var box = details.querySelector(":scope > .body > .tables");
      if (!box || box.dataset.built) return;
      box.dataset.built = "1";
      box.append.apply(box, data.graphTables(+box.dataset.graph));
    }

    // Diff colouring: the patch is server-rendered as plain text (readable without JS, and a third of the size)
    var diffClass = { "+": "pa", "-": "pd", "@": "ph" };
    function colourDiff(pre) {
      var text = pre.textContent;
      pre.textContent = "";
      text.split(/(?<=\n)/).forEach(function (line) {
        var span = document.createElement("span");
        var head = line.slice(0, 3);
        span.className = head === "+++" || head === "---" ? "pf" : diffClass[line.charAt(0)] || "";
        span.textContent = line;
        pre.appendChild(span);
      });
    }
    document.querySelectorAll("pre.diff").forEach(colourDiff);

    // Findings beyond the server-rendered ones: a collapsed shell each, in rank order; the body is built on open.
    var lazy = document.getElementById("lazy-findings");
    var records = Array.prototype.map.call(document.querySelectorAll("article.finding"), function (el) {
      return { el: el, text: null, f: null };
    });
    if (lazy) {
      var shells = document.createDocumentFragment();
      data.rows.forEach(function (row) {
        var f = data.finding(row);
        var el = data.findingShell(f);
        el._finding = f;
        shells.appendChild(el);
        records.push({ el: el, text: null, f: f });
      });
      lazy.appendChild(shells);
    }
    function buildFinding(el) {
      var f = el && el._finding;
      if (!f || el._built) return;
      el._built = true;
      var more = el.querySelector(":scope > details.more");
      more.append.apply(more, data.findingBody(f, colourDiff));
    }

    // Copy buttons
    function copyText(text) {
      if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
      var ta = document.createElement("textarea");
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      try { document.execCommand("copy"); } finally { ta.remove(); }
      return Promise.resolve();
    }
    document.addEventListener("click", function (ev) {
      var btn = ev.target.closest ? ev.target.closest("button.copy") : null;
      if (!btn) return;
      var src = document.getElementById(btn.dataset.copy);
      if (!src) return;
      var label = btn.textContent;
      copyText(src.textContent).then(function () {
        btn.textContent = "Copied";
      }, function () {
        btn.textContent = "Copy failed";
      }).then(function () {
        setTimeout(function () { btn.textContent = label; }, 1500);
      });
    });

    // Search and filters over the findings
    var form = document.getElementById("filters");
    function checked(name) {
      var out = {};
      form.querySelectorAll("input[name=" + name + "]").forEach(function (box) { out[box.value] = box.checked; });
      return out;
    }
    function applyFilters() {
      var query = document.getElementById("search").value.trim().toLowerCase();
      var sev = checked("severity"), fam = checked("family");
      var rankSel = document.getElementById("rank");
      var rank = rankSel ? rankSel.value : "";
      var shown = 0;
      records.forEach(function (rec) {
        var el = rec.el;
        var ok = sev[el.dataset.severity] !== false && fam[el.dataset.family] !== false;
        if (ok && rank) {
          var ranks = el.dataset.ranks;
          ok = !ranks || ranks.split(" ").indexOf(rank) >= 0;
        }
        if (ok && query) {
          // a lazily built finding is searched in its data, built or not
          if (rec.text === null) rec.text = (rec.f ? data.findingText(rec.f) : el.textContent).toLowerCase();
          ok = rec.text.indexOf(query) >= 0;
        }
        el.hidden = !ok;
        if (ok) shown++;
      });
      document.getElementById("shown").textContent = shown + " of " + records.length + " shown";
      document.getElementById("no-match").hidden = shown > 0;
    }
    if (form) {
      form.addEventListener("input", applyFilters);
      form.addEventListener("change", applyFilters);
      applyFilters();
    }

    // Sort by cost (records with runtime data): measured seconds, largest first; findings without a cost keep their
    // rank order after them. "rank" puts the page order back. Articles move before #no-match, filters unchanged.
    var sortSel = document.getElementById("sort");
    if (sortSel) {
      sortSel.addEventListener("change", function () {
        var order = records.map(function (rec, i) { return { el: rec.el, i: i, cost: parseFloat(rec.el.dataset.cost) }; });
        if (sortSel.value === "cost") {
          order.sort(function (a, b) {
            var ca = isNaN(a.cost) ? -1 : a.cost, cb = isNaN(b.cost) ? -1 : b.cost;
            return cb - ca || a.i - b.i;
          });
        }
        var end = document.getElementById("no-match");
        order.forEach(function (o) { end.parentNode.insertBefore(o.el, end); });
      });
    }

    // A permalink into a collapsed block (source line, graph) opens it, and a filtered-out finding is shown again.
    function reveal() {
      var id;
      try { id = decodeURIComponent(location.hash.slice(1)); } catch (e) { return; }
      var el = id && document.getElementById(id);
      if (!el) return;
      if (el.hidden) el.hidden = false;
      if (el._finding) {
        buildFinding(el);
        el.querySelector(":scope > details.more").open = true;
      }
      for (var p = el; p; p = p.parentElement) if (p.tagName === "DETAILS") p.open = true;
      el.scrollIntoView();
    }
    window.addEventListener("hashchange", reveal);
    if (location.hash) reveal();
  }
})();

// Sortable tables (Kernel time per module): a click on a column header sorts by it, a second click reverses.
(function () {
  "use strict";
  function key(cell, numeric) {
    var v = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent;
    return numeric ? parseFloat(v) || 0 : v.toLowerCase();
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.style.cursor = "pointer";
      var sort = function () {
        var numeric = th.getAttribute("data-type") === "num";
        var current = th.getAttribute("aria-sort");
        var desc = current ? current === "ascending" : numeric;  // numbers largest first, text A-Z first
        Array.prototype.forEach.call(table.tHead.rows[0].cells, function (o) { o.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", desc ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
          return (x < y ? -1 : x > y ? 1 : 0) * (desc ? -1 : 1);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      };
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
    });
  });
})();
