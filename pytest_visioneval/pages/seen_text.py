"""Which text of a rendered page a person sees at the capture, and why the rest is not seen.

Run by :mod:`render` in its isolated world, right after the captures, with the page's scripts paused (so
nothing moves while it looks). Each text node of ``<body>`` is judged where it is painted: the Range over
the node gives its line boxes, and at the centre of up to three of them the browser is asked what is on
top (``document.elementsFromPoint``), first as the viewport capture sees the page, then, for a point
outside the viewport or under something, with the window scrolled to put it in the middle of the
viewport (as a person who scrolls sees it: a sticky header or a cookie bar does not hide what scrolls
out from under it; a fixed overlay still does). A node is seen when at least half of its points are.

A node is not seen when it is

* ``hidden``: not rendered (``display: none``, ``visibility: hidden``, ``opacity: 0``,
  ``content-visibility: hidden`` on it or an ancestor, a closed ``<details>``), or without size;
* ``covered``: another element with an opaque background (alpha of at least 0.5, a background image,
  an image, a video, a canvas, a frame, a backdrop filter) and an opacity of at least 0.5 is on top;
  a transparent element on top (a decorative gradient with ``pointer-events: none``) hides nothing.
  ``pointer-events: none`` is lifted for the measurement, so an overlay cannot hide from the hit test;
* ``clipped``: cut away by an ancestor's ``overflow: hidden`` / ``clip`` / ``clip-path``;
* ``off-screen``: where no scrolling brings it (``left: -9999px``);
* ``faint``: painted in the colour of what is beneath it (no channel more than 16 of 255 apart, the
  tolerance ``render_check`` uses for blank captures), its colour's alpha and its opacity blended in.
  Text over an image or a gradient, with a shadow or a stroke, or painted by ``background-clip: text``
  is taken as seen.

Also measured: every rendered ``<table>``: its header cells (of ``<thead>`` rows and rows of ``<th>`` only,
plus a caption), its body cells (the other cells outside ``<tfoot>``) and how many of those show something
(seen text, or a rendered image, control or canvas).
"""

from __future__ import annotations

from typing import Any

MAX_NODES = 4000  # text nodes judged by hit-testing; past it, by their style alone (counted in chars["unjudged"])
MAX_UNSEEN = 1000  # unseen text nodes listed (the character counts are exact)
MAX_UNSEEN_TEXT = 160  # characters of each listed node
MAX_TABLES = 50
MAX_FIRST_SCREEN = 4000  # characters of the text seen on the first screen (render_check's text_legible reads it back)
MAX_LISTED = 10
# Scroll positions the text below the first screen is judged at (each costs a layout and a hit test of the page);
# on a longer page, these are spread over it and the rest is judged by its style alone (chars["unjudged"]).
MAX_BANDS = 12  # hidden blocks and covering elements listed, the largest first

