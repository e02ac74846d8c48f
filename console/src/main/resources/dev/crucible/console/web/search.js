// Full-text search over every rollout's commands, outputs, diffs and findings. The URL is the view:
// /search?q=WORDS[&environment=E&phase=P&detector=D&kind=K&page=N]; each hit links to its event in the trace view.
'use strict';

const FIELDS = ['q', 'environment', 'phase', 'detector', 'kind'];
const KINDS = ['process.start', 'output', 'file', 'finding', 'step', 'reset', 'verify', 'snapshot', 'grading', 'outcome', 'agent.step'];

async function load() {
  const p = params();
  showError(null);
  for (const f of FIELDS) document.getElementById('s-' + f).value = p[f] || '';
  document.getElementById('search-q').value = p.q || '';
  const list = document.getElementById('results');
  const count = document.getElementById('count');
  list.replaceChildren();
  document.getElementById('pager').replaceChildren();
  if (!p.q) {
    count.textContent = 'Type words to search for: every one must be in the event; "quoted words" in that order.';
    return;
  }
  document.title = p.q + ' · search · Crucible console';
  count.textContent = 'Searching…';
  let r;
  try {
    r = await api('/api/search', p);
  } catch (e) {
    count.textContent = '';
    showError(e.message);
    return;
  }
  const ix = r.indexing;
  count.textContent = r.matches + ' matching event' + (r.matches === 1 ? '' : 's') + ' in ' + r.rollouts + ' rollout' + (r.rollouts === 1 ? '' : 's')
    + (r.capped ? ' (the best ' + r.matches + ' shown by rollout)' : '') + ' · ' + Math.round(r.tookMs) + ' ms'
    + (ix.done ? '' : ' · still indexing: ' + ix.indexed + ' of ' + ix.rollouts + ' rollouts so far, results may be missing')
    + (r.trajectoriesLeftOut ? ' · searched ' + r.trajectoriesRead + ' rollouts\' trajectories, ' + r.trajectoriesLeftOut
      + ' more left out (a cluster search reads them on each request): narrow it with the filters' : '');
  if (r.items.length === 0) list.append(el('li', {class: 'empty', text: 'No event matches ' + JSON.stringify(p.q) + ' with these filters.'}));
  for (const it of r.items) {
    list.append(el('li', {class: 'hit-rollout'},
      el('a', {class: 'rollout', href: traceUrl(it.id), text: it.id}), ' ', phaseBadge(it.phase),
      ' reward ', el('strong', {text: fmtReward(it.reward)}), ' · ' + (it.environment || '—') + ' · ' + it.hits + ' matching event' + (it.hits === 1 ? '' : 's'),
      el('ul', {}, it.events.map(h => el('li', {},
        el('a', {class: 'hit', href: traceUrl(it.id, {event: h.seq})}, '#' + h.seq + ' ', el('span', {class: 'kind', text: h.kind}), ' ' + h.summary),
        h.snippet ? el('div', {class: 'snippet', text: h.snippet}) : null)))));
  }
  const pager = document.getElementById('pager');
  const page = r.page;
  if (page > 1) pager.append(el('a', {href: url('/search', Object.assign({}, p, {page: page - 1})), text: '← previous'}));
  pager.append(el('span', {text: ' page ' + page + ' of ' + r.pages + ' '}));
  if (page < r.pages) pager.append(el('a', {href: url('/search', Object.assign({}, p, {page: page + 1})), text: 'next →'}));
}

const kind = document.getElementById('s-kind');
for (const k of KINDS) kind.append(el('option', {value: k, text: k}));
document.getElementById('search-form').addEventListener('submit', ev => {
  ev.preventDefault();
  const p = {};
  for (const f of FIELDS) p[f] = document.getElementById('s-' + f).value.trim();
  history.pushState(null, '', url('/search', p));
  load();
});
window.addEventListener('popstate', load);
load();
