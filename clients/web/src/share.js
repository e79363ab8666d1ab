// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/share.js -- a model in the URL fragment: nothing is stored
// on the server. #m=<base64url of deflate-raw of {"t":text,"f":format,"d":defines}>,
// compressed with the browser's own CompressionStream (Chromium 80+,
// Firefox 113+).

async function pump(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

function toBase64url(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(s) {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(b.length);
  for (let i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
  return out;
}

export async function encodeModel(model) {
  const json = new TextEncoder().encode(JSON.stringify({ t: model.text, f: model.format, d: model.defines }));
  return 'm=' + toBase64url(await pump(json, new CompressionStream('deflate-raw')));
}

// The model in a fragment (without '#'), or null if it holds none.
export async function decodeModel(fragment) {
  const m = /(?:^|&)m=([A-Za-z0-9_-]+)/.exec(fragment);
  if (!m) return null;
  const bytes = await pump(fromBase64url(m[1]), new DecompressionStream('deflate-raw'));
  const o = JSON.parse(new TextDecoder().decode(bytes));
  return { text: String(o.t ?? ''), format: o.f || 'auto', defines: String(o.d ?? '') };
}
