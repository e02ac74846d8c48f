// Shared by the console's two pages. Everything the API returns (agent output, file contents, evidence) is untrusted:
// it is only ever put into the page as text (textContent), never as HTML.
'use strict';

/** An element with attributes and children (strings become text nodes). */
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.substring(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** Replaces a node's children (null, undefined and false are left out, not shown as text). */
function fill(node, ...children) {
  node.replaceChildren(...children.flat().filter(c => c !== null && c !== undefined && c !== false));
  return node;
}

/** GET an API path; resolves to its JSON, or rejects with the server's message (status and text) for a 4xx/5xx. */
async function api(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  const url = path + (q.toString() ? '?' + q : '');
  let res;
  try {
    res = await fetch(url, {headers: {Accept: 'application/json'}});
  } catch (e) {
    throw new Error('the console server did not answer ' + url + ' (' + e.message + '): is crucible console still running?');
  }
  let body = null;
  try { body = await res.json(); } catch (e) { body = null; }
  if (!res.ok) {
    const err = new Error(body && body.error ? body.error : 'HTTP ' + res.status + ' from ' + url);
    err.status = res.status;
    throw err;
  }
  if (body === null) throw new Error('the answer to ' + url + ' was not JSON');
  return body;
}

/** Shows a message in the page's error banner (null hides it). */
function showError(message) {
  const box = document.getElementById('error');
  box.textContent = message || '';
  box.hidden = !message;
}

/** A list of problems (a broken segment's lines, an unreadable result.json) in a banner. */
function showProblems(title, problems) {
  const box = document.getElementById('problems');
  box.replaceChildren();
  box.hidden = !problems || problems.length === 0;
  if (box.hidden) return;
  fill(box, el('strong', {text: title + ' (' + problems.length + '):'}),
    el('ul', {}, problems.slice(0, 50).map(p => el('li', {text: p}))),
    problems.length > 50 ? el('p', {text: '… and ' + (problems.length - 50) + ' more'}) : null);
}

function params() { return Object.fromEntries(new URLSearchParams(location.search)); }

function url(path, p) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  return path + (q.toString() ? '?' + q : '');
}

function traceUrl(id, extra) { return url('/trace', Object.assign({rollout: id}, extra || {})); }

function fmtReward(r) { return r === null || r === undefined ? '—' : (Math.round(r * 1000) / 1000).toString(); }

function fmtTime(t) {
  if (!t) return '—';
  const d = new Date(t);
  return isNaN(d) ? t : d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function phaseBadge(phase) {
  return el('span', {class: 'badge phase phase-' + String(phase || 'unknown').toLowerCase(), text: phase || 'unknown'});
}

function severityBadge(sev, text) {
  return el('span', {class: 'badge sev sev-' + String(sev || 'unknown').toLowerCase(), text: text || sev || '?'});
}
