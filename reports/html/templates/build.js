// Builds, from the page's embedded data, the markup the templates would have rendered: findings beyond the
// server-rendered top ones, and the guard and kernel tables of a graph. Run text only ever becomes text nodes or
// attribute values (never innerHTML); the only hrefs are "#" fragments and GB links Python limited to http(s).
window.tdiagBuild = (function () {
  "use strict";

  function h(tag, attrs, children) {
    var el = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (attrs[k] !== null && attrs[k] !== undefined) el.setAttribute(k, attrs[k]);
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === "" || c === false) return;
      el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
    });
    return el;
  }

  // Pairs of items separated by " " (the templates' `" " if not loop.last`).
  function spaced(items) {
    var out = [];
    items.forEach(function (item, i) {
      if (i) out.push(" ");
      out.push(item);
    });
    return out;
  }

  function Data(data) {
    this.strings = data.strings || [];
    var findings = data.findings || { fields: [], rows: [] };
    this.fields = findings.fields;
    this.rows = findings.rows;
    this.graphs = data.graphs || [];
  }
  Data.prototype.s = function (i) { return i === null || i === undefined ? "" : this.strings[i]; };
  // A finding row as an object keyed by the field names Python wrote next to the rows.
  Data.prototype.finding = function (row) {
    var out = {};
    this.fields.forEach(function (name, i) { out[name] = row[i]; });
    return out;
  };

  // ---- source excerpts, cut from the annotated source view (the files are in the page once, there) ----
  var sourceCache = {};
  function sourceLines(slug) {
    if (sourceCache[slug]) return sourceCache[slug];
    var box = document.getElementById(slug);
    var pre = box && box.querySelector("pre.src");
    if (!pre) return (sourceCache[slug] = []);
    var parts = [];
    (function walk(node) {
      node.childNodes.forEach(function (c) {
        if (c.nodeType === 3) parts.push(c.data);
        else if (c.classList && c.classList.contains("badge")) {
          // sources.html.j2 writes exactly one space before each badge; it is not part of the line
          parts[parts.length - 1] = parts[parts.length - 1].slice(0, -1);
        } else walk(c);
      });
    })(pre);
    var lines = parts.join("").split("\n");
    lines.pop(); // every line ends with "\n"
    return (sourceCache[slug] = lines);
  }

  // source.split_highlight: 1-based, end-exclusive columns, counted in code points as Python does
  function splitHighlight(text, column, end) {
    var cps = Array.from(text);
    if (!column || column < 1 || column > cps.length) return [text, "", ""];
    var start = column - 1;
    var stop = !end || end <= column ? cps.length : Math.min(end - 1, cps.length);
    return [cps.slice(0, start).join(""), cps.slice(start, stop).join(""), cps.slice(stop).join("")];
  }

  function excerpt(lines, line, column, end) {
    if (!(line >= 1 && line <= lines.length)) return null;
    var pre = h("pre", { class: "excerpt" });
    for (var n = Math.max(1, line - 1); n <= Math.min(lines.length, line + 1); n++) {
      var num = h("span", { class: "n" }, [n]);
      if (n !== line) {
        pre.append(num, lines[n - 1] + "\n");
        continue;
      }
      var parts = splitHighlight(lines[n - 1], column, end);
      var hit = h("span", { class: "hit" }, [num, parts[0]]);
      if (parts[1]) hit.append(h("mark", null, [parts[1]]), parts[2]);
      hit.append("\n");
      pre.append(hit);
    }
    return pre;
  }

  // ---- findings ----
  Data.prototype.findingHeader = function (f) {
    var s = this.s.bind(this);
    var where = s(f.path) + ":" + f.line + (f.column ? ":" + f.column : "");
    var loc = f.source !== null
      ? h("a", { class: "loc", href: "#" + s(f.source) + "-L" + f.line }, [where])
      : h("span", { class: "loc" }, [where]);
    return h("h3", null, [
      h("a", { class: "permalink", href: "#" + f.anchor }, ["#" + f.rank]), " ",
      h("span", { class: "sev" }, [s(f.severity)]), " ",
      h("code", { class: "rule" }, [s(f.code)]), " ",
      h("span", { class: "name" }, [s(f.name)]), " ",
      loc,
      f.function !== null ? " " : null,
      f.function !== null ? h("span", { class: "fn" }, ["in " + s(f.function)]) : null,
      f.cost !== null ? " " : null,
      f.cost !== null ? h("span", { class: "cost cost-" + s(f.cost[1]) }, [s(f.cost[0])]) : null,
    ]);
  };

  // The collapsed form every lazily built finding starts in: what a compact row of the list needs.
  Data.prototype.findingShell = function (f) {
    var s = this.s.bind(this);
    var ranks = f.ranks.filter(function (rn) { return rn[1]; }).map(function (rn) { return s(rn[0]); });
    var el = h("article", {
      class: "finding lazy sev-" + s(f.severity),
      id: f.anchor,
      "data-family": s(f.family),
      "data-severity": s(f.severity),
      "data-ranks": ranks.length ? ranks.join(" ") : null,
      "data-cost": f.cost !== null ? String(f.cost[2]) : null,
    }, [
      this.findingHeader(f),
      h("p", { class: "msg" }, [f.message]),
      f.fix !== null ? h("p", { class: "fix" }, [h("b", null, [s(f.fix_label) + ":"]), " " + s(f.fix)]) : null,
      h("details", { class: "more" }, [h("summary", null, ["Details"])]),
    ]);
    return el;
  };

  function gbLink(s, f) {
    var url = s(f.gb_url);
    return url ? h("a", { href: url, rel: "noreferrer" }, [s(f.gb_id)]) : s(f.gb_id);
  }

  Data.prototype.findingBody = function (f, colourDiff) {
    var s = this.s.bind(this);
    var out = [];
    if (f.source !== null) out.push(excerpt(sourceLines(s(f.source)), f.line, f.column, f.end_column));
    var dl = h("dl", { class: "evidence" });
    function item(term, dd) { dl.append(h("dt", null, [term]), dd); }
    if (f.reason !== null) {
      item("torch's reason", h("dd", null, f.gb_id !== null ? [s(f.reason), " (", gbLink(s, f), ")"] : [s(f.reason)]));
    } else if (f.gb_id !== null) {
      item("Graph break", h("dd", null, [gbLink(s, f)]));
    }
    if (f.same_as) {
      item("Explanation", h("dd", null, ["as for ", h("a", { href: "#" + s(f.same_as[0]) }, ["#" + f.same_as[1]])]));
    } else {
      if (f.explanation !== null) item("Explanation", h("dd", { class: "expl" }, [s(f.explanation)]));
      if (f.hints.length) {
        item("Hints", h("dd", null, [h("ul", { class: "hints" }, f.hints.map(function (i) { return h("li", null, [s(i)]); }))]));
      }
    }
    if (f.guard !== null) item("Guard", h("dd", null, [h("code", null, [s(f.guard)])]));
    if (f.expected !== null || f.actual !== null) {
      item("Expected / actual", h("dd", null, [h("code", null, [s(f.expected)]), " → ", h("code", null, [s(f.actual)])]));
    }
    f.facts.forEach(function (lv) { item(s(lv[0]), h("dd", null, [s(lv[1])])); });
    var occ = [String(f.occurrences)];
    if (f.compile_ids.length) {
      occ.push(" in compile" + (f.compile_ids.length > 1 ? "s" : "") + " ");
      occ = occ.concat(spaced(f.compile_ids.map(function (i, n) {
        var code = h("code", null, [s(i)]);
        return f.graph_refs[n] ? h("a", { href: "#" + f.graph_refs[n] }, [code]) : code;
      })));
    }
    if (f.cost !== null) {
      var basis = s(f.cost[1]) === "measured" ? "measured in the runtime window" : "compile time over the run";
      var caveat = s(f.cost[3]) ? [h("br"), h("span", { class: "muted cost-caveat" }, [s(f.cost[3])])] : [];
      item("Cost", h("dd", { class: "cost-detail" }, [s(f.cost[0]) + " ", h("span", { class: "muted" }, [basis])].concat(caveat)));
    }
    item("Occurrences", h("dd", null, occ));
    if (f.library_frame) {
      var lib = f.library_frame;
      item(s(lib[3]), h("dd", null, [h("code", null, [s(lib[0]) + ":" + lib[1]]), " in " + s(lib[2])]));
    }
    if (f.ranks.length) {
      item("Per rank", h("dd", { class: "ranks" }, spaced(f.ranks.map(function (rn) {
        return h("span", null, ["rank " + s(rn[0]) + ": " + rn[1]]);
      }))));
    }
    out.push(dl);
    if (f.stack.length) {
      out.push(h("details", { class: "stack" }, [
        h("summary", null, ["User stack (" + f.stack.length + " frames)"]),
        h("ol", null, f.stack.map(function (fr) {
          return h("li", { class: fr[4] ? "user" : "lib" }, [
            h("code", null, [s(fr[0]) + ":" + fr[1]]), " in ", h("b", null, [s(fr[2])]),
            fr[3] !== null ? h("pre", null, [s(fr[3])]) : null,
          ]);
        })),
      ]));
    }
    if (f.suggestion) {
      var sug = f.suggestion;
      var box = h("div", { class: "suggestion" }, [h("h4", null, [s(sug[0])]), sug[1] !== null ? h("p", null, [s(sug[1])]) : null]);
      if (sug[2]) {
        var pre = h("pre", { class: "diff", id: "patch-" + f.anchor }, [sug[2].map(s).join("")]);
        colourDiff(pre);
        box.append(h("div", { class: "patch" }, [
          h("button", { type: "button", class: "copy js-only", "data-copy": "patch-" + f.anchor }, ["Copy patch"]), pre,
        ]));
      }
      if (sug[3] !== null) box.append(h("p", { class: "note" }, [s(sug[3])]));
      if (sug[4].length) box.append(h("p", null, ["Alternatives:"]), h("ul", null, sug[4].map(function (i) { return h("li", null, [s(i)]); })));
      out.push(box);
    }
    return out;
  };

  // Everything a finding says, for the search box: the data, not only what happens to be built.
  Data.prototype.findingText = function (f) {
    var s = this.s.bind(this);
    var parts = ["#" + f.rank, s(f.severity), s(f.code), s(f.name), s(f.path) + ":" + f.line, s(f.function), f.message,
      s(f.fix), s(f.reason), s(f.gb_id), s(f.explanation), s(f.guard), s(f.expected), s(f.actual)];
    f.hints.concat(f.compile_ids).forEach(function (i) { parts.push(s(i)); });
    f.facts.forEach(function (lv) { parts.push(s(lv[0]), s(lv[1])); });
    if (f.library_frame) parts.push(s(f.library_frame[0]) + ":" + f.library_frame[1], s(f.library_frame[2]));
    f.stack.forEach(function (fr) { parts.push(s(fr[0]) + ":" + fr[1], s(fr[2]), s(fr[3])); });
    if (f.suggestion) {
      var sug = f.suggestion;
      parts.push(s(sug[0]), s(sug[1]), (sug[2] || []).map(s).join(""), s(sug[3]));
      sug[4].forEach(function (i) { parts.push(s(i)); });
    }
    return parts.join("\n");
  };

  // ---- graphs: guards and kernels (graphs.html.j2 renders the rest) ----
  function grid(cls, caption, heads, rows) {
    return h("table", { class: cls }, [
      caption,
      h("thead", null, [h("tr", null, heads.map(function (t) { return h("th", null, [t]); }))]),
      h("tbody", null, rows),
    ]);
  }

  Data.prototype.graphTables = function (index) {
    var s = this.s.bind(this);
    var g = this.graphs[index];
    if (!g) return [];
    var out = [];
    var guards = g[0];
    if (guards.length) {
      out.push(h("details", { class: "guards" }, [
        h("summary", null, ["Guards (" + guards.length + ")"]),
        grid("grid", null, ["Kind", "Guard", "Source"], guards.map(function (gd) {
          return h("tr", null, [
            h("td", null, [s(gd[0])]),
            h("td", null, [h("code", null, [s(gd[1])])]),
            h("td", null, [gd[2] !== null ? s(gd[2]) + ":" + (gd[3] === null ? "" : gd[3]) + " " : null,
              gd[4] !== null ? h("code", null, [s(gd[4])]) : null]),
          ]);
        })),
      ]));
    }
    g[1].forEach(function (group) {
      var kernels = group[1];
      out.push(grid("grid kernels", h("caption", null, [s(group[0]) + " kernels (" + kernels.length + ")"]),
        ["Kernel", "Kind", "Backend", "Fusion group", "Source"], kernels.map(function (k) {
          return h("tr", null, [
            h("td", null, [
              h("code", null, [s(k[0])]),
              k[5] !== null ? h("div", { class: "note" }, [s(k[5])]) : null,
              k[6] !== null ? h("details", { class: "code", "data-code": s(k[6]) }, [h("summary", null, ["code"]), h("pre")]) : null,
            ]),
            h("td", null, [s(k[1])]),
            h("td", null, [s(k[2])]),
            h("td", null, spaced(k[3].map(function (i) { return h("code", null, [s(i)]); }))),
            h("td", null, [
              k[7] !== null ? h("div", { class: "module" }, [h("b", null, [s(k[7])])]) : null,
            ].concat(k[4].map(function (ref) {
              return h("div", null, [s(ref[0]) + ":" + ref[1], ref[2] !== null ? " " : null, ref[2] !== null ? h("code", null, [s(ref[2])]) : null]);
            })).concat(k[4].length === 0 && k[8] !== null ? [h("div", { class: "muted" }, [
              s(k[8][0]) + ":" + k[8][1] + " ", k[8][2] !== null ? h("code", null, [s(k[8][2])]) : null])] : [])),
          ]);
        })));
    });
    return out;
  };

  return { Data: Data };
})();
