// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/graph.js -- the conditional dependency graph as mdaed's
// session/svg draws it (Graphviz dot in the session's worker), made
// interactive: blocks and edges of the chosen modes highlighted and the
// others faded, the guard of each on hover or keyboard focus, a click (or
// Enter) on a block reported to the page.
//
// Graphviz names each SVG group by its DOT name in a <title>: blocks are
// "b<id>" and edges "b<from>->b<to>" (cdg_graph_dot), which is how the
// groups are matched to the analysis' blocks and edges.
//
// Viewing (issue 42): the drawing's size is in CSS pixels, one viewBox unit
// a pixel at scale 1, so "fit" fits the whole drawing in the box (both
// sides, no lower bound on the scale); the wheel zooms about the pointer,
// dragging pans (and selects no text); find() marks the blocks whose
// equations or unknowns contain a text and brings the next one into view;
// svgText()/pngBlob() export the drawing as shown (highlight included).
// One block at a time takes the Tab key (a roving tabindex: the arrow keys
// move between blocks), so a large graph is one tab stop, not hundreds.

const MIN_SCALE = 1e-3, MAX_SCALE = 8;
const NS = 'http://www.w3.org/2000/svg';

// The highlight's look, inlined into an exported SVG (style.css is the page's).
const EXPORT_STYLE = `
.node.off, .edge.off { opacity: 0.15; }
.node.on polygon { fill: #e6f0fb; stroke: #0b63b6; stroke-width: 1.5; }
.edge.on path { stroke: #0b63b6; stroke-width: 1.6; }
.edge.on polygon { fill: #0b63b6; stroke: #0b63b6; }
.node.selected polygon { fill: #ffe9a8; stroke: #b07d00; stroke-width: 2.5; }
.node.found polygon { stroke: #b3261e; stroke-width: 2.5; }
`;

