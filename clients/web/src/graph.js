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
    const show = (ev) => this.showTip(ev);
    container.addEventListener('mouseover', show);
    container.addEventListener('mousemove', (ev) => this.moveTip(ev));
    container.addEventListener('mouseout', (ev) => { if (!this.box.contains(ev.relatedTarget)) this.hideTip(); });
    container.addEventListener('focusin', show);
    container.addEventListener('focusout', () => this.hideTip());
    container.addEventListener('click', (ev) => {
      const g = ev.target.closest('g.node');
      if (g) this.onBlock(Number(g.dataset.block));
    });
    container.addEventListener('keydown', (ev) => {
      const g = ev.target.closest && ev.target.closest('g.node');
      if (g && (ev.key === 'Enter' || ev.key === ' ')) { ev.preventDefault(); this.onBlock(Number(g.dataset.block)); }
    });
  }

  clear(note = '') {
    this.box.textContent = note;
    this.svg = null;
    this.nodes.clear();
    this.edges.clear();
    this.selected = null;
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
      g.setAttribute('tabindex', '0');
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

  zoom(factor) { this.setScale(this.scale * factor); }

  // The whole drawing in the box's width (the fit button).
  fit() {
    if (!this.svg) return;
    this.setScale(Math.min(1.5, Math.max(0.02, (this.box.clientWidth - 4) / this.width)));
  }

  // A new drawing: fit if that leaves its labels readable, else at a
  // readable scale with scroll bars (fit stays one click away).
  initialScale() {
    if (!this.svg) return;
    this.setScale(Math.min(1, Math.max(0.7, (this.box.clientWidth - 4) / this.width)));
  }

  setScale(s) {
    if (!this.svg) return;
    this.scale = Math.min(4, Math.max(0.02, s));
    this.svg.setAttribute('width', `${this.width * this.scale}pt`);
    this.svg.setAttribute('height', `${this.height * this.scale}pt`);
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
    const r = g.getBoundingClientRect();
    const b = this.box.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom || r.left < b.left || r.right > b.right) {
      this.box.scrollTop += r.top - b.top - b.height / 2 + r.height / 2;
      this.box.scrollLeft += r.left - b.left - b.width / 2 + r.width / 2;
    }
  }

  // Ids of the blocks highlighted now (for tests).
  highlighted() {
    return [...this.nodes].filter(([, g]) => g.classList.contains('on')).map(([id]) => id).sort((a, b) => a - b);
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