SEEN_JS = r"""
((maxText, maxNodes, maxUnseen, maxUnseenText, maxTables, maxListed, maxBands) => {
  const docGet = (key) => Reflect.apply(Object.getOwnPropertyDescriptor(Document.prototype, key).get, document, []);
  const all = (selector) => Array.from(Reflect.apply(Document.prototype.querySelectorAll, document, [selector]));
  const stackAt = (x, y) => Reflect.apply(Document.prototype.elementsFromPoint, document, [x, y]);
  const root = docGet('documentElement');
  const body = docGet('body') || root;
  // The viewport less its scrollbars: the root's client box, or the body's in quirks mode (a page without a doctype).
  const scroller = docGet('compatMode') === 'CSS1Compat' ? root : body;
  const vw = Math.min(scroller.clientWidth || innerWidth, innerWidth);
  const vh = Math.min(scroller.clientHeight || innerHeight, innerHeight);
  const startX = scrollX, startY = scrollY;
  const started = performance.now();
  const styles = new Map();
  const cs = (el) => { let s = styles.get(el); if (!s) { s = getComputedStyle(el); styles.set(el, s); } return s; };
  const label = (el) => {
    const tag = el.tagName.toLowerCase();
    const id = el.getAttribute('id');
    if (id) return tag + '#' + id.slice(0, 40);
    const classes = (el.getAttribute('class') || '').trim().split(/\s+/).filter(Boolean).slice(0, 2);
    return tag + classes.map((c) => '.' + c.slice(0, 30)).join('');
  };
  // Lifted for the measurement: the hit test skips pointer-events:none, an overlay could hide behind it.
  for (const el of all('*')) {
    if (cs(el).pointerEvents === 'none') el.style.setProperty('pointer-events', 'auto', 'important');
  }
  // The same for what ::before and ::after paint (a sheet of the measurement's own; CSP does not govern it).
  const lifting = new CSSStyleSheet();
  lifting.replaceSync('*::before, *::after { pointer-events: auto !important; }');
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, lifting];
  const seen = (el) => el.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const whyHidden = (el) => {  // the outermost element that hides el
    let found = null;
    for (let e = el; e; e = e.parentElement) {
      const s = cs(e);
      if (s.display === 'none') found = {el: e, why: 'display:none'};
      else if (s.contentVisibility === 'hidden' && e !== el) found = {el: e, why: 'content-visibility:hidden'};
      else if (Number(s.opacity) === 0) found = {el: e, why: 'opacity:0'};
    }
    if (found) return found;
    if (cs(el).visibility !== 'visible') {
      let top = el;
      for (let e = el.parentElement; e && cs(e).visibility !== 'visible'; e = e.parentElement) top = e;
      return {el: top, why: 'visibility:' + cs(el).visibility};
    }
    const details = el.closest('details:not([open])');
    if (details) return {el: details, why: 'inside a closed <details>'};
    return {el, why: 'not rendered'};
  };
  const opacityOf = new Map();
  const opacity = (el) => {  // effective: the product over the ancestors
    if (!el) return 1;
    let o = opacityOf.get(el);
    if (o === undefined) { o = Number(cs(el).opacity) * opacity(el.parentElement); opacityOf.set(el, o); }
    return o;
  };
  const rgba = (text) => {
    const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(text || '');
    return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
  };
  const MEDIA = new Set(['IMG', 'VIDEO', 'CANVAS', 'IFRAME', 'OBJECT', 'EMBED', 'svg', 'PICTURE']);
  // A computed style that fills its box: a background image, a backdrop filter, a background colour of alpha 0.5+.
  const fills = (s) => {
    const bg = rgba(s.backgroundColor);
    return s.backgroundImage !== 'none' || (s.backdropFilter && s.backdropFilter !== 'none') || (bg !== null && bg[3] >= 0.5);
  };
  const opaque = (el) => MEDIA.has(el.tagName) || fills(cs(el));
  // The ::before or ::after of el that could cover what lies beneath it: laid out apart from the flow
  // (absolute, fixed, sticky), opaque by opaque()'s rule, opacity 0.5 or more. Null when el has none.
  const pseudoCovers = new Map();
  const pseudoCover = (el) => {
    let found = pseudoCovers.get(el);
    if (found !== undefined) return found;
    found = null;
    for (const pseudo of ['::after', '::before']) {
      const s = getComputedStyle(el, pseudo);
      if (['none', 'normal'].includes(s.content) || s.display === 'none' || s.visibility !== 'visible') continue;
      if (!['absolute', 'fixed', 'sticky'].includes(s.position)) continue;
      if (!fills(s) || Number(s.opacity) * opacity(el) < 0.5) continue;
      // Used sizes in px of a laid-out pseudo-element; its border box, as an element's area() measures it.
      const edges = (a, b) => (s.boxSizing === 'border-box' ? 0
        : parseFloat(s['padding' + a]) + parseFloat(s['padding' + b])
          + parseFloat(s[`border${a}Width`]) + parseFloat(s[`border${b}Width`]));
      const w = parseFloat(s.width) + edges('Left', 'Right'), h = parseFloat(s.height) + edges('Top', 'Bottom');
      const share = w > 0 && h > 0 ? Math.min(1, Math.min(w, vw) * Math.min(h, vh) / (vw * vh)) : null;
      found = {label: label(el) + pseudo, share};
      break;
    }
    pseudoCovers.set(el, found);
    return found;
  };
  const clipper = (from, to) => {  // the element between from (inclusive) and to that clips
    for (let e = from; e && e !== to; e = e.parentElement) {
      const s = cs(e);
      const cut = ['hidden', 'clip'];
      if (cut.includes(s.overflowX) || cut.includes(s.overflowY)) return {el: e, why: 'overflow:hidden'};
      if (s.clipPath !== 'none') return {el: e, why: 'clip-path'};
      if (s.clip && s.clip !== 'auto') return {el: e, why: 'clip'};
    }
    return null;
  };
  const clipText = new Map();
  const paintedAsText = (el) => {  // a shadow, a stroke or background-clip:text paints the text otherwise
    let v = clipText.get(el);
    if (v === undefined) {
      const s = cs(el);
      v = s.textShadow !== 'none' || parseFloat(s.webkitTextStrokeWidth) > 0
        || s.backgroundClip === 'text' || s.webkitBackgroundClip === 'text'
        || (el.parentElement ? paintedAsText(el.parentElement) : false);
      clipText.set(el, v);
    }
    return v;
  };
  const faint = (parent, stack, from) => {  // the text's colour is that of what is beneath it
    if (paintedAsText(parent)) return null;
    const s = cs(parent);
    const svg = parent.namespaceURI === 'http://www.w3.org/2000/svg';
    const color = svg ? rgba(s.fill) : rgba(s.webkitTextFillColor) || rgba(s.color);
    if (!color) return null;
    const alpha = color[3] * opacity(parent);
    let under = [0, 0, 0], left = 1;  // the backdrop, composited front to back
    for (let i = from; i < stack.length && left > 0.01; i++) {
      const e = stack[i];
      const es = cs(e);
      if (MEDIA.has(e.tagName) || es.backgroundImage !== 'none') return null;  // over a picture: not judged
      const bg = rgba(es.backgroundColor);
      if (!bg || bg[3] === 0) continue;
      const a = bg[3] * opacity(e);
      for (let c = 0; c < 3; c++) under[c] += left * a * bg[c];
      left *= 1 - a;
    }
    for (let c = 0; c < 3; c++) under[c] += left * 255;  // the canvas: white
    const ink = [0, 1, 2].map((c) => alpha * color[c] + (1 - alpha) * under[c]);
    const apart = Math.max(...[0, 1, 2].map((c) => Math.abs(ink[c] - under[c])));
    if (apart > 16) return null;
    const o = opacity(parent);
    return o < 1 && color[3] * 255 > 16 ? 'opacity ' + o.toFixed(2) : 'the colour of what is beneath it';
  };
  const range = document.createRange();
  const rectsOf = (node) => {
    range.selectNodeContents(node);
    return Array.from(range.getClientRects()).filter((r) => r.width > 0.5 && r.height > 0.5);
  };
  const inView = (x, y) => x >= 0 && y >= 0 && x < vw && y < vh;
  // What is at (x, y) for the text of parent: null when seen, else {state, el, why}.
  // What covers target at a point whose hit-test stack is stack (target not on top): {el, pseudo} or null.
  const coverOf = (stack, target) => {
    const top = stack[0];
    if (top.contains(target)) {
      // An ancestor on top of its own content paints there with a ::before or ::after (a cookie wall on body).
      const pc = stack.indexOf(target) > 0 ? pseudoCover(top) : null;
      return pc ? {el: top, pseudo: pc} : null;
    }
    let cover = null, outer = top;
    for (let e = top; e && !e.contains(target); e = e.parentElement) {
      outer = e;
      if (!cover && opaque(e) && opacity(e) >= 0.5) cover = e;
    }
    if (cover) return {el: outer, pseudo: null};
    const pc = pseudoCover(top);
    return pc ? {el: top, pseudo: pc} : null;
  };
  // What is at (x, y) for the text of parent: null when seen, else {state, el, why}.
  const judge = (x, y, parent) => {
    const stack = stackAt(x, y);
    if (!stack.length) return {state: 'off-screen', el: parent, why: 'off-screen'};
    const top = stack[0];
    if (top === parent || parent.contains(top)) {
      const why = faint(parent, stack, 0);
      return why ? {state: 'faint', el: parent, why} : null;
    }
    const cover = coverOf(stack, parent);
    if (cover) return {state: 'covered', el: cover.el, why: 'covered', pseudo: cover.pseudo};
    if (top.contains(parent)) {
      const clip = clipper(parent, top);
      return clip ? {state: 'clipped', el: clip.el, why: clip.why} : null;
    }
    const at = stack.indexOf(parent);
    if (at < 0) {  // not painted here
      const clip = clipper(parent, null);
      return clip ? {state: 'clipped', el: clip.el, why: clip.why} : null;
    }
    const why = faint(parent, stack, at);
    return why ? {state: 'faint', el: parent, why} : null;
  };

  const boxes = new Map();
  const box = (el) => { let r = boxes.get(el); if (!r) { r = el.getBoundingClientRect(); boxes.set(el, r); } return r; };
  const tinyOwn = new Map();
  const tinyAt = (e) => {  // the visually-hidden pattern: a box of a pixel or so that clips its text
    let t = tinyOwn.get(e);
    if (t === undefined) {
      const r = box(e), s = cs(e);
      const clips = ['hidden', 'clip'].includes(s.overflowX) || (s.clip && s.clip !== 'auto') || s.clipPath !== 'none';
      t = clips && r.width <= 4 && r.height <= 4 ? {el: e, why: `a ${Math.round(r.width)}x${Math.round(r.height)} px box`} : null;
      tinyOwn.set(e, t);
    }
    return t;
  };
  const tinyBox = (el) => {
    for (let e = el, up = 0; e && up < 4; e = e.parentElement, up++) { const t = tinyAt(e); if (t) return t; }
    return null;
  };
  const pointsOf = (node) => {  // the centres of up to three of its line boxes, in viewport coordinates
    const rects = rectsOf(node);
    const picked = rects.length <= 3 ? rects.map((r, i) => i) : [0, rects.length >> 1, rects.length - 1];
    return picked.map((i) => ({i, x: rects[i].x + rects[i].width / 2, y: rects[i].y + rects[i].height / 2, miss: null}));
  };
  const SKIP = 'script,style,noscript,template,title,select,datalist,textarea,option';
  const skipped = new Map(), shown = new Map();
  const nodes = [], far = [];
  let chars = 0, unjudged = 0;
  const walker = Reflect.apply(Document.prototype.createTreeWalker, document, [body, NodeFilter.SHOW_TEXT]);
  for (let node = walker.nextNode(); node && chars < maxText; node = walker.nextNode()) {
    const parent = node.parentElement;
    const text = node.data.trim();
    if (!parent || !text) continue;
    if (!skipped.has(parent)) skipped.set(parent, parent.closest(SKIP) !== null);
    if (skipped.get(parent)) continue;
    chars += text.length;
    if (!shown.has(parent)) shown.set(parent, seen(parent));
    const entry = {node, parent, text, verdict: null, points: []};
    nodes.push(entry);
    if (!shown.get(parent)) {
      const h = whyHidden(parent);
      entry.verdict = {state: 'hidden', el: h.el, why: h.why};
      continue;
    }
    if (nodes.length > maxNodes) { unjudged += text.length; continue; }
    const tiny = tinyBox(parent);
    if (tiny) { entry.verdict = {state: 'clipped', el: tiny.el, why: tiny.why}; continue; }
    const r = box(parent);
    if (r.right + startX <= 0 || r.bottom + startY <= 0) {  // before the page's start: no scrolling brings it
      entry.verdict = {state: 'off-screen', el: parent, why: 'off-screen'};
      continue;
    }
    const sized = r.width > 0 || r.height > 0;
    if (sized && !(r.bottom > 0 && r.top < vh && r.right > 0 && r.left < vw)) {
      far.push({entry, docX: r.left + r.width / 2 + startX, docY: r.top + r.height / 2 + startY});
      continue;
    }
    entry.points = pointsOf(node);
    if (!entry.points.length) entry.verdict = {state: 'hidden', el: parent, why: 'no size'};
  }
  // First what the viewport capture shows, as it shows it. Then, scrolled to put it in the middle of the
  // viewport, what was under something there and what is further down the page (a sample of it on a long
  // page: at most maxBands scroll positions; the rest is judged by its style alone and counted as unjudged).
  const stepX = Math.max(1, vw / 4), stepY = Math.max(1, vh / 4);
  const bandOf = (docX, docY) => [
    Math.max(0, Math.round((docX - vw / 2) / stepX)), Math.max(0, Math.round((docY - vh / 2) / stepY))];
  const bands = new Map();
  const toBand = (item, always) => {
    const [bx, by] = bandOf(item.docX, item.docY);
    const key = bx + ',' + by;
    let band = bands.get(key);
    if (!band) { band = {bx, by, always: false, items: []}; bands.set(key, band); }
    band.always = band.always || always;
    band.items.push(item);
  };
  for (const entry of nodes) {
    for (const p of entry.points) {
      p.miss = inView(p.x, p.y) ? judge(p.x, p.y, entry.parent) : {state: 'off-screen', el: entry.parent, why: 'off-screen'};
      if (!p.miss) entry.first = true;  // seen on the first screen, as the viewport capture shows it
      if (p.miss) toBand({entry, p, docX: p.x + startX, docY: p.y + startY}, true);
    }
  }
  // What scrolls el to a point (x, y) of the viewport: 'box', its nearest box with overflow, which a person
  // scrolls (auto or scroll on that axis); 'stuck', that box when only a script can scroll it (hidden, clip);
  // 'page', no box of its own (the page's scrolling).
  const scrolledBy = (el, x, y) => {
    for (let e = el.parentElement; e && e !== body && e !== root; e = e.parentElement) {
      const s = cs(e);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const axis = (x < 0 || x >= vw) ? s.overflowX : s.overflowY;
      return axis === 'auto' || axis === 'scroll' ? 'box' : 'stuck';
    }
    return 'page';
  };
  // The viewport takes its overflow from <html>, or from <body> when <html>'s is visible: hidden or clip there
  // and a person cannot scroll to what lies beyond the first screen (a script still can, so no band is judged).
  const viewportClip = (axis) => {
    const from = cs(root)[axis] !== 'visible' ? root : body;
    return ['hidden', 'clip'].includes(cs(from)[axis]) ? from : null;
  };
  const stuckX = viewportClip('overflowX'), stuckY = viewportClip('overflowY');
  for (const item of far) {
    const [x, y] = [item.docX - startX, item.docY - startY];
    const beyond = y >= vh ? stuckY : (x >= vw ? stuckX : null);
    // Unless a box of its own scrolls it into view (an app layout: a fixed-height body around a scrolling panel).
    if (beyond && scrolledBy(item.entry.parent, x, y) === 'page') {
      item.entry.verdict = {state: 'clipped', el: beyond, why: 'overflow:hidden'};
    } else toBand(item, false);
  }
  const ordered = Array.from(bands.values()).sort((a, b) => a.by - b.by || a.bx - b.bx);
  const optional = ordered.filter((b) => !b.always);
  const every = Math.max(1, optional.length / maxBands);
  const chosen = new Set(optional.filter((b, i) => Math.floor(i / every) !== Math.floor((i - 1) / every)));
  let intoView = 0;
  const judgeAfterScroll = (entry, p) => {
    let r = rectsOf(entry.node)[p.i];
    if (r && !inView(r.x + r.width / 2, r.y + r.height / 2) && intoView < 50
        && scrolledBy(entry.parent, r.x + r.width / 2, r.y + r.height / 2) !== 'stuck') {
      intoView++;  // in a scrolling box of its own
      entry.parent.scrollIntoView({block: 'center', inline: 'center'});
      r = rectsOf(entry.node)[p.i];
    }
    if (r && inView(r.x + r.width / 2, r.y + r.height / 2)) p.miss = judge(r.x + r.width / 2, r.y + r.height / 2, entry.parent);
  };
  for (const band of ordered) {
    if (!band.always && !chosen.has(band)) {
      for (const item of band.items) unjudged += item.entry.text.length;
      continue;
    }
    for (const item of band.items) {
      const x = band.bx * stepX, y = band.by * stepY;
      if (Math.abs(scrollX - x) > 1 || Math.abs(scrollY - y) > 1) scrollTo(x, y);
      if (item.p) { judgeAfterScroll(item.entry, item.p); continue; }
      const entry = item.entry;
      const away = {state: 'off-screen', el: entry.parent, why: 'off-screen'};
      entry.points = pointsOf(entry.node).map((p) => Object.assign(p, {miss: away}));
      if (!entry.points.length) { entry.verdict = {state: 'hidden', el: entry.parent, why: 'no size'}; continue; }
      for (const p of entry.points) judgeAfterScroll(entry, p);
    }
  }
  scrollTo(startX, startY);
  const offPage = (el) => {  // the outermost element that is wholly before the page's start, which moved the text away
    let found = el;
    for (let e = el.parentElement; e && e !== body && e !== root; e = e.parentElement) {
      const r = e.getBoundingClientRect();
      if (r.right + scrollX <= 0 || r.bottom + scrollY <= 0) found = e;
    }
    return found;
  };
  const counts = {seen: 0, hidden: 0, covered: 0, clipped: 0, 'off-screen': 0, faint: 0};
  let seenNodes = 0;
  const parts = [], firstParts = [], unseen = [], blocks = new Map(), covers = new Map(), seenParents = new Set();
  const coverShare = new Map();  // a covering ::before or ::after: its own share of the viewport, not its element's
  for (const entry of nodes) {
    if (!entry.verdict && entry.points.length) {
      const missed = entry.points.filter((p) => p.miss);
      if (missed.length * 2 > entry.points.length) entry.verdict = missed[0].miss;
    }
    if (!entry.verdict) seenParents.add(entry.parent);
  }
  // Every element that holds seen text: an unseen block is the largest element around unseen text that holds none.
  const holdsSeen = new Set([body, root]);
  for (const p of seenParents) for (let e = p; e && !holdsSeen.has(e); e = e.parentElement) holdsSeen.add(e);
  const lift = (el) => {
    let top = el;
    for (let e = el.parentElement; e && !holdsSeen.has(e); e = e.parentElement) top = e;
    return top;
  };
  for (const entry of nodes) {
    const n = entry.text.length;
    const v = entry.verdict;
    if (!v) {
      counts.seen += n; seenNodes++; parts.push(entry.node.data);
      if (entry.first) firstParts.push(entry.node.data);
      continue;
    }
    if (v.state === 'off-screen') v.el = offPage(entry.parent);
    counts[v.state] += n;
    const key = v.state === 'covered' ? v.el : lift(holdsSeen.has(v.el) ? entry.parent : v.el);
    const bucket = v.state === 'covered' ? covers : blocks;
    if (v.pseudo) coverShare.set(key, v.pseudo);
    const b = bucket.get(key) || {element: v.pseudo ? v.pseudo.label : label(key), state: v.state, why: v.why,
      by: v.pseudo ? v.pseudo.label : label(v.el), hider: v.el, chars: 0, items: 0};
    b.chars += n;
    b.items += 1;
    bucket.set(key, b);
    if (unseen.length < maxUnseen) {
      unseen.push({text: entry.text.slice(0, maxUnseenText), state: v.state, element: label(v.el), why: v.why});
    }
  }
  for (const field of all('input, textarea')) {
    const button = field.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes(field.type);
    const text = button ? field.value : field.getAttribute('placeholder');
    if (text && seen(field)) parts.push(text);
  }
  const area = (el) => {
    const r = el.getBoundingClientRect();
    const w = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0));
    const h = Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
    return w * h / (vw * vh);
  };
  const MEDIA_SELECTOR = 'img,video,canvas,svg:not(svg svg)';
  const mediaIn = (el) => (MEDIA.has(el.tagName) ? 1 : 0) + el.querySelectorAll(MEDIA_SELECTOR).length;
  // A drawn shape: a box that paints a background or a border (a card, a button, a CSS-drawn planet).
  const paints = (e) => {
    if (MEDIA.has(e.tagName) || e === body || e === root) return false;
    const s = cs(e);
    const bg = rgba(s.backgroundColor);
    const edge = (side) => parseFloat(s[`border${side}Width`]) > 0 && s[`border${side}Style`] !== 'none';
    return (bg !== null && bg[3] > 0) || s.backgroundImage !== 'none' || edge('Top') || edge('Left');
  };
  const shapesIn = (el) => (paints(el) ? 1 : 0) + Array.from(el.querySelectorAll('*')).filter(paints).length;
  const shownShapes = all('*').filter((e) => paints(e) && seen(e) && box(e).width > 0 && box(e).height > 0).length;
  const shows = (el) => holdsSeen.has(el);
  // Why an unseen block is the page working as meant (null when it is not): what is hidden in it is
  // opened, shown or scrolled to by the reader.
  const exempt = (b) => {
    const el = b.hider;
    if (/^a \d+x\d+ px box$/.test(b.why)) return 'text for screen readers';
    // The page's own root or body clipping its content is not a box of its own: the page is cut short.
    if (b.state === 'clipped' && shows(el) && el !== body && el !== root) return 'partly shown: a carousel or a box of its own';
    if (b.state !== 'hidden') return null;
    const holder = el.closest(
      'details:not([open]), dialog, nav, [role=dialog], [role=alertdialog], [role=menu], [role=tooltip], [aria-modal=true]');
    if (holder) return 'inside ' + label(holder);
    if (['fixed', 'absolute'].includes(cs(el).position)) return 'a layer of its own (a modal, a menu, a message)';
    const twin = el.parentElement && Array.from(el.parentElement.children).find((sib) => sib !== el && sib.tagName === el.tagName
      && sib.getAttribute('class') === el.getAttribute('class') && shows(sib));
    if (twin) return 'one of several alike, another shown (a tab, a slide, a step)';
    return null;
  };
  const largest = (bucket, extra) => Array.from(bucket.entries())
    .sort((a, b) => b[1].chars - a[1].chars || (b[1].drawn || 0) - (a[1].drawn || 0)).slice(0, maxListed)
    .map(([el, b]) => Object.assign(b, extra(el)));
  const hasMedia = (cell) => Array.from(cell.querySelectorAll('img,svg,canvas,video,input,select,button,progress,meter,textarea'))
    .some((e) => seen(e));
  const seenCells = new Set();
  for (const p of seenParents) { const cell = p.closest('td, th'); if (cell) seenCells.add(cell); }
  // Pictures and drawn shapes on the first screen (img, svg, canvas, video, boxes that paint a background or a
  // border; 16 px or more of each shown each way), judged at five points each: covered when something covers
  // three of them. The first 300, in document order.
  const drawnCovers = new Map();
  let drawnJudged = 0, drawnCovered = 0;
  for (const el of all('img,video,canvas,svg:not(svg svg),body *:not(svg *)')) {
    if (drawnJudged >= 300) break;
    if (!(MEDIA.has(el.tagName) || paints(el)) || !seen(el)) continue;
    const r = el.getBoundingClientRect();
    const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, vw), y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, vh);
    if (x1 - x0 < 16 || y1 - y0 < 16) continue;
    drawnJudged++;
    let hits = 0, by = null;
    for (const [fx, fy] of [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]) {
      const stack = stackAt(x0 + fx * (x1 - x0), y0 + fy * (y1 - y0));
      if (!stack.length || stack[0] === el || el.contains(stack[0])) continue;
      const cover = coverOf(stack, el);
      if (cover) { hits++; by = cover; }
    }
    if (hits < 3) continue;
    drawnCovered++;
    const m = drawnCovers.get(by.el) || {pseudo: by.pseudo, count: 0};
    m.count++;
    drawnCovers.set(by.el, m);
  }

  for (const [el, m] of drawnCovers) {
    if (m.pseudo) coverShare.set(el, m.pseudo);
    const name = m.pseudo ? m.pseudo.label : label(el);
    const b = covers.get(el) || {element: name, state: 'covered', why: 'covered', by: name, hider: el, chars: 0, items: 0};
    b.drawn = (b.drawn || 0) + m.count;
    covers.set(el, b);
  }
  const tables = [];
  for (const table of all('table')) {
    if (tables.length >= maxTables) break;
    const r = table.getBoundingClientRect();
    if (!seen(table) || r.width < 1 || r.height < 1) continue;
    // Body cells: those of rows outside <thead>/<tfoot> that are not all <th> (a header row).
    const own = Array.from(table.rows).filter((row) => row.closest('table') === table);
    const header = (row) => row.parentElement.tagName === 'THEAD' || Array.from(row.cells).every((c) => c.tagName === 'TH');
    const bodyRows = own.filter((row) => row.parentElement.tagName !== 'TFOOT' && !header(row));
    const cells = bodyRows.flatMap((row) => Array.from(row.cells));
    const filled = cells.filter((c) => seenCells.has(c) || hasMedia(c)).length;
    const headers = own.filter(header).reduce((n, row) => n + row.cells.length, 0) + (table.caption ? 1 : 0);
    tables.push({element: label(table), rows: own.length, body_cells: cells.length, filled_cells: filled, header_cells: headers});
  }
  return {
    visible_text: parts.join(' ').slice(0, maxText),
    text: {
      chars: Object.assign(counts, {total: chars, unjudged}),
      measure_ms: Math.round(performance.now() - started),
      // The ones that count first, the most content first.
      hidden_blocks: Array.from(blocks.entries()).sort((a, b) => b[1].chars - a[1].chars).slice(0, 200)
        .map(([el, b]) => Object.assign(b, {items: b.items + mediaIn(el) + shapesIn(el), exempt: exempt(b), hider: undefined}))
        .sort((a, b) => (a.exempt === null ? 0 : 1) - (b.exempt === null ? 0 : 1) || b.items - a.items).slice(0, maxListed),
      seen_items: seenNodes + shownShapes + all(MEDIA_SELECTOR).filter((e) => seen(e) && box(e).width > 0).length,
      covering: largest(covers, (el) => {
        const pseudo = coverShare.get(el);
        const share = pseudo && pseudo.share !== null ? pseudo.share : area(el);
        return {viewport_share: Math.round(share * 1000) / 1000};
      }),
      unseen,
      tables,
      first_screen: firstParts.join(' ').slice(0, maxText),
      drawn: {judged: drawnJudged, covered: drawnCovered},
    },
  };
})"""


