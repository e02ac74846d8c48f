// The workspace at a step: /workspace?rollout=ID&event=N[&path=P] lists a folder of the snapshot at or before event N,
// or shows the head of one file, read-only. The server escapes the agent's names and text; this page inserts them as text.
'use strict';

async function load() {
  const p = params();
  if (!p.rollout || !p.event) {
    showError('Give the step: /workspace?rollout=ID&event=N (N: the event\'s number on the trace view\'s timeline).');
    return;
  }
  let a;
  try {
    a = await api('/api/workspace', {id: p.rollout, seq: p.event, path: p.path || ''});
  } catch (e) {
    fill(document.getElementById('where'), el('p', {}, el('a', {id: 'back-to-step', href: traceUrl(p.rollout, {event: p.event}),
      text: '← step #' + p.event + ' of ' + p.rollout})));
    showError(e.message);
    return;
  }
  const s = a.snapshot;
  fill(document.getElementById('where'),
    el('p', {}, 'Step ', el('a', {id: 'back-to-step', href: traceUrl(a.id, {event: a.seq}), text: '#' + a.seq + ' of ' + a.id}),
      ', as snapshot ', el('code', {id: 'snapshot-id', text: s.id}), ' ', s.op === 'restored' ? 'restored' : 'taken', ' at ',
      el('a', {href: traceUrl(a.id, {event: s.seq}), text: '#' + s.seq}), s.trigger ? ' (' + s.trigger + ')' : '',
      s.seq < a.seq ? el('span', {class: 'muted', text: ' · ' + (a.seq - s.seq) + (a.seq - s.seq === 1 ? ' event' : ' events') + ' before this step: later changes are not in it'}) : null));
  const here = q => url('/workspace', Object.assign({rollout: a.id, event: a.seq}, q ? {path: q} : {}));
  const parts = a.path ? a.path.split('/') : [];
  const shown = a.pathShown ? a.pathShown.split('/') : [];
  const crumbs = [el('a', {href: here(''), text: 'workspace'})];
  parts.forEach((_, i) => crumbs.push(' / ', el('a', {href: here(parts.slice(0, i + 1).join('/')), text: shown[i] || parts[i]})));
  fill(document.getElementById('crumbs'), ...crumbs);
  const table = document.getElementById('entries');
  const body = table.querySelector('tbody');
  body.replaceChildren();
  table.hidden = a.file !== null;
  for (const e of a.entries) {
    body.append(el('tr', {'data-path': e.path},
      el('td', {}, el('a', {class: 'entry', href: here(e.path), text: e.nameShown + (e.type === 'dir' ? '/' : '')}),
        e.linkShown ? el('span', {class: 'muted', text: ' → ' + e.linkShown}) : null),
      el('td', {text: e.type}),
      el('td', {class: 'num', text: e.type === 'dir' ? '' : String(e.size)})));
  }
  if (a.file === null && a.entries.length === 0) body.append(el('tr', {}, el('td', {colspan: 3, class: 'empty', text: 'An empty folder.'})));
  if (a.more) body.append(el('tr', {}, el('td', {colspan: 3, class: 'muted', text: 'More entries not listed.'})));
  const f = a.file;
  fill(document.getElementById('file'), f ? [
    el('h2', {id: 'file-title', class: 'ws-path', text: f.pathShown + ' · ' + f.size + ' bytes'}),
    f.note ? el('p', {id: 'file-note', class: 'muted', text: f.note}) : null,
    f.text !== null ? el('pre', {id: 'file-content', class: 'ws-content', text: f.text}) : null,
    f.hex !== null ? el('pre', {id: 'file-hex', class: 'ws-content', text: f.hex}) : null] : []);
  showProblems('Problems reading the snapshot', a.problems);
}

load();
