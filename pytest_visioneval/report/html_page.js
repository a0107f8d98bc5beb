// The script of every visioneval page. Sortable tables; labels for judge calibration (kept in the browser, exported and
// merged as CSV); on the pairwise page, labelling its verdicts; then, in the report, the case list: a dense table (one
// row per case) or cards, filters, sorting and pages kept in the URL fragment, one case's card, the image viewer, and
// labels of the judges' decisions. Reads the JSON in #report-data (see html_cases.py); builds every node with
// textContent, never innerHTML, so text from models and judges can never become markup.
(() => {
  "use strict";
  // Every page (report, compare, pairwise): click a header of a table.sortable to sort by its column
  // (numbers by value, the rest as text); click again to reverse.
  for (const th of document.querySelectorAll("table.sortable th")) {
    th.addEventListener("click", () => {
      const table = th.closest("table"), body = table.tBodies[0];
      const column = Array.from(th.parentNode.children).indexOf(th);
      const descending = th.dataset.order !== "desc";
      th.parentNode.querySelectorAll("th").forEach((h) => delete h.dataset.order);
      th.dataset.order = descending ? "desc" : "asc";
      const key = (row) => {
        const cell = row.children[column];
        const sort = cell.dataset.sort ?? cell.textContent.trim();
        const number = Number(sort);
        return sort !== "" && !Number.isNaN(number) ? number : sort.toLowerCase();
      };
      const rows = Array.from(body.rows).sort((x, y) => {
        const a = key(x), b = key(y);
        const order = typeof a === typeof b ? (a < b ? -1 : a > b ? 1 : 0) : typeof a === "number" ? -1 : 1;
        return descending ? -order : order;
      });
      rows.forEach((row) => body.appendChild(row));
    });
  }

  // -- labels, on the report and the pairwise page: one person's own labels and other raters' merged ones, kept in
  // localStorage under the page's document (so the static file works offline and a reload keeps them), exported and
  // merged as the CSV case,name,label,rater that `agreement` reads. A label's id is JSON [case, name].

  function newStore() {
    return { rater: "", own: {}, others: [] };
  }

  function loadStore(key, note) {
    try {
      const saved = JSON.parse(localStorage.getItem(key) || "null");
      if (saved && typeof saved.own === "object" && Array.isArray(saved.others)) return saved;
    } catch (error) {
      note(`the saved labels cannot be read (${error.message}); starting afresh`);
    }
    return newStore();
  }

  function saveStore(key, store, note) {
    try {
      localStorage.setItem(key, JSON.stringify(store));
    } catch (error) {
      note(`labels not saved in this browser (${error.message}): export them`);
    }
  }

  function csvField(value) {
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  }

  // Downloads the CSV: own labels under the rater's name, then the merged ones; says how many it wrote.
  function exportStore(store, stem, note) {
    const rater = store.rater || "rater";
    const lines = [["case", "name", "label", "rater"]];
    for (const [id, value] of Object.entries(store.own)) {
      const [lk, name] = JSON.parse(id);
      lines.push([lk, name, value, rater]);
    }
    for (const row of store.others) lines.push(row);
    const text = lines.map((line) => line.map(csvField).join(",")).join("\r\n") + "\r\n";
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
    link.download = `labels-${stem}-${rater}.csv`.replace(/[^\w.-]+/g, "_");
    document.body.append(link);
    link.click();
    link.remove();
    note(`exported ${lines.length - 1} label(s)`);
  }

  // RFC 4180: fields in double quotes may hold commas, quotes ("") and line breaks.
  function parseCsv(text) {
    const rows = [];
    let row = [], field = "", quoted = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') field += text[++i];
        else if (ch === '"') quoted = false;
        else field += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ",") {
        row.push(field);
        field = "";
      } else if (ch === "\n" || ch === "\r") {
        if (ch === "\r" && text[i + 1] === "\n") i++;
        row.push(field);
        rows.push(row);
        row = [];
        field = "";
      } else field += ch;
    }
    if (field !== "" || row.length) rows.push(row.concat(field));
    return rows.filter((r) => r.some((f) => f.trim() !== ""));
  }

  // A CSV of case,name,label[,rater]: another person's labels join the export; rows under this page's rater are its own.
  // Returns what to tell the person, and whether the store changed.
  function mergeIntoStore(store, name, text) {
    const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ""));
    const column = Object.fromEntries((header || []).map((h, i) => [h.trim(), i]));
    const missing = ["case", "name", "label"].filter((k) => !(k in column));
    if (missing.length) {
      return { changed: false, message: `${name}: missing column(s) ${missing.join(", ")} (need case, name, label; rater optional)` };
    }
    const fallback = name.replace(/\.csv$/i, "");
    const raters = new Set();
    let own = 0, other = 0;
    for (const row of rows) {
      const [lk, labelName, label] = ["case", "name", "label"].map((k) => (row[column[k]] || "").trim());
      const rater = ("rater" in column ? (row[column.rater] || "").trim() : "") || fallback;
      if (!lk || !labelName) continue;
      if (rater === (store.rater || "rater")) {
        store.own[JSON.stringify([lk, labelName])] = label;
        own++;
        continue;
      }
      store.others = store.others.filter((o) => !(o[0] === lk && o[1] === labelName && o[3] === rater));
      store.others.push([lk, labelName, label, rater]);
      raters.add(rater);
      other++;
    }
    const message = `merged ${name}: ${other} label(s) of ${[...raters].join(", ") || "nobody else"}` + (own ? `, ${own} of yours` : "");
    return { changed: true, message };
  }

  // The label bar's rater field, export button and merge field (templates/macros.html.j2 label_bar).
  function bindLabelBar(store, save, exportLabels, merged) {
    const rater = document.getElementById("l-rater");
    const input = document.getElementById("l-import");
    rater.value = store.rater;
    rater.addEventListener("input", () => {
      store.rater = rater.value.trim();
      save();
    });
    document.getElementById("l-export").addEventListener("click", exportLabels);
    input.addEventListener("change", () => {
      const file = input.files[0];
      if (!file) return;
      const reader = new FileReader();
      reader.onload = () => merged(file.name, String(reader.result));
      reader.onerror = () => merged(file.name, null, `${file.name}: cannot read (${reader.error})`);
      reader.readAsText(file);
      input.value = "";
    });
  }

  // -- the pairwise page: a person says which output is better (A, B or a tie) for each verdict --

  const PREFERRED = { a: "A better", b: "B better", tie: "a tie" };

  function pairwiseLabels(root) {
    const rows = Array.from(root.querySelectorAll("tr.pair-item"));
    const key = "visioneval-pair-labels:" + root.dataset.pairwiseId;
    const note = (text) => (document.getElementById("l-note").textContent = text);
    const idOf = (row) => JSON.stringify([row.dataset.case, row.dataset.name]);
    const store = loadStore(key, note);
    let current = -1;

    function progress() {
      const done = rows.filter((row) => idOf(row) in store.own).length;
      document.getElementById("l-progress").textContent = `${done} of ${rows.length} labelled`;
    }
    function save() {
      saveStore(key, store, note);
      progress();
    }
    // The judge's verdict shows once the person has answered, so it cannot sway them.
    function show(row) {
      const value = store.own[idOf(row)];
      row.classList.toggle("labelled", value !== undefined);
      for (const button of row.querySelectorAll("button[data-answer]")) {
        button.setAttribute("aria-pressed", String(button.dataset.answer === value));
      }
      const same = value === row.dataset.judged ? " (as the judge)" : " (the judge differs)";
      row.querySelector(".mine").textContent = value === undefined ? "" : `you: ${PREFERRED[value] || value}${same}`;
    }
    function moveTo(index) {
      if (!rows.length) return;
      current = Math.min(Math.max(index, 0), rows.length - 1);
      rows.forEach((row, i) => row.classList.toggle("current", i === current));
      rows[current].scrollIntoView({ block: "nearest" });
    }
    function answer(row, value) {
      store.own[idOf(row)] = value;
      save();
      show(row);
    }

    bindLabelBar(store, save, () => exportStore(store, root.dataset.pairwiseId, note), (name, text, problem) => {
      if (text === null) return note(problem);
      const done = mergeIntoStore(store, name, text);
      if (done.changed) {
        save();
        rows.forEach(show);
      }
      note(done.message);
    });
    document.getElementById("l-start").addEventListener("click", () => {
      const first = rows.findIndex((row) => !(idOf(row) in store.own));
      moveTo(first < 0 ? 0 : first);
    });
    root.addEventListener("click", (event) => {
      const button = event.target.closest("tr.pair-item button[data-answer]");
      if (!button) return;
      const row = button.closest("tr.pair-item");
      moveTo(rows.indexOf(row));
      answer(row, button.dataset.answer);
    });
    const KEYS = { a: "a", b: "b", t: "tie" };
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.target.closest("input, select, textarea")) return;
      if (event.key === "j") moveTo(current + 1);
      else if (event.key === "k") moveTo(current < 0 ? 0 : current - 1);
      else if (event.key in KEYS && rows.length) {
        if (current < 0) moveTo(0);
        answer(rows[current], KEYS[event.key]);
        moveTo(current + 1);
      } else return;
      event.preventDefault();
    });
    rows.forEach(show);
    progress();
  }

  const pairLabels = document.getElementById("pair-labels");
  if (pairLabels) pairwiseLabels(pairLabels);

  const source = document.getElementById("report-data");
  if (!source) {
    document.body.dataset.ready = "1"; // compare and pairwise: no case list
    return;
  }
  const data = JSON.parse(source.textContent);
  const $ = (id) => document.getElementById(id);
  const images = data.images;
  const several = data.models.length > 1;
  const RANK = { error: 0, failed: 1, xpassed: 2, unknown: 3, passed: 4, xfailed: 5, skipped: 6 };
  const rank = (status) => (status in RANK ? RANK[status] : 3);
  const TABLE_FROM = 30; // cases from which the table, not the cards, is the first view
  const TABLE_METRICS = 6; // metric columns of the table (the sorted or filtered one always among them)

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
    view: $("f-view"),
  };
  c.view.value = groups.length >= TABLE_FROM ? "table" : "cards";
  const state = { page: 0, desc: false, rows: [], open: "", item: "" };

  // -- the URL fragment: filters, sort, page, view and the open case, so a link opens the same view --

  const FIELDS = { q: "text", status: "status", suite: "suite", tag: "tag", model: "model", metric: "metric",
    min: "min", max: "max", sort: "sort", size: "size", view: "view" };
  const defaults = {};
  for (const name of Object.values(FIELDS)) if (c[name]) defaults[name] = c[name].value;

  function writeHash() {
    const p = new URLSearchParams();
    for (const [key, name] of Object.entries(FIELDS)) {
      if (c[name] && c[name].value !== defaults[name]) p.set(key, c[name].value);
    }
    if (state.desc) p.set("desc", "1");
    if (state.page) p.set("page", String(state.page + 1));
    if (state.open) p.set("case", state.open);
    const hash = p.toString();
    if (hash !== location.hash.slice(1)) history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
  }

  // The page (0-based) the fragment names; null when the fragment is no view (a plain anchor such as #cases).
  function readHash() {
    const text = location.hash.slice(1);
    if (!text.includes("=")) return null;
    const p = new URLSearchParams(text);
    for (const [key, name] of Object.entries(FIELDS)) {
      if (!c[name]) continue;
      c[name].value = p.has(key) ? p.get(key) : defaults[name];
      if (c[name].tagName === "SELECT" && c[name].selectedIndex < 0) c[name].value = defaults[name]; // an unknown value
    }
    setDirection(p.get("desc") === "1");
    state.open = p.get("case") || "";
    const page = Number(p.get("page") || "1");
    return Number.isInteger(page) && page > 0 ? page - 1 : 0;
  }

  function setDirection(desc) {
    state.desc = desc;
    c.dir.textContent = desc ? "descending" : "ascending";
    c.dir.setAttribute("aria-pressed", String(desc));
  }

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

  function apply(page = 0) {
    const f = filters();
    const key = c.sort.value;
    const rows = [];
    for (const group of groups) {
      const matching = group.records.filter((r) => matches(r, f));
      if (matching.length) rows.push({ group, value: sortValue(group, matching, key) });
    }
    rows.sort(compare);
    state.rows = rows;
    state.page = page;
    draw();
  }

  function draw() {
    const size = Number(c.size.value) || 50;
    const pages = Math.max(1, Math.ceil(state.rows.length / size));
    state.page = Math.min(Math.max(state.page, 0), pages - 1);
    const first = state.page * size;
    const sortKey = c.sort.value.startsWith("metric:") ? c.sort.value.slice(7) : null;
    const opened = state.open ? byKey.get(state.open) : null;
    if (state.open && !opened) state.open = "";
    if (opened) {
      const back = el("button", "back", "‹ back to the list");
      back.type = "button";
      back.id = "back";
      $("case-list").replaceChildren(back, card(opened, sortKey));
    } else if (c.view.value === "table") {
      $("case-list").replaceChildren(caseTable(state.rows.slice(first, first + size), sortKey));
    } else {
      $("case-list").replaceChildren(...state.rows.slice(first, first + size).map((row) => card(row.group, sortKey)));
    }
    $("counter").textContent = `${state.rows.length} of ${groups.length} cases shown` + (several ? ` · ${data.models.length} models side by side` : "");
    for (const pager of document.querySelectorAll(".pager")) {
      pager.hidden = Boolean(opened);
      pager.querySelector(".page-label").textContent = `page ${state.page + 1} of ${pages}`;
      pager.querySelector("[data-step='-1']").disabled = state.page === 0;
      pager.querySelector("[data-step='1']").disabled = state.page >= pages - 1;
    }
    markCurrentItem();
    writeHash();
  }

  // -- the table: one row per case, a column of outputs per model --

  function tableMetrics(sortKey) {
    const chosen = [];
    const wanted = [sortKey, c.metric.value].filter((i) => i !== null && i !== "");
    for (const i of wanted) if (!chosen.includes(i)) chosen.push(i);
    data.metrics.forEach(([name], i) => {
      if (chosen.length < TABLE_METRICS && !name.endsWith(".std") && !chosen.includes(String(i))) chosen.push(String(i));
    });
    return chosen;
  }

  function headerCell(text, sortKey, title) {
    const th = el("th", sortKey ? "sortable" : "", text);
    if (sortKey) {
      th.dataset.sortKey = sortKey;
      th.title = title || "click to sort";
      if (c.sort.value === sortKey) th.classList.add(state.desc ? "desc" : "asc");
    }
    return th;
  }

  function thumbs(r, limit) {
    const box = el("div", "mini-figs");
    for (const [label, index] of r.outs.concat(r.diff || []).slice(0, limit)) {
      const [thumb, , , , note] = images[index];
      if (!thumb) {
        box.append(el("span", "missing mini", note || label));
        continue;
      }
      const img = el("img", "thumb mini");
      img.loading = "lazy";
      img.decoding = "async";
      img.alt = several ? `${r.model}: ${label}` : label;
      img.title = `${img.alt}, click for full size`;
      img.dataset.image = String(index);
      img.src = thumb;
      box.append(img);
    }
    return box;
  }

  function caseTable(rows, sortKey) {
    const metrics = tableMetrics(sortKey);
    const t = el("table", "case-table");
    const head = el("tr");
    head.append(headerCell("case", "uid"), headerCell("status", "status", "click to sort, worst first"));
    for (const model of several ? data.models : [""]) head.append(el("th", "outputs", several ? model : "outputs"));
    head.append(el("th", null, "failed gates"));
    for (const i of metrics) {
      const [name, higher] = data.metrics[i];
      head.append(headerCell(`${name} ${higher ? "↑" : "↓"}`, `metric:${i}`));
    }
    head.append(headerCell("s", "duration", "seconds; click to sort"));
    t.append(el("thead"));
    t.tHead.append(head);
    const body = el("tbody");
    for (const { group } of rows) {
      const worst = group.records.reduce((a, r) => (rank(r.status) < rank(a.status) ? r : a));
      const tr = el("tr", "case-row " + worst.status);
      tr.dataset.uid = group.key;
      tr.title = "click to open the case";
      const name = el("td", "uid");
      name.append(el("a", null, group.key));
      name.firstChild.href = "#case=" + encodeURIComponent(group.key);
      tr.append(name);
      const status = el("td", "statuses");
      for (const r of group.records) status.append(el("span", "status " + r.status, several ? `${r.model}: ${r.status}` : r.status));
      tr.append(status);
      for (const model of several ? data.models : [null]) {
        const cell = el("td", "outputs");
        const r = model === null ? group.records[0] : group.records.find((x) => x.model === model);
        if (r) cell.append(thumbs(r, 2));
        tr.append(cell);
      }
      const failed = [];
      for (const r of group.records) {
        for (const [gate, passed, gating] of r.g) if (!passed) failed.push((several ? r.model + ": " : "") + gate + (gating ? "" : " (not gating)"));
        if (r.error) failed.push((several ? r.model + ": " : "") + "error");
      }
      tr.append(el("td", "gates", failed.join(", ")));
      for (const i of metrics) {
        const values = group.records.map((r) => (r.v[i] === undefined ? "–" : fmt(r.v[i])));
        const td = el("td", "num" + (`metric:${i}` === c.sort.value ? " sorted" : ""), values.join(" / "));
        td.title = group.records.map((r) => (several ? r.model + ": " : "") + (r.mr[i] || "")).filter((x) => x.trim()).join("\n");
        tr.append(td);
      }
      const seconds = group.records.map((r) => (typeof r.duration === "number" ? r.duration.toFixed(1) : "–"));
      tr.append(el("td", "num", seconds.join(" / ")));
      body.append(tr);
    }
    t.append(body);
    return t;
  }

  function openCase(key) {
    state.open = key;
    draw();
    $("cases").scrollIntoView();
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
    box.append(chips(r, sortKey, base));
    if (r.j.length) box.append(labelPanel(r));
    box.append(details(r));
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

  // -- labels: people mark what the judges decided, for `agreement` and --eval-labels --
  // One item per judged name of a record (html_cases.judged_items). Labels stay in localStorage under the run id,
  // so the static file works offline and a reload keeps them; they export as case,name,label,rater.

  const STORE = "visioneval-labels:" + (data.run || location.pathname);
  const allItems = [];
  const itemById = new Map();
  for (const group of groups) {
    for (const r of group.records) {
      for (const [name, kind, judged, text] of r.j) {
        const item = { id: JSON.stringify([r.lk, name]), group, record: r, name, kind, judged, text };
        allItems.push(item);
        itemById.set(item.id, item);
      }
    }
  }
  let store = newStore();

  function saveLabels() {
    saveStore(STORE, store, note);
    progress();
  }

  function note(text) {
    $("l-note").textContent = text;
  }

  function progress() {
    const done = allItems.filter((item) => item.id in store.own).length;
    $("l-progress").textContent = `${done} of ${allItems.length} labelled`;
  }

  function judgedText(item) {
    return item.kind === "b" ? (item.judged ? "yes" : "no") : fmt(item.judged);
  }

  function labelPanel(r) {
    const box = el("div", "labels");
    box.append(el("h4", null, "label the judge"));
    for (const [name] of r.j) {
      const item = itemById.get(JSON.stringify([r.lk, name]));
      const row = el("div", "label-item");
      row.dataset.labelId = item.id;
      row.append(el("span", "label-name", item.name), el("span", "judged", `judge: ${judgedText(item)}`));
      if (item.kind === "b") {
        for (const [answer, key] of [["agree", "y"], ["disagree", "n"]]) {
          const button = el("button", answer, `${answer} (${key})`);
          button.type = "button";
          button.dataset.answer = answer;
          row.append(button);
        }
      } else {
        const input = el("input", "score");
        input.type = "number";
        input.step = "any";
        input.placeholder = "your score";
        input.addEventListener("change", () => {
          state.item = item.id;
          setLabel(item, input.value.trim());
        });
        row.append(input);
      }
      row.append(el("span", "mine"), el("div", "small why", item.text));
      box.append(row);
      showLabel(row, item);
    }
    return box;
  }

  function showLabel(row, item) {
    const value = store.own[item.id];
    const mine = row.querySelector(".mine");
    row.classList.toggle("labelled", value !== undefined);
    if (value === undefined) mine.textContent = "";
    else if (item.kind === "b") mine.textContent = `you: ${value}` + (value === judgedText(item) ? " (agree)" : " (disagree)");
    else {
      mine.textContent = `you: ${value}`;
      row.querySelector("input.score").value = value;
    }
  }

  function setLabel(item, value) {
    if (value === "") delete store.own[item.id];
    else store.own[item.id] = value;
    saveLabels();
    const row = document.querySelector(`.label-item[data-label-id="${CSS.escape(item.id)}"]`);
    if (row) showLabel(row, item);
  }

  function answerItem(item, agree) {
    if (item.kind !== "b") return;
    const judged = Boolean(item.judged);
    setLabel(item, judged === agree ? "yes" : "no");
    step(1);
  }

  // The items of the cases the filters leave, in the list's order.
  function queue() {
    return state.rows.flatMap((row) => allItems.filter((item) => item.group === row.group));
  }

  function step(by) {
    const items = queue();
    if (!items.length) return;
    const at = items.findIndex((item) => item.id === state.item);
    const next = items[at < 0 ? (by > 0 ? 0 : items.length - 1) : Math.min(Math.max(at + by, 0), items.length - 1)];
    state.item = next.id;
    if (state.open !== next.group.key) {
      state.open = next.group.key;
      draw();
    } else markCurrentItem();
    const row = document.querySelector(".label-item.current");
    if (row) row.scrollIntoView({ block: "nearest" });
  }

  function markCurrentItem() {
    for (const row of document.querySelectorAll(".label-item")) row.classList.toggle("current", row.dataset.labelId === state.item);
  }

  function labelKey(event) {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey || target.closest("input, select, textarea")) return;
    if (event.key === "Escape" && state.open) {
      state.open = "";
      draw();
      return;
    }
    if (!allItems.length) return;
    const item = itemById.get(state.item);
    if (event.key === "j") step(1);
    else if (event.key === "k") step(-1);
    else if ((event.key === "y" || event.key === "n") && item && state.open === item.group.key) answerItem(item, event.key === "y");
    else if (/^[0-9]$/.test(event.key) && item && item.kind === "n" && state.open === item.group.key) {
      setLabel(item, event.key);
      step(1);
    } else return;
    event.preventDefault();
  }

  function setupLabels() {
    if (!allItems.length) return;
    $("labelbar").hidden = false;
    store = loadStore(STORE, note);
    bindLabelBar(store, saveLabels, () => exportStore(store, data.run || "run", note), (name, text, problem) => {
      if (text === null) return note(problem);
      const done = mergeIntoStore(store, name, text);
      if (done.changed) {
        saveLabels();
        draw();
      }
      note(done.message);
    });
    $("l-start").addEventListener("click", () => {
      state.item = "";
      step(1);
    });
    progress();
  }

  // -- events --

  for (const name of ["status", "suite", "tag", "model", "metric", "sort", "size"]) {
    if (c[name]) c[name].addEventListener("change", () => (name === "size" ? draw() : apply()));
  }
  for (const name of ["text", "min", "max"]) c[name].addEventListener("input", () => apply());
  c.dir.addEventListener("click", () => {
    setDirection(!state.desc);
    apply();
  });
  c.view.addEventListener("change", () => {
    state.open = "";
    draw();
  });
  window.addEventListener("hashchange", () => {
    const page = readHash();
    if (page !== null) apply(page);
  });
  $("f-reset").addEventListener("click", () => {
    for (const name of ["text", "min", "max"]) c[name].value = "";
    for (const name of ["status", "suite", "tag", "model", "metric"]) if (c[name]) c[name].value = "";
    c.sort.value = "uid";
    state.open = "";
    setDirection(false);
    apply();
  });
  for (const pager of document.querySelectorAll(".pager")) {
    pager.addEventListener("click", (event) => {
      const button = event.target.closest("button[data-step]");
      if (!button) return;
      state.page += Number(button.dataset.step);
      state.open = "";
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
      gallery = Array.from(thumb.closest("article, tr").querySelectorAll("img.thumb"));
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
    const th = target.closest("th[data-sort-key]");
    if (th) {
      if (c.sort.value === th.dataset.sortKey) setDirection(!state.desc);
      else {
        c.sort.value = th.dataset.sortKey;
        setDirection(false);
      }
      apply();
      return;
    }
    const row = target.closest("tr.case-row");
    if (row) {
      event.preventDefault();
      openCase(row.dataset.uid);
      return;
    }
    if (target.closest("#back")) {
      state.open = "";
      draw();
      return;
    }
    const answer = target.closest(".label-item button[data-answer]");
    if (answer) {
      const item = itemById.get(answer.closest(".label-item").dataset.labelId);
      state.item = item.id;
      answerItem(item, answer.dataset.answer === "agree");
    }
  });
  document.addEventListener("keydown", (event) => {
    if (box.hidden) {
      labelKey(event);
      return;
    }
    if (event.key === "Escape") box.hidden = true;
    else if (event.key === "ArrowRight") show(at + 1);
    else if (event.key === "ArrowLeft") show(at - 1);
  });

  setupLabels();
  apply(readHash() || 0);
  document.body.dataset.ready = "1";
})();
