// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/dom.js -- the page's one element builder.

// el('button', {class, text, onclick, ...attributes}, ...children): a new
// element; children that are null, undefined or false are left out.
export function el(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k !== null && k !== undefined && k !== false) e.append(k);
  return e;
}

// A roving tabindex (issue 42: 605 tab stops at N = 100): of the elements
// matching selector inside container, one takes the Tab key (start if
// given, else the one that had it, else the first) and the arrow keys move
// between them; call again after the elements change.
export function roving(container, selector, start = null) {
  const items = [...container.querySelectorAll(selector)];
  const current = start || items.find((e) => e.tabIndex === 0 && e.dataset.rove === '1');
  items.forEach((e, i) => { e.tabIndex = (current ? e === current : i === 0) ? 0 : -1; e.dataset.rove = '1'; });
  if (container.dataset.roving === selector) return;
  container.dataset.roving = selector;
  container.addEventListener('keydown', (ev) => {
    const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[ev.key];
    if (!step || !ev.target.matches || !ev.target.matches(selector)) return;
    const all = [...container.querySelectorAll(selector)];
    const k = all.indexOf(ev.target) + step;
    if (k < 0 || k >= all.length) return;
    ev.preventDefault();
    ev.target.tabIndex = -1;
    all[k].tabIndex = 0;
    all[k].focus();
  });
}
