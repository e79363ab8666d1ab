// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/neighbourhood.js -- one block and its neighbours drawn in
// three columns: the blocks it needs (edges into it), the block, the blocks
// it feeds. What the page shows of a graph too large to draw legibly whole
// (and, under the whole drawing, of the selected block). Laid out here,
// not by Graphviz: three columns need no layout algorithm, and the server
// lays out whole graphs only.

import { names } from './graph.js';

const NS = 'http://www.w3.org/2000/svg';
const W = 210, H = 34, GAP = 12, COL = 90; // box size, vertical gap, space between columns

function svgEl(tag, attrs = {}, text = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  return e;
}

function cut(s, n) { return s.length > n ? `${s.slice(0, n - 1)}…` : s; }

// An <svg> of block `id` of analysis a. active(edge) says whether an edge is
// active in the chosen modes (inactive ones are faded); onBlock(k) is called
// when a neighbour is clicked or activated with Enter.
export function drawNeighbourhood(a, id, active, onBlock) {
  const byId = new Map(a.blocks.map((b) => [b.id, b]));
  const into = a.edges.filter((e) => e.to === id);
  const out = a.edges.filter((e) => e.from === id);
  const rows = Math.max(into.length, out.length, 1);
  const height = rows * (H + GAP) + GAP;
  const width = 3 * W + 2 * COL;
  const svg = svgEl('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'hood', role: 'group', 'aria-label': `neighbourhood of block b${id}` });
  const defs = svgEl('defs');
  const marker = svgEl('marker', { id: 'hood-arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
  marker.append(svgEl('path', { d: 'M 0 0 L 10 5 L 0 10 z' }));
  defs.append(marker);
  svg.append(defs);

  const box = (b, x, y, centre) => {
    const g = svgEl('g', { class: centre ? 'hood-box centre' : 'hood-box', transform: `translate(${x},${y})` });
    g.append(svgEl('rect', { width: W, height: H, rx: 3 }));
    g.append(svgEl('text', { x: 6, y: 14 }, cut(`b${b.id}: ${names(b.equations)}`, 33)));
    g.append(svgEl('text', { x: 6, y: 28, class: 'sub' }, cut(`→ ${names(b.unknowns)}`, 33)));
    g.append(svgEl('title', {}, `block b${b.id}\nwhen ${b.guard}\nsolves ${names(b.equations)}\nfor ${names(b.unknowns)}`));
    if (!centre) {
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'button');
      g.dataset.block = String(b.id);
      g.addEventListener('click', () => onBlock(b.id));
      g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); onBlock(b.id); } });
    }
    return g;
  };
  const cy = (height - H) / 2;
  const rowY = (i, n) => (height - n * (H + GAP) + GAP) / 2 + i * (H + GAP);
  const edge = (x1, y1, x2, y2, e) => {
    const g = svgEl('g', { class: active(e) ? 'hood-edge' : 'hood-edge off' });
    g.append(svgEl('path', { d: `M ${x1} ${y1} C ${x1 + COL / 2} ${y1}, ${x2 - COL / 2} ${y2}, ${x2} ${y2}`, 'marker-end': 'url(#hood-arrow)' }));
    g.append(svgEl('text', { x: (x1 + x2) / 2, y: (y1 + y2) / 2 - 3, 'text-anchor': 'middle' }, cut(e.guard, 18)));
    g.append(svgEl('title', {}, `when ${e.guard}`));
    return g;
  };
  into.forEach((e, i) => {
    const y = rowY(i, into.length);
    svg.append(edge(W, y + H / 2, W + COL, cy + H / 2, e));
    svg.append(box(byId.get(e.from), 0, y, false));
  });
  out.forEach((e, i) => {
    const y = rowY(i, out.length);
    svg.append(edge(2 * W + COL, cy + H / 2, 2 * W + 2 * COL, y + H / 2, e));
    svg.append(box(byId.get(e.to), 2 * W + 2 * COL, y, false));
  });
  svg.append(box(byId.get(id), W + COL, cy, true));
  return svg;
}
