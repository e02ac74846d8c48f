// Two rollouts of the same task side by side, aligned on their steps: /compare?a=ID&b=ID[&from=STEP].
// With only a=ID, it offers the other rollouts of the same environment to pick b from.
'use strict';

const STEPS = 50;

function cell(rows, more, id) {
  return el('td', {}, rows.map(r => el('a', {class: 'row', href: traceUrl(id, {event: r.seq}), title: r.summary},
    '#' + r.seq + ' ', el('span', {class: 'kind', text: r.kind}), r.severity ? severityBadge(r.severity) : null, ' ' + r.summary)),
    more ? el('span', {class: 'muted', text: '… ' + more + ' more'}) : null);
}

async function pickB(a) {
  const form = document.getElementById('pick');
  let info;
  try {
    info = await api('/api/rollout', {id: a});
  } catch (e) {
    showError(e.message);
    return;
  }
  const same = await api('/api/rollouts', {environment: info.summary.environment, size: 500});
  const sel = document.getElementById('pick-b');
  sel.replaceChildren();
  for (const r of same.items) if (r.id !== a) sel.append(el('option', {value: r.id, text: r.id + ' · ' + (r.phase || '?') + ' · reward ' + fmtReward(r.reward)}));
  if (!sel.options.length) showError('No other rollout of environment ' + info.summary.environment + ' to compare ' + a + ' with.');
  form.hidden = false;
  form.onsubmit = ev => { ev.preventDefault(); history.pushState(null, '', url('/compare', {a: a, b: sel.value})); load(); };
}

async function load() {
  const p = params();
  showError(null);
  const body = document.querySelector('#compare tbody');
  body.replaceChildren();
  document.getElementById('pager').replaceChildren();
  if (!p.a) {
    showError('No rollouts given: open this from a rollout\'s trace view, or add ?a=ID&b=ID to this page\'s address.');
    return;
  }
  if (!p.b) {
    document.getElementById('title').textContent = 'Compare ' + p.a + ' with…';
    return pickB(p.a);
  }
  document.getElementById('pick').hidden = true;
  let c;
  try {
    c = await api('/api/compare', {a: p.a, b: p.b, from: p.from, limit: STEPS});
  } catch (e) {
    showError(e.message);
    body.append(el('tr', {}, el('td', {colspan: 3, class: 'empty', text: 'Nothing to compare.'})));
    return;
  }
  document.getElementById('title').textContent = 'Environment ' + c.environment + ': ' + c.steps + ' steps';
  for (const [k, s] of [['a', c.a], ['b', c.b]]) {
    fill(document.getElementById('head-' + k), el('a', {href: traceUrl(s.id), text: s.id}), ' ', phaseBadge(s.phase),
      ' reward ' + fmtReward(s.reward) + ' · ' + s.steps + ' steps, ' + s.events + ' events');
  }
  showProblems('Parts of the trajectories could not be read', c.a.problems.concat(c.b.problems));
  for (const s of c.rows) {
    body.append(el('tr', {id: 'step-' + s.step}, el('td', {class: 'step', text: String(s.step)}), cell(s.a, s.moreA, c.a.id), cell(s.b, s.moreB, c.b.id)));
  }
  if (c.rows.length === 0) body.append(el('tr', {}, el('td', {colspan: 3, class: 'empty', text: 'No steps from ' + c.from + ' (there are ' + c.steps + ').'})));
  const pager = document.getElementById('pager');
  if (c.from > 0) pager.append(el('a', {href: url('/compare', {a: p.a, b: p.b, from: Math.max(0, c.from - STEPS)}), text: '← earlier steps'}));
  if (c.from + STEPS < c.steps) pager.append(el('a', {href: url('/compare', {a: p.a, b: p.b, from: c.from + STEPS}), text: ' later steps →'}));
}

window.addEventListener('popstate', load);
load();
