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