def take_seen_text(value: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The visible text and the ``text`` record of :data:`SEEN_JS`'s answer, with types checked and sizes bounded."""
    text = value["visible_text"]
    if not isinstance(text, str):
        raise TypeError("visible_text is not a string")
    measured = value["text"]
    chars = {
        key: int(measured["chars"][key])
        for key in ("seen", "hidden", "covered", "clipped", "off-screen", "faint", "total", "unjudged")
    }

    def listed(item: dict[str, Any]) -> dict[str, Any]:
        record = {"element": str(item["element"])[:120], "state": str(item["state"]), "why": str(item["why"])[:120]}
        record |= {"by": str(item["by"])[:120]}
        return record | {"chars": int(item["chars"])}

    covering = [
        listed(item) | {"viewport_share": float(item["viewport_share"]), "drawn": int(item.get("drawn") or 0)}
        for item in measured["covering"][:MAX_LISTED]
    ]
    drawn = measured.get("drawn") or {}
    unseen = [
        {key: str(item[key])[: MAX_UNSEEN_TEXT if key == "text" else 120] for key in ("text", "state", "element", "why")}
        for item in measured["unseen"][:MAX_UNSEEN]
    ]
    tables = [
        {"element": str(t["element"])[:120]}
        | {key: int(t[key]) for key in ("rows", "body_cells", "filled_cells", "header_cells")}
        for t in measured["tables"][:MAX_TABLES]
    ]
    blocks = [
        listed(item) | {"items": int(item["items"]), "exempt": None if item["exempt"] is None else str(item["exempt"])[:120]}
        for item in measured["hidden_blocks"][:MAX_LISTED]
    ]
    first_screen = measured.get("first_screen", "")
    record = {
        "first_screen": first_screen[:MAX_FIRST_SCREEN] if isinstance(first_screen, str) else "",
        "chars": chars,
        "seen_items": int(measured["seen_items"]),
        "measure_ms": int(measured["measure_ms"]),
        "hidden_blocks": blocks,
        "covering": covering,
        "drawn": {"judged": int(drawn.get("judged") or 0), "covered": int(drawn.get("covered") or 0)},
        "unseen": unseen,
        "tables": tables,
    }
    return text, record


def seen_text_call(max_text: int) -> str:
    """The expression that runs :data:`SEEN_JS` with this module's bounds."""
    return f"{SEEN_JS}({max_text}, {MAX_NODES}, {MAX_UNSEEN}, {MAX_UNSEEN_TEXT}, {MAX_TABLES}, {MAX_LISTED}, {MAX_BANDS})"
