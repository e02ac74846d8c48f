// Shared by the console's pages. Everything the API returns (agent output, file contents, evidence) is untrusted:
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

// Cluster mode: the person's Kubernetes bearer token, kept in this tab's session storage only (gone when the tab
// closes, never in a cookie or the URL) and sent with each API request; the console passes it on as theirs.
const TOKEN_KEY = 'crucible-console-token';

function bearer() {
  try { return sessionStorage.getItem(TOKEN_KEY); } catch (e) { return null; }
}

/** The token form, shown when the server answers 401 (cluster mode, no token or a refused one). */
function showLogin(message) {
  if (document.getElementById('login')) return;
  const input = el('input', {id: 'login-token', type: 'password', size: 60, autocomplete: 'off', 'aria-label': 'bearer token'});
  const form = el('form', {id: 'login', class: 'login'},
    el('h2', {text: 'Log in with your Kubernetes token'}),
    el('p', {id: 'login-why', class: 'muted', text: message}),
    el('label', {}, 'Bearer token ', input), ' ', el('button', {type: 'submit', id: 'login-submit', text: 'Log in'}),
    el('p', {class: 'hint', text: 'kubectl create token NAME -n NAMESPACE, or the token of your kubeconfig. It stays in this tab\'s session '
      + 'storage and goes only to this console, which sends it as yours to the API server and the trace store: you see the '
      + 'namespaces where you may get Rollouts.'}));
  form.addEventListener('submit', ev => {
    ev.preventDefault();
    const t = input.value.trim();
    if (!t) return;
    sessionStorage.setItem(TOKEN_KEY, t);
    location.reload();
  });
  document.querySelector('main').prepend(form);
}

/** Marks the page as the cluster console: views that read a local RUNS folder (search, lineage, …) are hidden. */
function markCluster(body) {
  if (!body || body.cluster !== true || document.body.classList.contains('cluster')) return;
  document.body.classList.add('cluster');
  const header = document.querySelector('header');
  if (header && bearer()) {
    header.append(el('a', {id: 'logout', href: '/', text: 'log out', onclick: () => sessionStorage.removeItem(TOKEN_KEY)}));
  }
}

/** GET an API path; resolves to its JSON, or rejects with the server's message (status and text) for a 4xx/5xx. */
async function api(path, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== null && v !== undefined && v !== '') q.set(k, v);
  const url = path + (q.toString() ? '?' + q : '');
  let res;
  try {
    const headers = {Accept: 'application/json'};
    const t = bearer();
    if (t) headers.Authorization = 'Bearer ' + t;
    res = await fetch(url, {headers: headers});
  } catch (e) {
    throw new Error('the console server did not answer ' + url + ' (' + e.message + '): is crucible console still running?');
  }
  let body = null;
  try { body = await res.json(); } catch (e) { body = null; }
  if (res.status === 401) {
    if (bearer()) sessionStorage.removeItem(TOKEN_KEY); // refused: ask again rather than resend it
    showLogin(body && body.error ? body.error : 'this console asks for your Kubernetes bearer token');
  }
  markCluster(body);
  if (!res.ok) {
    const err = new Error(body && body.error ? body.error : 'HTTP ' + res.status + ' from ' + url);
    err.status = res.status;
    throw err;
  }
  if (body === null) throw new Error('the answer to ' + url + ' was not JSON');
  return body;
}

/** POST a JSON body (cluster mode's actions, sent with the person's token); resolves to the JSON answer or rejects with its message. */
async function apiPost(path, body) {
  const headers = {Accept: 'application/json', 'Content-Type': 'application/json'};
  const t = bearer();
  if (t) headers.Authorization = 'Bearer ' + t;
  let res;
  try {
    res = await fetch(path, {method: 'POST', headers: headers, body: JSON.stringify(body)});
  } catch (e) {
    throw new Error('the console server did not answer ' + path + ' (' + e.message + ')');
  }
  let answer = null;
  try { answer = await res.json(); } catch (e) { answer = null; }
  if (!res.ok) {
    const err = new Error(answer && answer.error ? answer.error : 'HTTP ' + res.status + ' from ' + path);
    err.status = res.status;
    throw err;
  }
  return answer;
}

/** Shows a message in the page's error banner (null hides it). */
function showError(message) {
  if (document.getElementById('login')) message = null; // the token form says why; logging in is the one thing to do
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
