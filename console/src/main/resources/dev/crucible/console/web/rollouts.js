// The rollouts view: every rollout under RUNS, paged and filtered, with counts by environment × detector and by
// finding pattern. Its state is its URL (?environment=…&detector=…&page=…), so every view can be pasted and shared.
'use strict';

const FILTERS = ['namespace', 'environment', 'phase', 'detector', 'severity', 'pattern', 'minReward', 'maxReward', 'since', 'until', 'label'];
const PAGE_SIZE = 50;

function state() {
  const p = params();
  const s = {};
  for (const k of FILTERS) if (p[k]) s[k] = p[k];
  if (p.page) s.page = p.page;
  return s;
}

function go(next) {
  history.pushState(null, '', url('/', next));
  load();
}

function setFilter(changes) {
  const s = state();
  Object.assign(s, changes);
  delete s.page;
  for (const k of Object.keys(s)) if (s[k] === '' || s[k] === null) delete s[k];
  go(s);
}

async function load() {
  const s = state();
  const filters = Object.assign({}, s);
  delete filters.page;
  showError(null);
  try {
    const [page, groups] = await Promise.all([
      api('/api/rollouts', Object.assign({size: PAGE_SIZE}, s)),
      api('/api/groups', filters)]);
    renderFilters(s, groups.values);
    renderList(page, s);
    renderGroups(groups);
    document.getElementById('dir').textContent = page.dir;
    showProblems('Result folders that could not be read', page.problems);
    renderRefused(page);
  } catch (e) {
    document.getElementById('count').textContent = '';
    showError(e.message);
  }
}

function renderFilters(s, values) {
  for (const k of ['environment', 'phase', 'detector', 'severity']) {
    const sel = document.getElementById('f-' + k);
    const opts = values[k] || [];
    sel.replaceChildren(el('option', {value: '', text: 'all'}));
    for (const v of opts) sel.append(el('option', {value: v, text: v}));
    if (s[k] && !opts.includes(s[k])) sel.append(el('option', {value: s[k], text: s[k] + ' (none)'}));
    sel.value = s[k] || '';
  }
  document.getElementById('f-minReward').value = s.minReward || '';
  document.getElementById('f-maxReward').value = s.maxReward || '';
  document.getElementById('f-since').value = s.since || '';
  document.getElementById('f-until').value = s.until || '';
  document.getElementById('f-label').value = s.label || '';
  const chip = document.getElementById('f-pattern');
  chip.hidden = !s.pattern;
  chip.replaceChildren();
  if (s.pattern) chip.append('pattern ' + s.pattern + ' ', el('a', {href: '#', text: '×', title: 'remove', onclick: ev => { ev.preventDefault(); setFilter({pattern: null}); }}));
}

function renderList(page, s) {
  const count = document.getElementById('count');
  const filters = Object.assign({}, s);
  delete filters.page;
  fill(count, page.total + ' of ' + page.all + ' rollouts' + (page.total === page.all ? '' : ' match the filters')
    + (page.pages > 1 ? ' · page ' + page.page + ' of ' + page.pages : ''),
    page.total > 0 && page.total <= 500 ? [' · ', el('a', {id: 'export', href: url('/api/export', filters), download: true,
      title: 'one Harbor ATIF v1.8 document per rollout, for Docent, Inspect or Harbor',
      text: 'export ' + (page.total === 1 ? 'it' : 'these ' + page.total) + ' as ATIF (zip)',
      onclick: page.cluster ? ev => { ev.preventDefault(); download(url('/api/export', filters)); } : null})] : null);
  const body = document.querySelector('#rollouts tbody');
  body.replaceChildren();
  if (page.items.length === 0) {
    body.append(el('tr', {}, el('td', {colspan: 8, class: 'empty',
      text: page.all === 0 && page.cluster ? 'No rollouts you may see (' + page.dir + ').'
        : page.all === 0 ? 'No rollouts under ' + page.dir + ' (no result.json found): run crucible run --out there first.'
        : page.page > page.pages ? 'Page ' + page.page + ' is past the last page (' + page.pages + ').'
        : 'No rollout matches these filters.'})));
  }
  for (const r of page.items) {
    const findings = r.findings.filter(f => (!s.detector || f.detector === s.detector) && (!s.severity || f.severity === s.severity)
      && (!s.pattern || f.pattern === s.pattern));
    const shown = s.detector || s.severity || s.pattern ? findings : r.findings;
    const detectors = [...new Map(shown.map(f => [f.detector, f])).values()];
    const first = {at: 'first-finding'};
    if (s.detector) first.detector = s.detector;
    body.append(el('tr', {'data-id': r.id},
      el('td', {}, el('a', {class: 'rollout', href: traceUrl(r.id), text: r.id}),
        r.trajectory && !r.trajectory.present ? el('span', {class: 'muted', text: ' (no trajectory)'}) : null,
        labelChips(r.labels)),
      el('td', {text: r.environment || '—'}),
      el('td', {title: r.message || ''}, phaseBadge(r.phase)),
      el('td', {class: 'num', text: fmtReward(r.reward)}),
      el('td', {class: 'num', text: r.tests ? r.tests.passed + '/' + r.tests.total : '—'}),
      el('td', {}, detectors.map(f => severityBadge(f.severity, f.detector)),
        r.findings.length > detectors.length ? el('span', {class: 'muted', text: ' +' + (r.findings.length - detectors.length)}) : null),
      el('td', {class: 'time', text: fmtTime(r.startedAt)}),
      el('td', {}, r.findings.length ? el('a', {class: 'first-finding', href: traceUrl(r.id, first), text: 'first finding →'}) : null)));
  }
  const pager = document.getElementById('pager');
  pager.replaceChildren();
  if (page.pages > 1) {
    const at = page.page;
    const to = n => Object.assign({}, s, {page: n});
    if (at > 1) pager.append(el('a', {href: url('/', to(at - 1)), text: '← newer', onclick: nav(to(at - 1))}));
    pager.append(el('span', {text: ' page ' + at + ' of ' + page.pages + ' '}));
    if (at < page.pages) pager.append(el('a', {href: url('/', to(at + 1)), text: 'older →', onclick: nav(to(at + 1))}));
  }
}

