// The case list of the visioneval report: filters, sorting, pages, the image viewer.
// Reads the JSON in #report-data (see html_cases.py); builds every node with textContent, never innerHTML,
// so text from models and judges can never become markup.
(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const $ = (id) => document.getElementById(id);
  const images = data.images;
  const several = data.models.length > 1;
  const RANK = { error: 0, failed: 1, xpassed: 2, unknown: 3, passed: 4, xfailed: 5, skipped: 6 };
  const rank = (status) => (status in RANK ? RANK[status] : 3);

  // One group per case; with several models its records sit side by side, in model order.
  const groups = [];
  const byKey = new Map();
  for (const record of data.cases) {
    let group = byKey.get(record.key);
    if (!group) {
      group = { key: record.key, records: [] };
      byKey.set(record.key, group);
      groups.push(group);
    }
    group.records.push(record);
  }
  for (const group of groups) {
    group.records.sort((a, b) => data.models.indexOf(a.model) - data.models.indexOf(b.model));
  }

  const c = {
    text: $("f-text"), status: $("f-status"), suite: $("f-suite"), tag: $("f-tag"), model: $("f-model"),
    metric: $("f-metric"), min: $("f-min"), max: $("f-max"), sort: $("f-sort"), dir: $("f-dir"), size: $("f-size"),
  };
  const state = { page: 0, desc: false, rows: [] };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function haystack(r) {
    if (r.text === undefined) {
      const parts = [r.uid, r.model, r.prompt, r.criteria, r.error, r.message, r.reply, r.tags.join(" ")];
      for (const g of r.g) parts.push(g[0], g[3]);
      for (const reason of Object.values(r.mr)) parts.push(reason);
      r.text = parts.filter(Boolean).join("\n").toLowerCase();
    }
    return r.text;
  }

  function bound(input) {
    const text = input.value.trim();
    const value = text === "" ? null : Number(text);
    return Number.isFinite(value) ? value : null;
  }

  function filters() {
    return {
      words: c.text.value.trim().toLowerCase().split(/\s+/).filter(Boolean),
      status: c.status.value, suite: c.suite.value, tag: c.tag.value, model: c.model ? c.model.value : "",
      metric: c.metric.value === "" ? null : c.metric.value, min: bound(c.min), max: bound(c.max),
    };
  }

  function matches(r, f) {
    if (f.status === "failing" ? !(r.status === "failed" || r.status === "error") : f.status && r.status !== f.status) return false;
    if (f.suite && r.suite !== f.suite) return false;
    if (f.tag && !r.tags.includes(f.tag)) return false;
    if (f.model && r.model !== f.model) return false;
    if (f.metric !== null) {
      const v = r.v[f.metric];
      if (v === undefined || (f.min !== null && v < f.min) || (f.max !== null && v > f.max)) return false;
    }
    if (f.words.length) {
      const text = haystack(r);
      if (!f.words.every((w) => text.includes(w))) return false;
    }
    return true;
  }

  // The value a group sorts by; null sorts last in either direction.
  function sortValue(group, matching, key) {
    if (key === "uid") return group.key;
    if (key === "status") return Math.min(...matching.map((r) => rank(r.status)));
    if (key === "duration") {
      const d = matching.map((r) => r.duration).filter((v) => typeof v === "number");
      return d.length ? Math.max(...d) : null;
    }
    const [kind, index] = key.split(":");
    if (kind === "metric") {
      const r = matching.find((x) => x.v[index] !== undefined);
      return r ? r.v[index] : null;
    }
    const values = group.records.map((r) => r.v[index]).filter((v) => v !== undefined);
    return values.length > 1 ? Math.max(...values) - Math.min(...values) : null; // spread across models
  }

  function compare(a, b) {
    if (a.value === null || b.value === null) {
      if (a.value !== b.value) return a.value === null ? 1 : -1;
    } else if (a.value !== b.value) {
      return (a.value < b.value ? -1 : 1) * (state.desc ? -1 : 1);
    }
    return a.group.key < b.group.key ? -1 : a.group.key > b.group.key ? 1 : 0;
  }

  function apply() {
    const f = filters();
    const key = c.sort.value;
    const rows = [];
    for (const group of groups) {
      const matching = group.records.filter((r) => matches(r, f));
      if (matching.length) rows.push({ group, value: sortValue(group, matching, key) });
    }
    rows.sort(compare);
    state.rows = rows;
    state.page = 0;
    draw();
  }

  function draw() {
    const size = Number(c.size.value) || 50;
    const pages = Math.max(1, Math.ceil(state.rows.length / size));
    state.page = Math.min(Math.max(state.page, 0), pages - 1);
    const first = state.page * size;
    const sortKey = c.sort.value.startsWith("metric:") ? c.sort.value.slice(7) : null;
    $("case-list").replaceChildren(...state.rows.slice(first, first + size).map((row) => card(row.group, sortKey)));
    $("counter").textContent = `${state.rows.length} of ${groups.length} cases shown` + (several ? ` · ${data.models.length} models side by side` : "");
    for (const pager of document.querySelectorAll(".pager")) {
      pager.querySelector(".page-label").textContent = `page ${state.page + 1} of ${pages}`;
      pager.querySelector("[data-step='-1']").disabled = state.page === 0;
      pager.querySelector("[data-step='1']").disabled = state.page >= pages - 1;
    }
  }

  // -- one case --

  function figure(label, index) {
    const fig = el("figure");
    const [thumb, , width, height, note] = images[index];
    if (thumb) {
      const img = el("img", "thumb");
      img.loading = "lazy";
      img.decoding = "async";
      img.alt = label;
      img.title = width ? `${label} (${width}×${height}), click for full size` : label;
      img.dataset.image = String(index);
      img.src = thumb;
      fig.append(img, figcaption(null, label));
      if (note) fig.append(figcaption("note", note));
    } else {
      fig.append(el("div", "missing", note), figcaption(null, label));
    }
    return fig;
  }

  // A caption breaks between words ("area outside", never "area o / utside"); only a word wider
  // than the figure (a long file name) is broken inside. Set here, over the stylesheet's break-all.
  function figcaption(cls, text) {
    const node = el("figcaption", cls, text);
    node.style.wordBreak = "normal";
    node.style.overflowWrap = "anywhere";
    return node;
  }

  function figures(title, items) {
    const box = el("div", "figure-group");
    box.dataset.group = title;
    box.append(el("h4", null, title));
    const row = el("div", "figs");
    for (const [label, index] of items) row.append(figure(label, index));
    box.append(row);
    return box;
  }

  function table(header, rows, rowClass) {
    const t = el("table");
    const head = el("tr");
    for (const h of header) head.append(el("th", null, h));
    t.append(el("thead"));
    t.tHead.append(head);
    const body = el("tbody");
    rows.forEach((cells, i) => {
      const tr = el("tr", rowClass ? rowClass(i) : "");
      for (const cell of cells) tr.append(cell instanceof Node ? cell : el("td", null, cell));
      body.append(tr);
    });
    t.append(body);
    return t;
  }

  function fmt(value) {
    return Number.isInteger(value) ? String(value) : value.toFixed(4);
  }

  // With several models, each metric of the second and later models carries its difference to the first one's.
  function chips(r, sortKey, base) {
    const box = el("div", "chips");
    for (const [name, passed, gating] of r.g) {
      if (!passed) box.append(el("span", "chip " + (gating ? "failgate" : ""), `${name}: ${gating ? "FAIL" : "fail (not gating)"}`));
    }
    for (const [index, value] of Object.entries(r.v)) {
      const [name, higher] = data.metrics[index];
      const chip = el("span", "chip" + (index === sortKey ? " sorted" : ""), `${name} ${fmt(value)}`);
      chip.dataset.metric = index;
      if (base && base !== r && base.v[index] !== undefined && value !== base.v[index]) {
        const delta = value - base.v[index];
        const better = (delta > 0) === higher;
        chip.append(el("span", "delta " + (better ? "better" : "worse"), ` (${delta > 0 ? "+" : "−"}${fmt(Math.abs(delta))})`));
      }
      chip.title = (r.mr[index] || "") + (higher ? " (higher is better; click to sort)" : " (lower is better; click to sort)");
      box.append(chip);
    }
    return box;
  }

  function details(r) {
    const box = el("details", "details");
    box.append(el("summary", null, `details: ${r.g.length} gate(s), ${Object.keys(r.v).length} metric(s)`));
    box.addEventListener("toggle", () => {
      if (!box.open || box.dataset.filled) return;
      box.dataset.filled = "1";
      if (r.g.length) {
        const rows = r.g.map(([name, passed, gating, reason]) => [name, passed ? "pass" : gating ? "FAIL" : "fail (not gating)", reason]);
        box.append(table(["gate", "result", "reason"], rows, (i) => (!r.g[i][1] && r.g[i][2] ? "fail-gating" : "")));
      }
      const metricRows = Object.entries(r.v).map(([i, v]) => [data.metrics[i][0] + (data.metrics[i][1] ? " ↑" : " ↓"), fmt(v), r.mr[i] || ""]);
      if (metricRows.length) box.append(table(["metric", "value", "reason"], metricRows));
      if (r.skipped) box.append(table(["not graded", "why"], r.skipped));
      if (r.extra) box.append(table(["", ""], r.extra));
      if (r.files.length) box.append(el("p", "small", "other outputs: " + r.files.join(", ")));
      if (r.meta) box.append(el("p", "small", r.meta));
    });
    return box;
  }

  function recordView(r, sortKey, base) {
    const box = el("div", "record");
    box.dataset.model = r.model;
    box.dataset.status = r.status;
    if (several) {
      const head = el("div", "head");
      head.append(el("h4", null, r.model), el("span", "status " + r.status, r.status));
      if (typeof r.duration === "number") head.append(el("span", "small", `${r.duration.toFixed(2)} s`));
      box.append(head);
    }
    if (r.error) box.append(el("pre", "error", r.error));
    else if (r.message) box.append(el("pre", "message", r.message));
    if (r.reply) {
      const reply = el("details", "reply");
      reply.open = true;
      reply.append(el("summary", null, "the model's reply"), el("pre", null, r.reply));
      box.append(reply);
    }
    const outs = r.outs.concat(r.diff || []);
    if (outs.length) box.append(figures("outputs", outs));
    box.append(chips(r, sortKey, base), details(r));
    return box;
  }

  function card(group, sortKey) {
    const first = group.records[0];
    const worst = group.records.reduce((a, r) => (rank(r.status) < rank(a.status) ? r : a));
    const article = el("article", "case " + worst.status);
    article.dataset.uid = group.key;
    article.dataset.status = worst.status;
    const head = el("div", "head");
    head.append(el("h3", null, group.key));
    if (!several) head.append(el("span", "status " + first.status, first.status));
    for (const t of first.tags) {
      const tag = el("span", "tag", t);
      tag.dataset.tag = t;
      tag.title = "click to show this tag only";
      head.append(tag);
    }
    const meta = [first.suite, !several && typeof first.duration === "number" ? `${first.duration.toFixed(2)} s` : ""];
    head.append(el("span", "small", meta.filter(Boolean).join(" · ")));
    article.append(head);
    for (const [label, text] of [["prompt", first.prompt], ["criteria", first.criteria]]) {
      if (!text) continue;
      const p = el("div", "prompt");
      p.title = "click to show all";
      p.append(el("b", null, label + ": "), document.createTextNode(text));
      article.append(p);
    }
    const shared = el("div", "shared");
    if (first.inputs.length) shared.append(figures("inputs", first.inputs));
    if (first.refs.length) shared.append(figures("references", first.refs));
    if (shared.childElementCount) article.append(shared);
    if (first.refnote) article.append(el("p", "small", first.refnote));
    const models = el("div", "models" + (several ? " many" : ""));
    for (const r of group.records) models.append(recordView(r, sortKey, several ? first : null));
    article.append(models);
    return article;
  }

  // -- events --

  for (const name of ["status", "suite", "tag", "model", "metric", "sort", "size"]) {
    if (c[name]) c[name].addEventListener("change", name === "size" ? draw : apply);
  }
  for (const name of ["text", "min", "max"]) c[name].addEventListener("input", apply);
  c.dir.addEventListener("click", () => {
    state.desc = !state.desc;
    c.dir.textContent = state.desc ? "descending" : "ascending";
    c.dir.setAttribute("aria-pressed", String(state.desc));
    apply();
  });
  $("f-reset").addEventListener("click", () => {
    for (const name of ["text", "min", "max"]) c[name].value = "";
    for (const name of ["status", "suite", "tag", "model", "metric"]) if (c[name]) c[name].value = "";
    c.sort.value = "uid";
    state.desc = false;
    c.dir.textContent = "ascending";
    apply();
  });
  for (const pager of document.querySelectorAll(".pager")) {
    pager.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-step]");
      if (!button) return;
      state.page += Number(button.dataset.step);
      draw();
      $("cases").scrollIntoView();
    });
  }

  const box = $("lightbox");
  const big = box.querySelector("img");
  const caption = box.querySelector(".caption");
  const original = box.querySelector("a");
  let gallery = [];
  let at = 0;
  function show(index) {
    at = (index + gallery.length) % gallery.length;
    const thumb = gallery[at];
    const [, full, width, height, note] = images[Number(thumb.dataset.image)];
    big.src = full;
    big.alt = thumb.alt;
    big.classList.remove("actual");
    caption.textContent = [thumb.alt, width ? `${width}×${height}` : "", note, `${at + 1} of ${gallery.length}`].filter(Boolean).join(" · ");
    original.href = full;
    original.hidden = full.startsWith("data:");
    box.hidden = false;
  }

  document.addEventListener("click", (event) => {
    const target = event.target;
    const thumb = target.closest("img.thumb");
    if (thumb) {
      gallery = Array.from(thumb.closest("article").querySelectorAll("img.thumb"));
      show(gallery.indexOf(thumb));
      return;
    }
    if (!box.hidden) {
      if (target === big) big.classList.toggle("actual");
      else if (!target.closest("a")) box.hidden = true;
      return;
    }
    const chip = target.closest(".chip[data-metric]");
    if (chip) {
      c.sort.value = "metric:" + chip.dataset.metric;
      apply();
      return;
    }
    const tag = target.closest(".tag[data-tag]");
    if (tag) {
      c.tag.value = tag.dataset.tag;
      apply();
      return;
    }
    const prompt = target.closest(".prompt");
    if (prompt) prompt.classList.add("open");
  });
  document.addEventListener("keydown", (event) => {
    if (box.hidden) return;
    if (event.key === "Escape") box.hidden = true;
    else if (event.key === "ArrowRight") show(at + 1);
    else if (event.key === "ArrowLeft") show(at - 1);
  });

  apply();
  document.body.dataset.ready = "1";
})();