export class Graph {
  constructor(container, tooltip, { onBlock }) {
    this.box = container;
    this.tip = tooltip;
    this.onBlock = onBlock;
    this.svg = null;
    this.nodes = new Map(); // block id -> <g>
    this.edges = new Map(); // "from->to" -> <g>
    this.scale = 1;
    this.selected = null;
    this.found = [];
    this.foundAt = -1;
    this.drag = null;
    container.addEventListener('wheel', (ev) => this.onWheel(ev), { passive: false });
    container.addEventListener('pointerdown', (ev) => this.onDown(ev));
    container.addEventListener('pointermove', (ev) => this.onMove(ev));
    container.addEventListener('pointerup', (ev) => this.onUp(ev));
    container.addEventListener('pointercancel', (ev) => this.onUp(ev));
    const show = (ev) => this.showTip(ev);
    container.addEventListener('mouseover', show);
    container.addEventListener('mousemove', (ev) => this.moveTip(ev));
    container.addEventListener('mouseout', (ev) => { if (!this.box.contains(ev.relatedTarget)) this.hideTip(); });
    container.addEventListener('focusin', show);
    container.addEventListener('focusout', () => this.hideTip());
    container.addEventListener('click', (ev) => {
      if (this.dragged) { this.dragged = false; return; } // the end of a pan
      const g = ev.target.closest('g.node');
      if (g) this.onBlock(Number(g.dataset.block));
    });
    container.addEventListener('keydown', (ev) => {
      const g = ev.target.closest && ev.target.closest('g.node');
      if (!g) return;
      if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); this.onBlock(Number(g.dataset.block)); return; }
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[ev.key];
      const ids = [...this.nodes.keys()];
      let k = ids.indexOf(Number(g.dataset.block));
      if (step) k = (k + step + ids.length) % ids.length;
      else if (ev.key === 'Home') k = 0;
      else if (ev.key === 'End') k = ids.length - 1;
      else return;
      ev.preventDefault();
      this.focusBlock(ids[k]);
    });
  }

  clear(note = '') {
    this.box.textContent = note;
    this.svg = null;
    this.nodes.clear();
    this.edges.clear();
    this.selected = null;
    this.found = [];
    this.foundAt = -1;
  }

  // Block id takes the (one) tab stop and the focus, scrolled into view.
  focusBlock(id) {
    const g = this.nodes.get(id);
    if (!g) return;
    this.rove(id);
    g.focus({ preventScroll: true });
    this.reveal(g);
  }

  // The roving tabindex: block id is the drawing's one tab stop.
  rove(id) {
    for (const [k, g] of this.nodes) g.setAttribute('tabindex', k === id ? '0' : '-1');
  }

  // Replace the drawing with svgText; analysis gives each block's and
  // edge's guard, equations and unknowns for the tooltips.
  set(svgText, analysis) {
    // The HTML parser takes inline SVG directly: faster than DOMParser plus
    // importNode on a large drawing (604 blocks: 1.2 s down to ~0.3 s).
    const at = svgText.indexOf('<svg');
    if (at < 0) throw new Error('session/svg did not return an SVG document');
    const blocks = new Map(analysis.blocks.map((b) => [b.id, b]));
    const edges = new Map(analysis.edges.map((e) => [`${e.from}->${e.to}`, e]));
    this.clear();
    this.box.innerHTML = svgText.slice(at);
    const svg = this.box.querySelector('svg');
    for (const g of svg.querySelectorAll('g.node')) {
      const t = g.querySelector('title');
      const m = t && /^b(\d+)$/.exec(t.textContent.trim());
      if (!m) continue;
      const id = Number(m[1]);
      const b = blocks.get(id);
      t.remove(); // our tooltip instead of the native one
      g.dataset.block = String(id);
      g.setAttribute('tabindex', this.nodes.size === 0 ? '0' : '-1');
      g.setAttribute('role', 'button');
      if (b) {
        g.dataset.tip = blockTip(b);
        g.setAttribute('aria-label', `block ${id}: ${names(b.equations)} solved for ${names(b.unknowns)}, when ${b.guard}`);
      }
      this.nodes.set(id, g);
    }
    for (const g of svg.querySelectorAll('g.edge')) {
      const t = g.querySelector('title');
      const m = t && /^b(\d+)->b(\d+)$/.exec(t.textContent.trim());
      if (!m) continue;
      const key = `${m[1]}->${m[2]}`;
      t.remove();
      g.dataset.edge = key;
      const e = edges.get(key);
      if (e) g.dataset.tip = `edge b${m[1]} → b${m[2]}\nwhen ${e.guard}`;
      this.edges.set(key, g);
    }
    for (const t of svg.querySelectorAll('title')) t.remove(); // the graph's own
    this.svg = svg;
    const vb = svg.viewBox.baseVal;
    this.width = vb && vb.width ? vb.width : 800;
    this.height = vb && vb.height ? vb.height : 600;
    this.initialScale();
  }

  // Zoom by factor about the box's point (x, y) (box pixels; default its centre).
  zoom(factor, x = this.box.clientWidth / 2, y = this.box.clientHeight / 2) {
    if (!this.svg) return;
    const cx = (this.box.scrollLeft + x) / this.scale, cy = (this.box.scrollTop + y) / this.scale;
    this.setScale(this.scale * factor);
    this.box.scrollLeft = cx * this.scale - x;
    this.box.scrollTop = cy * this.scale - y;
  }

  // The scale at which the whole drawing fits the box.
  fitScale() {
    return Math.min((this.box.clientWidth - 2) / this.width, (this.box.clientHeight - 2) / this.height);
  }

  // The whole drawing in the box (the fit button).
  fit() {
    if (!this.svg) return;
    this.setScale(this.fitScale());
    this.box.scrollLeft = 0;
    this.box.scrollTop = 0;
  }

  // A new drawing: fit if that leaves its labels readable, else at a
  // readable scale, scrolled to the first block (the top left of the
  // drawing may be empty), with fit one click away.
  initialScale() {
    if (!this.svg) return;
    const f = this.fitScale();
    if (f >= 0.7) { this.setScale(Math.min(1, f)); return; }
    this.setScale(0.8);
    let first = null, top = Infinity, left = Infinity;
    const b = this.box.getBoundingClientRect();
    for (const g of this.nodes.values()) {
      const r = g.getBoundingClientRect();
      if (r.top < top - 1 || (Math.abs(r.top - top) <= 1 && r.left < left)) { first = r; top = r.top; left = r.left; }
    }
    if (first) {
      this.box.scrollTop = Math.max(0, first.top - b.top - 8);
      this.box.scrollLeft = Math.max(0, first.left - b.left - 8);
    }
  }

  setScale(s) {
    if (!this.svg) return;
    this.scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, s));
    this.svg.setAttribute('width', `${this.width * this.scale}px`);
    this.svg.setAttribute('height', `${this.height * this.scale}px`);
  }

  onWheel(ev) {
    if (!this.svg) return;
    ev.preventDefault();
    const b = this.box.getBoundingClientRect();
    const dy = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
    this.zoom(Math.exp(-dy * 0.002), ev.clientX - b.left, ev.clientY - b.top);
  }

  onDown(ev) {
    if (!this.svg || ev.button !== 0) return;
    this.drag = { x: ev.clientX, y: ev.clientY, left: this.box.scrollLeft, top: this.box.scrollTop, id: ev.pointerId };
    this.dragged = false;
  }

  onMove(ev) {
    const d = this.drag;
    if (!d || d.id !== ev.pointerId) return;
    const dx = ev.clientX - d.x, dy = ev.clientY - d.y;
    if (!this.dragged && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!this.dragged) { this.dragged = true; this.box.classList.add('panning'); this.box.setPointerCapture(ev.pointerId); }
    ev.preventDefault();
    this.box.scrollLeft = d.left - dx;
    this.box.scrollTop = d.top - dy;
  }

  onUp(ev) {
    if (!this.drag || this.drag.id !== ev.pointerId) return;
    this.drag = null;
    this.box.classList.remove('panning');
    if (this.box.hasPointerCapture(ev.pointerId)) this.box.releasePointerCapture(ev.pointerId);
  }

  // Mark the blocks whose equations or unknowns (or "b<id>") contain text
  // (case-insensitive); returns their ids. next() then brings them into view
  // one after the other.
  find(text, analysis) {
    for (const id of this.found) { const g = this.nodes.get(id); if (g) g.classList.remove('found'); }
    this.found = [];
    this.foundAt = -1;
    const q = text.trim().toLowerCase();
    if (q === '' || !analysis) return [];
    for (const b of analysis.blocks) {
      const hay = `b${b.id} ${names(b.equations)} ${names(b.unknowns)}`.toLowerCase();
      if (hay.includes(q)) this.found.push(b.id);
    }
    for (const id of this.found) { const g = this.nodes.get(id); if (g) g.classList.add('found'); }
    return this.found;
  }

  // The next block found (wrapping), or null.
  next() {
    if (this.found.length === 0) return null;
    this.foundAt = (this.foundAt + 1) % this.found.length;
    return this.found[this.foundAt];
  }

  // Scroll the box so that element g is in its middle, if it is not in view.
  reveal(g) {
    const r = g.getBoundingClientRect();
    const b = this.box.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom || r.left < b.left || r.right > b.right) {
      this.box.scrollTop += r.top - b.top - b.height / 2 + r.height / 2;
      this.box.scrollLeft += r.left - b.left - b.width / 2 + r.width / 2;
    }
  }

  // The drawing as a standalone SVG document, as shown (highlight and all),
  // at scale 1.
  svgText() {
    if (!this.svg) return null;
    const c = this.svg.cloneNode(true);
    c.setAttribute('xmlns', NS);
    c.setAttribute('width', `${this.width}px`);
    c.setAttribute('height', `${this.height}px`);
    for (const g of c.querySelectorAll('[tabindex]')) { g.removeAttribute('tabindex'); g.removeAttribute('role'); }
    const style = document.createElementNS(NS, 'style');
    style.textContent = (this.box.classList.contains('moded') ? EXPORT_STYLE : EXPORT_STYLE.replace(/^\.node\.off.*$/m, ''))
      + 'text { font-family: Times, serif; }';
    c.insertBefore(style, c.firstChild);
    return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(c)}\n`;
  }

  // The drawing as a PNG Blob, at most maxSide pixels on its longer side.
  async pngBlob(maxSide = 8192) {
    const text = this.svgText();
    if (text === null) return null;
    const k = Math.min(2, maxSide / Math.max(this.width, this.height));
    const url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
    try {
      const img = new Image();
      await new Promise((ok, fail) => { img.onload = ok; img.onerror = () => fail(new Error('the SVG could not be drawn')); img.src = url; });
      const canvas = document.createElement('canvas');
      canvas.width = Math.max(1, Math.round(this.width * k));
      canvas.height = Math.max(1, Math.round(this.height * k));
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
      return await new Promise((ok) => canvas.toBlob(ok, 'image/png'));
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  // Highlight the blocks in activeBlocks (a Set of ids) and the edges in
  // activeEdges (a Set of "from->to"); null for both shows everything
  // unfaded (no mode chosen). Returns the number of blocks highlighted.
  highlight(activeBlocks, activeEdges) {
    this.box.classList.toggle('moded', activeBlocks !== null);
    let n = 0;
    for (const [id, g] of this.nodes) {
      const on = activeBlocks !== null && activeBlocks.has(id);
      g.classList.toggle('on', on);
      g.classList.toggle('off', activeBlocks !== null && !on);
      if (on) n++;
    }
    for (const [key, g] of this.edges) {
      const on = activeEdges !== null && activeEdges.has(key);
      g.classList.toggle('on', on);
      g.classList.toggle('off', activeEdges !== null && !on);
    }
    return n;
  }

  // Mark block id as selected and its neighbours (Set of ids); scroll to it.
  select(id, near) {
    for (const g of this.nodes.values()) g.classList.remove('selected', 'near');
    this.selected = id;
    const g = this.nodes.get(id);
    if (!g) return;
    g.classList.add('selected');
    for (const k of near) { const n = this.nodes.get(k); if (n) n.classList.add('near'); }
    this.rove(id);
    this.reveal(g);
  }

  // Ids of the blocks highlighted now (for tests).
  highlighted() {
    return [...this.nodes].filter(([, g]) => g.classList.contains('on')).map(([id]) => id).sort((a, b) => a - b);
  }

  // Edges highlighted now, as "from->to" of block ids, sorted (for tests).
  highlightedEdges() {
    return [...this.edges].filter(([, g]) => g.classList.contains('on')).map(([k]) => k).sort();
  }

  showTip(ev) {
    const g = ev.target.closest && ev.target.closest('g[data-tip]');
    if (!g) { this.hideTip(); return; }
    this.tip.textContent = g.dataset.tip;
    this.tip.hidden = false;
    if (ev.type === 'focusin') {
      const r = g.getBoundingClientRect();
      this.place(r.right + 8, r.top);
    } else this.moveTip(ev);
  }

  moveTip(ev) { if (!this.tip.hidden && ev.clientX !== undefined) this.place(ev.clientX + 14, ev.clientY + 14); }

  place(x, y) {
    const w = this.tip.offsetWidth, h = this.tip.offsetHeight;
    this.tip.style.left = `${Math.max(0, Math.min(x, innerWidth - w - 4))}px`;
    this.tip.style.top = `${Math.max(0, Math.min(y, innerHeight - h - 4))}px`;
  }

  hideTip() { this.tip.hidden = true; }
}

export function names(list) {
  return list.map((x) => x.name + "'".repeat(x.order)).join(', ');
}

function blockTip(b) {
  return `block ${b.id}\nwhen ${b.guard}\nsolves ${names(b.equations)}\nfor ${names(b.unknowns)}` +
    (b.reads.length ? `\nreads ${names(b.reads)}` : '') +
    b.equations.filter((e) => e.body).map((e) => `\n${names([e])}: ${e.body}`).join('');
}
