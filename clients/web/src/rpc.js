// mdae -- multimode DAE structural analysis. SPDX-License-Identifier: MIT
// clients/web/src/rpc.js -- JSON-RPC 2.0 over HTTP POST /rpc to mdaed.
//
// One fetch per request. mdaed answers each exchange as a chunked stream of
// newline-delimited JSON: the request's notifications (analysis/progress,
// analysis/diagnostic, ...) then its response, which this module reads as it
// arrives. Cancelling is aborting the fetch: the browser closes the
// connection, and mdaed cancels the request of an HTTP exchange whose client
// went away (server/srv_conn.c), since over HTTP no $/cancelRequest can name
// it from another connection.

export class RpcError extends Error {
  constructor(error) {
    super(error.message || 'error');
    this.code = error.code;
    this.data = error.data || null;
    this.name = 'RpcError';
  }
}

let seq = 0;

// mdaed's access token, when it has one (conf: "token"): sent as
// `Authorization: Bearer` on every request. Kept for the tab's lifetime in
// sessionStorage (never in the link, never in localStorage).
const TOKEN_KEY = 'mdae-token';
let token = '';
try { token = sessionStorage.getItem(TOKEN_KEY) || ''; } catch { /* storage off */ }

// HTTP 401 from mdaed: the request needs (another) token.
export const UNAUTHORIZED = 401;

export function setToken(t) {
  token = t;
  try {
    if (t) sessionStorage.setItem(TOKEN_KEY, t);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch { /* storage off: kept in memory */ }
}

export function hasToken() { return token !== ''; }

// The headers of a request to POST /rpc (the token's, and the session's).
export function rpcHeaders(session) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  // Behind HAProxy (conf/haproxy.cfg) the header routes a session's requests
  // to the instance that holds it without reading the body.
  if (typeof session === 'string') headers['X-Mdae-Session'] = session;
  return headers;
}

// Call method with params; onNotify(method, params) gets the notifications
// that precede the response. Resolves with the result, rejects with an
// RpcError (the server's error), a DOMException AbortError (signal), or a
// TypeError (network).
export async function call(method, params, { onNotify = null, signal = null } = {}) {
  const id = ++seq;
  const res = await fetch('rpc', {
    method: 'POST',
    headers: rpcHeaders(params ? params.session : undefined),
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    signal,
  });
  if (res.status === UNAUTHORIZED) {
    await res.text();
    throw new RpcError({ code: UNAUTHORIZED, message: token ? 'mdaed refused the access token' : 'this mdaed requires an access token' });
  }
  // 429: wrong tokens from this address lately (docs/security.md); the
  // token form stays up, with the server's words (when to try again).
  if (res.status === 429) throw new RpcError({ code: UNAUTHORIZED, message: (await res.text()).replace(/^mdaed: /, '').trim() });
  if (!res.ok) throw new RpcError({ code: res.status, message: `HTTP ${res.status}: ${await res.text()}` });
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  // The current line's pieces, none holding a newline: a result of many
  // megabytes arrives in thousands of chunks, and appending each to one
  // string then searching it from its start again made the read quadratic
  // (minutes in Firefox on the MSL's RobotR3, whose analysis is 14 MB).
  let pieces = [];
  let response = null;
  const take = (line) => {
    if (line.trim() === '') return;
    const msg = JSON.parse(line);
    if (msg.method !== undefined && msg.id === undefined) {
      if (onNotify) onNotify(msg.method, msg.params);
    } else if (msg.id === id) {
      response = msg;
    }
  };
  const feed = (text) => {
    let start = 0;
    for (let nl; (nl = text.indexOf('\n', start)) >= 0; start = nl + 1) {
      pieces.push(text.slice(start, nl));
      take(pieces.join(''));
      pieces = [];
    }
    if (start < text.length) pieces.push(text.slice(start));
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    feed(dec.decode(value, { stream: true }));
  }
  feed(dec.decode());
  take(pieces.join(''));
  if (response === null) throw new RpcError({ code: -32603, message: 'no response from mdaed' });
  if (response.error) throw new RpcError(response.error);
  return response.result;
}
