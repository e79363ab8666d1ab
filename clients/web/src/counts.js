// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/counts.js -- counts as the page prints them (issue 42).
//
// mdaed gives each count as a JSON number and, beside it, `<name>Exact`: the
// exact decimal value as a string (issue 41). countOf(obj, name) prints the
// exact string when it is there; otherwise formatCount(n) prints the number
// without a float's exponent noise: an integer exactly
// while a double holds it exactly (digits as they are), else as "≈ 1.607 × 10^60".

// Digits as they are (copyable, and what other clients print).
function grouped(digits) {
  return digits;
}

export function formatCount(n) {
  if (typeof n === 'string' && /^\d+$/.test(n)) return grouped(n);
  if (typeof n !== 'number' || !Number.isFinite(n)) return String(n);
  if (Number.isSafeInteger(n)) return grouped(String(n));
  const [m, e] = n.toExponential(3).split('e');
  return `≈ ${m} × 10^${Number(e)}`;
}

// The count `name` of obj: obj[name + 'Exact'] when mdaed sent it.
export function countOf(obj, name) {
  if (obj === null || obj === undefined) return '';
  const exact = obj[`${name}Exact`];
  return formatCount(typeof exact === 'string' ? exact : obj[name]);
}

// "1 change", "2 changes" (count as printed, noun in the singular).
export function plural(text, noun) {
  return `${text} ${noun}${text === '1' ? '' : 's'}`;
}