/** A rollout's labels, each a link filtering the list to it (key=value). */
function labelChips(labels) {
  const entries = Object.entries(labels || {});
  if (entries.length === 0) return null;
  return el('div', {class: 'labels'}, entries.map(([k, v]) => el('a', {class: 'label-chip', href: url('/', {label: k + '=' + v}),
    text: k + '=' + v, onclick: ev => { ev.preventDefault(); setFilter({label: k + '=' + v}); }})));
}

/** Cluster mode: namespaces asked for that the API server refused this person are named, never shown as empty. */
function renderRefused(page) {
  const box = document.getElementById('refused');
  const refused = page.refusedNamespaces || [];
  box.hidden = refused.length === 0;
  fill(box, refused.length ? 'Refused: you may not list Rollouts in namespace' + (refused.length > 1 ? 's ' : ' ') + refused.join(', ')
    + ' (the API server answered 403 for your token), so nothing of ' + (refused.length > 1 ? 'them' : 'it') + ' is shown here.' : null);
  document.getElementById('ns-filter').hidden = !page.cluster;
  document.getElementById('f-namespace').value = params().namespace || '';
}

function nav(next) {
  return ev => { ev.preventDefault(); go(next); };
}

function renderGroups(g) {
  const ed = document.querySelector('#by-env-detector tbody');
  ed.replaceChildren();
  for (const row of g.byEnvironmentDetector) {
    ed.append(el('tr', {},
      el('td', {text: row.environment}),
      el('td', {}, el('a', {href: url('/', {environment: row.environment, detector: row.detector}), text: row.detector,
        onclick: ev => { ev.preventDefault(); setFilter({environment: row.environment, detector: row.detector}); }})),
      el('td', {class: 'num', text: row.rollouts})));
  }
  if (g.byEnvironmentDetector.length === 0) ed.append(el('tr', {}, el('td', {colspan: 3, class: 'empty', text: 'No findings in these rollouts.'})));
  const pt = document.querySelector('#by-pattern tbody');
  pt.replaceChildren();
  for (const p of g.byPattern) {
    pt.append(el('tr', {'data-pattern': p.pattern},
      el('td', {}, severityBadge(p.severity, p.detector), p.rule ? el('div', {class: 'muted', text: p.rule}) : null),
      el('td', {}, el('code', {text: p.path || '—'}), el('div', {class: 'shape', text: p.shape})),
      el('td', {class: 'num'}, el('a', {href: url('/', {pattern: p.pattern}), text: p.rollouts + (p.rollouts === 1 ? ' rollout' : ' rollouts'),
        title: p.findings + ' findings; e.g. ' + p.example, onclick: ev => { ev.preventDefault(); setFilter({pattern: p.pattern}); }}))));
  }
  if (g.patternsLeftOut > 0) pt.append(el('tr', {}, el('td', {colspan: 3, class: 'muted', text: g.patternsLeftOut + ' rarer patterns not shown'})));
  const env = document.querySelector('#by-env tbody');
  env.replaceChildren();
  for (const e of g.environments) {
    env.append(el('tr', {}, el('td', {text: e.environment}), el('td', {class: 'num', text: e.rollouts}),
      el('td', {class: 'num', text: Math.round(e.solveRate * 100) + '%'}),
      el('td', {class: 'band band-' + e.bandPosition, 'data-band': e.bandPosition,
        title: e.learnableBand.from === 'default' ? 'the default band (no summary.json names this environment\'s spec.learnableBand)' : 'from ' + e.learnableBand.from,
        text: e.bandPosition + ' [' + Math.round(e.learnableBand.minSolveRate * 100) + '%, ' + Math.round(e.learnableBand.maxSolveRate * 100) + '%]'}),
      el('td', {class: 'num', text: fmtReward(e.meanReward)}),
      el('td', {class: 'rewards', text: Object.entries(e.rewards).map(([r, n]) => fmtReward(Number(r)) + '×' + n).join('  ')})));
  }
}

document.getElementById('filters').addEventListener('change', ev => {
  const t = ev.target;
  if (t.name) setFilter({[t.name]: t.value.trim()});
});
document.getElementById('filters').addEventListener('submit', ev => ev.preventDefault());
document.getElementById('clear').addEventListener('click', () => go({}));
window.addEventListener('popstate', load);
load();

/**
 * Cluster mode: a link cannot carry the person's token, so the export is fetched with it and saved from memory
 * (the bundle holds at most 500 rollouts' trajectories).
 */
async function download(path) {
  const t = bearer();
  try {
    const res = await fetch(path, {headers: t ? {Authorization: 'Bearer ' + t} : {}});
    if (!res.ok) {
      let body = null;
      try { body = await res.json(); } catch (e) { body = null; }
      throw new Error(body && body.error ? body.error : 'HTTP ' + res.status + ' from ' + path);
    }
    const name = (/filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') || '') || [null, 'crucible-atif.zip'])[1];
    const a = el('a', {href: URL.createObjectURL(await res.blob()), download: name, id: 'export-saved', hidden: true});
    document.body.append(a);
    a.click();
  } catch (e) {
    showError('export: ' + e.message);
  }
}
