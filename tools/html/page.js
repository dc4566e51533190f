/* pmuscope HTML report: draws the report (the same JSON as --json, in
 * #pms-report) and the per-sample columns (#pms-samples) with d3 v3.
 * tools/mem_export.c embeds this file; docs/export.md describes the page.
 * After drawing, #pms-check holds the numbers its tables show (read back
 * from the table cells) for the tests, and #pms-status says "rendered". */
(function () {
  "use strict";
  var errors = [];
  function fail(msg) {
    errors.push(String(msg));
    var e = document.getElementById("pms-errors");
    if (e) e.textContent = errors.join("\n");
  }
  window.addEventListener("error", function (ev) { fail(ev.message); });

  function data(id) { return JSON.parse(document.getElementById(id).textContent); }
  var R = data("pms-report"), S = data("pms-samples");
  var main = d3.select("#main");
  var fmt = d3.format(",d"), fmt1 = d3.format(",.1f");
  function share(a, b) { return b ? (100 * a / b).toFixed(1) + "%" : "\u2013"; }
  function section(title) { var s = main.append("section"); s.append("h2").text(title); return s; }
  function note(sel, text, cls) { return sel.append("p").attr("class", cls || "note").text(text); }

  /* A table; cols: {title, key, num, fmt, sort}; rows: objects.  Numeric
   * cells keep their raw value in data-v.  Sortable by clicking a header. */
  function table(sel, id, cols, rows, sortable) {
    var t = sel.append("table").attr("id", id);
    var titled = cols.some(function (c) { return c.title; });
    var hr = titled ? t.append("thead").append("tr") : d3.select(null);
    var tb = t.append("tbody");
    var dir = {};
    cols.forEach(function (c, i) {
      if (!titled) return;
      var th = hr.append("th").text(c.title).classed("num", !!c.num);
      if (sortable) {
        th.classed("sortable", true).on("click", function () {
          dir[i] = !dir[i];
          var v = function (r) { return c.sort ? c.sort(r) : r[c.key]; };
          rows.sort(function (a, b) {
            var x = v(a), y = v(b);
            if (x === null || x === undefined) x = c.num ? -Infinity : "";
            if (y === null || y === undefined) y = c.num ? -Infinity : "";
            var o = x < y ? -1 : x > y ? 1 : 0;
            return dir[i] ? -o : o;
          });
          fill();
        });
      }
    });
    function fill() {
      tb.selectAll("tr").remove();
      rows.forEach(function (r) {
        var tr = tb.append("tr");
        if (r.hover) tr.attr("title", r.hover);
        cols.forEach(function (c) {
          var v = c.sort ? c.sort(r) : r[c.key];
          var td = tr.append("td").classed("num", !!c.num).classed("name", !!c.mono)
            .text(c.fmt ? c.fmt(v, r) : (v === null || v === undefined ? "\u2013" : v));
          if (c.num && v !== null && v !== undefined) td.attr("data-v", v);
          if (c.key) td.attr("data-k", c.key);
        });
      });
    }
    fill();
    return t;
  }

  /* ---- run, engine, attempts, caveats ---- */
  var run = section("Run");
  table(run, "t-engine", [{ title: "", key: "k" }, { title: "", key: "v", mono: true }], [
    { k: "engine", v: R.engine.name + (R.engine.label ? " (" + R.engine.label + ")" : "") },
    { k: "PMUs", v: R.engine.pmus || "\u2013" },
    { k: "notes", v: R.engine.notes || "\u2013" },
    { k: "data source", v: R.engine.data_src ? "yes" : "no" },
    { k: "physical addresses", v: R.engine.phys ? "yes" : "no" },
    { k: "duration", v: R.duration_s !== undefined ? fmt1(R.duration_s) + " s" : "\u2013" }
  ], false);
  if (R.attempts && R.attempts.length) {
    run.append("h3").text("Engine attempts");
    table(run, "t-attempts", [
      { title: "engine", key: "engine" }, { title: "PMU", key: "pmu" },
      { title: "chosen", key: "chosen", fmt: function (v) { return v ? "yes" : "no"; } },
      { title: "error", key: "error" }, { title: "reason", key: "reason" },
      { title: "attr", key: "attr", mono: true }], R.attempts, false);
  }
  if (R.sources && R.sources.length) {
    run.append("h3").text("Merged from");
    table(run, "t-sources", [{ title: "host", key: "host", mono: true },
      { title: "samples", key: "samples", num: true, fmt: fmt }], R.sources, true);
  }
  var caveats = [];
  if (R.data_source && R.data_source.note) caveats.push(R.data_source.note);
  if (R.numa && R.numa.nodes_unavailable) caveats.push("NUMA nodes unavailable: " + R.numa.nodes_unavailable);
  var sm = R.samples;
  [["lost", "lost samples"], ["lost_records", "lost records"], ["throttle", "throttle events"],
   ["parse_errors", "records that did not parse"], ["dropped", "samples dropped"],
   ["aux_truncated", "AUX data truncated"]].forEach(function (p) {
    if (sm[p[0]]) caveats.push(fmt(sm[p[0]]) + " " + p[1]);
  });
  caveats.forEach(function (c) { note(run, c, "caveat"); });
  note(run, "Every caveat of the text report is in the text report at the end of the page.");

  /* ---- summary and levels ---- */
  var sum = section("Samples and data-source levels");
  var g1 = sum.append("div").attr("class", "grid");
  table(g1.append("div").attr("class", "card"), "t-summary", [
    { title: "samples", key: "k" }, { title: "count", key: "v", num: true, fmt: fmt }], [
    { k: "total", v: sm.total }, { k: "with a data address", v: sm.with_addr },
    { k: "with a data source", v: sm.with_data_src },
    { k: "with a latency", v: R.latency.samples },
    { k: "with a memory node", v: R.numa.resolved }], false);
  d3.selectAll("#t-summary tbody tr").each(function (d, i) {
    d3.select(this).select("td.num").attr("data-k",
      ["total", "with_addr", "with_data_src", "latency", "resolved"][i]);
  });
  var levels = (R.data_source.levels || []).map(function (l) {
    return { level: l.level, samples: l.samples, share: l.samples / (sm.total || 1) }; /* of all samples, N/A included, as the text */
  });
  if (levels.length) {
    table(g1.append("div").attr("class", "card"), "t-levels", [
      { title: "level (perf's text)", key: "level" },
      { title: "samples", key: "samples", num: true, fmt: fmt },
      { title: "share", key: "share", num: true, fmt: function (v) { return (100 * v).toFixed(1) + "%"; } }],
      levels, true);
  } else {
    note(g1, "No data source: " + (R.data_source.note || "none recorded"));
  }
  if (R.latency.samples) {
    var L = R.latency;
    note(sum, "Latency (cycles): min " + fmt(L.min) + ", median " + fmt(L.median) + ", p90 " +
      fmt(L.p90) + ", p99 " + fmt(L.p99) + ", max " + fmt(L.max) + ", mean " + fmt1(L.mean));
  }

  /* ---- latency histogram per level (log axis) ---- */
  var hs = section("Latency per data-source level");
  var n = S.weight.length;
  var byLevel = {};
  var maxW = 0, minW = Infinity;
  for (var i = 0; i < n; i++) {
    var w = S.weight[i];
    if (!w) continue;
    maxW = Math.max(maxW, w);
    minW = Math.min(minW, w);
    var key = S.level[i] >= 0 ? S.levels[S.level[i]] : "(no data source)";
    (byLevel[key] = byLevel[key] || []).push(w);
  }
  if (!maxW) {
    note(hs, "No sample carries a latency (the engine gives none, or none was recorded).");
  } else {
    note(hs, "Samples by latency in cycles, on a log axis (bins of a quarter power of two); one chart per level.");
    var grid = hs.append("div").attr("class", "grid");
    /* from the power of two below the smallest latency to the one above the largest */
    var lo = Math.pow(2, Math.floor(Math.log(minW) / Math.LN2)),
      hi = Math.pow(2, Math.ceil(Math.log(maxW + 1) / Math.LN2));
    var edges = [];
    for (var e = Math.round(4 * Math.log(lo) / Math.LN2); Math.pow(2, e / 4) <= hi; e++) edges.push(Math.pow(2, e / 4));
    Object.keys(byLevel).sort(function (a, b) { return byLevel[b].length - byLevel[a].length; })
      .forEach(function (lv) {
        var ws = byLevel[lv];
        var bins = d3.layout.histogram().bins(edges)(ws);
        var W = 360, H = 150, m = { l: 44, r: 8, t: 18, b: 30 };
        var card = grid.append("div").attr("class", "card");
        var svg = card.append("svg").attr("width", W).attr("height", H);
        var x = d3.scale.log().domain([lo, hi]).range([m.l, W - m.r]);
        var y = d3.scale.linear().domain([0, d3.max(bins, function (b) { return b.y; }) || 1])
          .range([H - m.b, m.t]);
        svg.append("text").attr("x", m.l).attr("y", 12).text(lv + " (" + fmt(ws.length) + ")");
        svg.selectAll("rect").data(bins).enter().append("rect").attr("class", "bar")
          .attr("x", function (b) { return x(b.x); })
          .attr("width", function (b) { return Math.max(1, x(b.x + b.dx) - x(b.x) - 1); })
          .attr("y", function (b) { return y(b.y); })
          .attr("height", function (b) { return H - m.b - y(b.y); })
          .append("title").text(function (b) {
            return fmt(b.y) + " samples, " + Math.round(b.x) + "\u2013" + Math.round(b.x + b.dx) + " cycles";
          });
        svg.append("g").attr("class", "axis").attr("transform", "translate(0," + (H - m.b) + ")")
          .call(d3.svg.axis().scale(x).orient("bottom").ticks(6, ",d"));
        svg.append("g").attr("class", "axis").attr("transform", "translate(" + m.l + ",0)")
          .call(d3.svg.axis().scale(y).orient("left").ticks(4, ",d"));
      });
  }

  /* ---- CPU node x memory node ---- */
  var ns = section("CPU node \u00d7 memory node");
  var nodes = R.numa.nodes || [], M = R.numa.matrix || [];
  var total = 0;
  M.forEach(function (row) { row.forEach(function (v) { total += v; }); });
  if (!nodes.length) {
    note(ns, "No node matrix: " + (R.numa.nodes_unavailable || "no sample has both a CPU node and a memory node"));
  } else {
    note(ns, "Rows: the node of the CPU that sampled; columns: the node of the memory. Off-diagonal cells are remote accesses." +
      (R.numa.matrix_outside ? " " + fmt(R.numa.matrix_outside) + " resolved samples had no CPU node." : ""));
    var grid2 = ns.append("div").attr("class", "grid");
    var c1 = grid2.append("div").attr("class", "card");
    var t = c1.append("table").attr("id", "t-matrix");
    var hr = t.append("thead").append("tr");
    hr.append("th").text("CPU \\ memory");
    nodes.forEach(function (nd) { hr.append("th").attr("class", "num").text("node " + nd); });
    var tb = t.append("tbody");
    nodes.forEach(function (nd, a) {
      var tr = tb.append("tr");
      tr.append("th").text("node " + nd);
      nodes.forEach(function (nd2, b) {
        tr.append("td").attr("class", "num").attr("data-v", M[a][b])
          .text(fmt(M[a][b]) + " (" + share(M[a][b], total) + ")");
      });
    });
    var C = 46, svgm = grid2.append("div").attr("class", "card").append("svg")
      .attr("width", 60 + C * nodes.length).attr("height", 40 + C * nodes.length);
    var col = d3.scale.linear().domain([0, d3.max(M, function (r) { return d3.max(r); }) || 1])
      .range(["#f7fbff", "#08306b"]);
    nodes.forEach(function (nd, a) {
      svgm.append("text").attr("x", 4).attr("y", 40 + C * a + C / 2).text("cpu " + nd);
      svgm.append("text").attr("x", 56 + C * a + 6).attr("y", 30).text("mem " + nd);
      nodes.forEach(function (nd2, b) {
        var v = M[a][b];
        svgm.append("rect").attr("x", 56 + C * b).attr("y", 36 + C * a).attr("width", C - 2)
          .attr("height", C - 2).attr("fill", col(v)).append("title")
          .text("CPU node " + nd + ", memory node " + nd2 + ": " + fmt(v) + " (" + share(v, total) + ")");
        svgm.append("text").attr("x", 56 + C * b + 4).attr("y", 36 + C * a + C / 2 + 4)
          .style("fill", v > (col.domain()[1] / 2) ? "#fff" : "#1b1f24").text(share(v, total));
      });
    });
    if (S.distances) {
      var c3 = grid2.append("div").attr("class", "card");
      c3.append("h3").text("Node distances (ACPI SLIT)");
      var td = c3.append("table").attr("id", "t-distance");
      var dh = td.append("thead").append("tr");
      dh.append("th").text("from \\ to");
      nodes.forEach(function (nd) { dh.append("th").attr("class", "num").text("node " + nd); });
      var db = td.append("tbody");
      nodes.forEach(function (nd, a) {
        var tr = db.append("tr");
        tr.append("th").text("node " + nd);
        S.distances[a].forEach(function (v) {
          tr.append("td").attr("class", "num").text(v < 0 ? "\u2013" : v);
        });
      });
    } else {
      note(grid2, "Node distances: not known (a recorded file does not carry them).");
    }
  }

  /* ---- samples over time per memory node ---- */
  var tsec = section("Samples over time per memory node");
  var tmin = Infinity, tmax = -Infinity;
  S.time.forEach(function (v) { if (v !== null) { tmin = Math.min(tmin, v); tmax = Math.max(tmax, v); } });
  if (!(tmax > tmin)) {
    note(tsec, "The samples carry no time span.");
  } else {
    var NB = 60, span = (tmax - tmin) / NB, series = {};
    for (var k = 0; k < n; k++) {
      if (S.time[k] === null) continue;
      var b = Math.min(NB - 1, Math.floor((S.time[k] - tmin) / span));
      var key2 = S.mem_node[k] >= 0 ? "node " + S.mem_node[k] : "no node";
      (series[key2] = series[key2] || new Array(NB + 1).join("0").split("").map(Number))[b]++;
    }
    var keys = Object.keys(series).sort();
    var W2 = 760, H2 = 220, m2 = { l: 50, r: 10, t: 10, b: 34 };
    var svg2 = tsec.append("svg").attr("width", W2).attr("height", H2);
    var x2 = d3.scale.linear().domain([0, (tmax - tmin) / 1e9]).range([m2.l, W2 - m2.r]);
    var y2 = d3.scale.linear().domain([0, d3.max(keys, function (kk) { return d3.max(series[kk]); }) || 1])
      .range([H2 - m2.b, m2.t]);
    var color = d3.scale.category10().domain(keys);
    keys.forEach(function (kk) {
      var line = d3.svg.line().x(function (v, j) { return x2((j + 0.5) * span / 1e9); })
        .y(function (v) { return y2(v); });
      svg2.append("path").attr("d", line(series[kk])).attr("fill", "none")
        .attr("stroke", color(kk)).attr("stroke-width", 1.6);
    });
    svg2.append("g").attr("class", "axis").attr("transform", "translate(0," + (H2 - m2.b) + ")")
      .call(d3.svg.axis().scale(x2).orient("bottom").ticks(8));
    svg2.append("g").attr("class", "axis").attr("transform", "translate(" + m2.l + ",0)")
      .call(d3.svg.axis().scale(y2).orient("left").ticks(5, ",d"));
    svg2.append("text").attr("x", W2 / 2).attr("y", H2 - 2).text("seconds since the first sample");
    var lg = tsec.append("div").attr("class", "legend");
    keys.forEach(function (kk) {
      var s = lg.append("span");
      s.append("span").attr("class", "swatch").style("background", color(kk));
      s.append("span").text(kk + " (" + fmt(d3.sum(series[kk])) + ")");
    });
    note(tsec, "Samples per " + fmt1(span / 1e6) + " ms bin.");
  }

  /* ---- top functions and data objects ---- */
  function siteRows(list) {
    return (list || []).map(function (s) {
      return { name: s.name, module: s.module, samples: s.samples,
        latency: s.latency_samples ? s.latency_total / s.latency_samples : null,
        remote: s.remote_share, resolved: s.resolved, kind: s.kind };
    });
  }
  var pctf = function (v) { return v === null || v === undefined ? "\u2013" : (100 * v).toFixed(1) + "%"; };
  var latf = function (v) { return v === null || v === undefined ? "\u2013" : fmt1(v); };
  var tsx = section("Top functions");
  note(tsx, "By samples (click a header to sort). Latency: mean cycles of the samples that carry one. Remote: share of the samples with a memory node that were on another node than their CPU.");
  table(tsx, "t-funcs", [
    { title: "function", key: "name", mono: true }, { title: "module", key: "module", mono: true },
    { title: "samples", key: "samples", num: true, fmt: fmt },
    { title: "mean latency", key: "latency", num: true, fmt: latf },
    { title: "remote", key: "remote", num: true, fmt: pctf },
    { title: "with node", key: "resolved", num: true, fmt: fmt }], siteRows(R.top.functions_by_samples), true);
  var tso = section("Top data objects");
  table(tso, "t-objects", [
    { title: "object", key: "name", mono: true }, { title: "kind", key: "kind" },
    { title: "samples", key: "samples", num: true, fmt: fmt },
    { title: "mean latency", key: "latency", num: true, fmt: latf },
    { title: "remote", key: "remote", num: true, fmt: pctf },
    { title: "with node", key: "resolved", num: true, fmt: fmt }], siteRows(R.top.data_objects), true);

  /* ---- allocation sites (issue 28): the call path on hover ---- */
  var AS = R.allocation_sites;
  if (AS && AS.tracked && AS.sites && AS.sites.length) {
    var tas = section("Allocation sites");
    note(tas, "Samples by the allocation that held their address at their time (" + fmt(AS.samples_placed) +
      " of " + fmt(AS.samples_with_addr) + " samples with a data address). Hover a row for its allocation call path.");
    var frameText = function (f) {
      var file = f.file ? f.file.replace(/^.*\//, "") + ":" + f.line : null;
      return (f.function || f.ip) + (file ? " (" + file + ")" : "");
    };
    /* --types (issue 29): the site's data type, as the text's column:
     * "struct rec (b) 87%", "mixed" (typed, no type over half), "-" */
    var typed = AS.sites[0].typed_samples !== undefined;
    var siteType = function (s) {
      if (!s.type)
        return s.typed_samples ? "mixed" : "-";
      return s.type.name + " (" + (s.type.member || "whole") + ") " +
        (100 * s.type.samples / s.typed_samples).toFixed(0) + "%";
    };
    var acols = [
      { title: "allocated at", key: "where", mono: true }, { title: "kind", key: "kind" },
      { title: "samples", key: "samples", num: true, fmt: fmt },
      { title: "mean latency", key: "latency", num: true, fmt: latf },
      { title: "remote", key: "remote", num: true, fmt: pctf },
      { title: "allocations", key: "allocs", num: true, fmt: fmt },
      { title: "bytes", key: "bytes", num: true, fmt: fmt }];
    if (typed)
      acols.push({ title: "type (member) share", key: "type", mono: true });
    table(tas, "t-allocs", acols, AS.sites.map(function (s) {
        var path = s.call_path || [];
        var top = path.filter(function (f) { return f.file; })[0] || path[0];
        return { where: top ? frameText(top) : "[" + s.kind + "]", kind: s.kind, samples: s.samples,
          latency: s.latency_samples ? s.latency_total / s.latency_samples : null,
          remote: s.resolved ? s.remote / s.resolved : null, allocs: s.allocations, bytes: s.bytes,
          type: typed ? siteType(s) : null, hover: path.map(frameText).join("\n\u2190 ") };
      }), true);
  }

  /* ---- data types and struct members (issue 29; mem --types) ---- */
  var TY = R.types;
  if (TY && TY.members) {
    var tty = section("Data types and members");
    note(tty, fmt(TY.resolved) + " of " + fmt(TY.samples) + " samples resolved to a type (" + share(TY.resolved, TY.samples) +
      "). Remote: share of the samples with both nodes known. Latency: the samples' weight (cycles) where the engine gives one.");
    var nz = function (v) { return v ? fmt(v) : "\u2013"; };
    table(tty, "t-types", [
      { title: "type", key: "type", mono: true }, { title: "member", key: "member", mono: true },
      { title: "offset", key: "offset", num: true, fmt: function (v) { return "+0x" + v.toString(16); } },
      { title: "line", key: "cache_line", num: true },
      { title: "samples", key: "samples", num: true, fmt: fmt },
      { title: "loads", key: "loads", num: true, fmt: fmt }, { title: "stores", key: "stores", num: true, fmt: fmt },
      { title: "remote", key: "remote_share", num: true, fmt: pctf },
      { title: "lat p50", key: "p50", num: true, fmt: nz }, { title: "lat p90", key: "p90", num: true, fmt: nz },
      { title: "threads", key: "threads", num: true }, { title: "writers", key: "writer_threads", num: true }],
      TY.members.map(function (m) {
        return { type: m.type, member: m.member || "(whole)", offset: m.offset, cache_line: m.cache_line,
          samples: m.samples, loads: m.loads, stores: m.stores,
          remote_share: m.node_known ? m.remote / m.node_known : null,
          p50: m.latency.n ? m.latency.p50 : null, p90: m.latency.n ? m.latency.p90 : null,
          threads: m.threads, writer_threads: m.writer_threads };
      }), true);
    var fsl = (TY.cache_lines || []).filter(function (l) { return l.false_sharing; });
    if (fsl.length) {
      tty.append("h3").text("False sharing: cache lines of a type whose members different threads write");
      table(tty, "t-types-fs", [
        { title: "type", key: "type", mono: true }, { title: "cache line", key: "line", num: true },
        { title: "samples", key: "samples", num: true, fmt: fmt }, { title: "stores", key: "stores", num: true, fmt: fmt },
        { title: "written members", key: "written_members", num: true },
        { title: "writer threads", key: "writer_threads", num: true }], fsl, true);
    }
    (TY.layouts || []).forEach(function (lay, li) {
      tty.append("h3").text("Layout of " + lay.type + " (pahole-like; a rule at each 64-byte cache line)");
      var rows = [], line = -1;
      lay.fields.forEach(function (f) {
        var l = Math.floor(f.offset / 64);
        if (l !== line) { rows.push({ boundary: true, name: "cache line " + l + " (+0x" + (64 * l).toString(16) + ")" }); line = l; }
        rows.push(f);
        if (f.hole) rows.push({ name: "/* " + f.hole + "-byte hole */", hole_row: true });
      });
      var tl = table(tty, "t-layout-" + li, [
        { title: "offset", key: "offset", num: true }, { title: "size", key: "size", num: true },
        { title: "member", key: "name", mono: true }, { title: "type", key: "type", mono: true },
        { title: "samples", key: "samples", num: true, fmt: nz }, { title: "stores", key: "stores", num: true, fmt: nz }],
        rows, false);
      tl.selectAll("tbody tr").classed("line-boundary", function (_, i) { return !!rows[i].boundary; })
        .classed("hole", function (_, i) { return !!rows[i].hole_row; });
    });
    if (TY.unresolved) {
      var ur = Object.keys(TY.unresolved).filter(function (k) { return TY.unresolved[k]; })
        .map(function (k) { return { reason: k, samples: TY.unresolved[k] }; });
      if (ur.length) {
        tty.append("h3").text("Unresolved samples by reason");
        table(tty, "t-types-unresolved", [{ title: "reason", key: "reason", mono: true },
          { title: "samples", key: "samples", num: true, fmt: fmt }], ur, true);
      }
    }
  }

  /* ---- flame graph (icicle) of call paths ---- */
  var fs = section("Call paths (icicle)");
  note(fs, S.callers ? "The samples' recorded call paths (the stacks --pprof and --folded write), root at the top; width = weight; colour = remote share (blue 0%, red 100%, grey: no node). Click a frame to zoom into it."
    : "The samples carry no call paths (record with -g or --call-graph): each stack is the sampled instruction's function (one level). " +
      "Width = weight; colour = remote share (blue 0%, red 100%, grey: no node).");
  var ctl = fs.append("div");
  var flameDiv = fs.append("div");
  /* A stack drawn (root first): a run of 4 or more "[unknown]" frames is one
   * frame "[unknown] xN", and a stack deeper than ICICLE_DEPTH keeps its
   * first ICICLE_DEPTH - 1 frames and one "[N more frames]" (issue 30 item
   * 8: a 127-frame unknown column drew 2,000 px of blank).
   * tests/cli/export_check.py folds the same way. */
  var ICICLE_DEPTH = 48;
  function foldDeep(names) {
    var out = [];
    for (var i = 0; i < names.length;) {
      var j = i;
      while (j < names.length && names[j].indexOf("[unknown]") === 0) j++;
      if (j - i >= 4) { out.push("[unknown] x" + (j - i)); i = j; } else { out.push(names[i]); i++; }
    }
    if (out.length > ICICLE_DEPTH) {
      var more = out.length - (ICICLE_DEPTH - 1);
      out = out.slice(0, ICICLE_DEPTH - 1);
      out.push("[" + more + " more frames]");
    }
    return out;
  }
  function tree(weight) {
    var root = { name: "all", kids: {}, v: 0, self: 0, rem: 0, res: 0 };
    for (var q = 0; q < n; q++) {
      var v = weight === "latency" ? S.weight[q] : 1;
      if (!v) continue;
      var p = S.path[q] >= 0 ? S.paths[S.path[q]] : [];
      var nd = root;
      var upd = function (x) {
        x.v += v;
        if (S.mem_node[q] >= 0 && S.cpu_node[q] >= 0) {
          x.res++;
          if (S.mem_node[q] !== S.cpu_node[q]) x.rem++;
        }
      };
      upd(nd);
      var names = foldDeep(p.length ? p.slice().reverse().map(function (f) { return S.frames[f].name; }) : ["[no ip]"]);
      names.forEach(function (nm) {
        nd = nd.kids[nm] = nd.kids[nm] || { name: nm, kids: {}, v: 0, self: 0, rem: 0, res: 0 };
        upd(nd);
      });
      nd.self += v;
    }
    (function conv(x) {
      var ch = Object.keys(x.kids).map(function (k2) { return conv(x.kids[k2]); });
      if (ch.length && x.self) ch.push({ name: "(self)", v: x.self, self: x.self, rem: 0, res: 0, children: null, selfOf: x });
      x.children = ch.length ? ch : null;
      return x;
    })(root);
    return root;
  }
  /* a node's stack of names, root first, ';'-joined as --folded writes it */
  function stackOf(d) {
    var names = [];
    for (var x = d; x && x.parent; x = x.parent) names.unshift(x.name);
    return names.join(";");
  }
  var trees = {};
  function drawFlame(weight, focus) {
    flameDiv.selectAll("*").remove();
    var root = focus || (trees[weight] = trees[weight] || tree(weight));
    if (focus) {
      flameDiv.append("button").text("\u2190 all call paths").on("click", function () { drawFlame(weight); });
    }
    if (!root.v) { note(flameDiv, "Nothing to draw for this weight."); return; }
    var W3 = 1100, RH = 20;
    var part = d3.layout.partition().children(function (d) { return d.children; })
      .value(function (d) { return d.children ? 0 : d.v; });
    var ndsAll = part.nodes(root);
    var depth = d3.max(ndsAll, function (d) { return d.depth; }) + 1;
    var svg3 = flameDiv.append("svg").attr("class", "flame").attr("width", W3).attr("height", depth * RH + 4);
    var col3 = d3.scale.linear().domain([0, 0.5, 1]).range(["#4575b4", "#ffffbf", "#d73027"]);
    var gs = svg3.selectAll("g").data(ndsAll).enter().append("g")
      .attr("transform", function (d) { return "translate(" + d.x * W3 + "," + d.depth * RH + ")"; })
      .attr("data-path", function (d) { return d.selfOf ? null : stackOf(d); })
      .attr("data-v", function (d) { return d.value; })
      .style("cursor", function (d) { return d.children && d !== root ? "pointer" : null; })
      .on("click", function (d) { if (d.children && d !== root) drawFlame(weight, d); });
    gs.append("rect").attr("width", function (d) { return Math.max(0.5, d.dx * W3); }).attr("height", RH - 1)
      .attr("fill", function (d) {
        var src = d.selfOf || d;
        return src.res ? col3(src.rem / src.res) : "#c8ccd1";
      })
      .append("title").text(function (d) {
        var src = d.selfOf || d;
        return d.name + "\n" + fmt(d.value) + (weight === "latency" ? " cycles" : " samples") +
          " (" + share(d.value, root.value) + ")" + "\nremote: " + (src.res ? share(src.rem, src.res) : "no node");
      });
    gs.append("text").attr("x", 3).attr("y", RH - 6).text(function (d) {
      var wpx = d.dx * W3, label = d.name;
      if (wpx < 30) return "";
      var fit = Math.floor(wpx / 6.5);
      return label.length > fit ? label.slice(0, Math.max(0, fit - 1)) + "\u2026" : label;
    });
  }
  ["samples", "latency"].forEach(function (w) {
    ctl.append("button").attr("id", "flame-" + w).text("weight: " + w).on("click", function () {
      ctl.selectAll("button").classed("sel", false);
      d3.select(this).classed("sel", true);
      drawFlame(w);
    });
  });
  /* what the icicle draws, read back from its frames, for the tests:
   * the root's total and each stack's (cumulative) value, both weights */
  var icicle = {};
  ["latency", "samples"].forEach(function (w) {
    drawFlame(w);
    var nodes = {}, root = null;
    flameDiv.selectAll("svg.flame g").each(function () {
      var p = this.getAttribute("data-path"), v = Number(this.getAttribute("data-v"));
      if (p === "") root = v;
      else if (p !== null) nodes[p] = v;
    });
    /* a big profile: its 2000 heaviest stacks */
    var keys = Object.keys(nodes);
    if (keys.length > 2000) {
      keys.sort(function (a, b) { return nodes[b] - nodes[a]; });
      var kept = {};
      keys.slice(0, 2000).forEach(function (k) { kept[k] = nodes[k]; });
      nodes = kept;
    }
    icicle[w] = { root: root, stacks: nodes };
  });
  d3.select("#flame-samples").classed("sel", true);

  /* ---- what the tables show, for the tests ---- */
  function cellv(sel) { var v = sel.attr("data-v"); return v === null ? null : Number(v); }
  var chk = { samples: cellv(d3.select('#t-summary td[data-k="total"]')), levels: {}, matrix: [], functions: {},
    sources: {}, icicle: icicle };
  d3.selectAll("#t-sources tbody tr").each(function () {
    chk.sources[this.cells[0].textContent] = Number(this.cells[1].getAttribute("data-v"));
  });
  d3.selectAll("#t-levels tbody tr").each(function () {
    chk.levels[this.cells[0].textContent] = Number(this.cells[1].getAttribute("data-v"));
  });
  d3.selectAll("#t-matrix tbody tr").each(function () {
    var row = [];
    d3.select(this).selectAll("td").each(function () { row.push(Number(this.getAttribute("data-v"))); });
    chk.matrix.push(row);
  });
  d3.selectAll("#t-funcs tbody tr").each(function () {
    chk.functions[this.cells[0].textContent] = Number(this.cells[2].getAttribute("data-v"));
  });
  /* the allocation sites' type column (--types): row "where samples" -> type */
  if (!d3.select("#t-allocs").empty() && d3.selectAll("#t-allocs thead th").size() > 7) {
    chk.alloc_types = {};
    d3.selectAll("#t-allocs tbody tr").each(function () {
      chk.alloc_types[this.cells[0].textContent + " " + this.cells[2].getAttribute("data-v")] = this.cells[7].textContent;
    });
  }
  if (!d3.select("#t-types").empty()) {
    chk.types = {};
    d3.selectAll("#t-types tbody tr").each(function () {
      chk.types[this.cells[0].textContent + " " + this.cells[2].textContent + " (" + this.cells[1].textContent + ")"] =
        Number(this.cells[4].getAttribute("data-v"));
    });
    chk.type_layouts = [];
    d3.selectAll("table[id^=t-layout-]").each(function () {
      chk.type_layouts.push(d3.select(this).selectAll("tbody tr:not(.line-boundary):not(.hole)").size());
    });
  }
  document.getElementById("pms-check").textContent = JSON.stringify(chk);
  document.getElementById("pms-status").textContent = errors.length ? "errors" : "rendered";
})();
