// "Mark this finding a false alarm": /false-alarm?rollout=ID&event=N shows the exact spec.hackPolicy change (YAML) that
// would stop this finding counting, and what else in this store it would touch. Nothing is changed by this page.
'use strict';

async function load() {
  const p = params();
  if (!p.rollout || !p.event) {
    showError('Give the finding: /false-alarm?rollout=ID&event=N (N: the finding\'s number on the trace view\'s timeline).');
    return;
  }
  let a;
  try {
    a = await api('/api/false-alarm', {id: p.rollout, seq: p.event});
  } catch (e) {
    showError(e.message);
    return;
  }
  fill(document.getElementById('finding'),
    el('p', {}, 'Finding ', el('a', {id: 'finding-link', href: traceUrl(a.id, {event: a.seq}), text: '#' + a.seq + ' of ' + a.id}), ' ',
      severityBadge(a.severity), ' ', el('code', {text: a.detector + (a.rule ? '/' + a.rule : '')}), a.path ? ' on ' + a.path : ''),
    a.evidence ? el('pre', {text: a.evidence}) : null,
    a.note ? el('p', {class: 'muted', text: a.note}) : null);
  document.getElementById('severity-yaml').textContent = a.severityYaml;
  document.getElementById('ignore-yaml').textContent = a.ignoreYaml;
  const x = a.alsoAffected;
  fill(document.getElementById('affected'),
    el('p', {id: 'affected-count', text: 'In this store it would also stop counting ' + x.findings + ' finding' + (x.findings === 1 ? '' : 's')
      + ' of ' + a.key + ' in ' + x.rollouts + ' rollout' + (x.rollouts === 1 ? '' : 's') + ' of environment ' + (a.environment || '—') + ' (this one included).'}),
    el('ul', {}, x.ids.map(id => el('li', {}, el('a', {href: traceUrl(id, {at: 'first-finding', detector: a.detector}), text: id})))));
}

load();
