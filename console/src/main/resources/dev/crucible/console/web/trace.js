// The trace view of one rollout: its timeline (steps, commands, file changes, findings marked at the event where they
// began), one event's call, output and diff, and the per-test grading. Its URL is its state:
// /trace?rollout=ID&event=N (one step), &at=first-finding[&detector=D] (resolved to the finding's event), &kind=K.
'use strict';

const BLOCK = 200;
let trace = null; // the current /api/trace page
let findings = [];

function blockOf(seq) { return Math.floor((seq - 1) / BLOCK) * BLOCK + 1; }

function setUrl(changes, replace) {
  const p = Object.assign(params(), changes);
  for (const k of Object.keys(p)) if (p[k] === null || p[k] === '') delete p[k];
  (replace ? history.replaceState : history.pushState).call(history, null, '', url('/trace', p));
}

async function load() {
  const p = params();
  showError(null);
  if (!p.rollout) {
    showError('No rollout given: open a rollout from the rollouts view, or add ?rollout=ID to this page\'s address.');
    return;
  }
  document.title = p.rollout + ' · Crucible console';
  let info;
  try {
    info = await api('/api/rollout', {id: p.rollout});
  } catch (e) {
    showError(e.message);
    document.getElementById('rollout').replaceChildren(el('h1', {text: p.rollout}));
    return;
  }
  renderHead(info);
  renderGrading(info.result);
  const event = p.event ? Number(p.event) : null;
  if (p.event && !(Number.isInteger(event) && event >= 1)) {
    showError('event=' + p.event + ' is not an event number: events are numbered #1, #2, … on the timeline.');
  }
  await loadTimeline(p.from ? Number(p.from) || 1 : event && event >= 1 ? blockOf(event) : 1);
  if (!trace) return;
  if (trace.present && trace.rows.length === 0 && trace.from > trace.lastSeq) await loadTimeline(trace.lastSeq ? blockOf(trace.lastSeq) : 1);
  if (p.at === 'first-finding') {
    const f = findings.find(x => !p.detector || x.detector === p.detector);
    if (!f) {
      showError('This rollout has no finding' + (p.detector ? ' of detector ' + p.detector : '') + ' in its trajectory.');
      return;
    }
    setUrl({at: null, detector: null, event: f.seq}, true);
    return load();
  }
  updateFindingNav(event || 0);
  if (event && event >= 1) await select(event, false);
}

async function loadTimeline(from) {
  const p = params();
  try {
    trace = await api('/api/trace', {id: p.rollout, from: from, limit: BLOCK, kind: p.kind});
  } catch (e) {
    trace = null;
    showError(e.message);
    return;
  }
  findings = trace.findings;
  showProblems('Parts of this trajectory could not be read', trace.problems);
  const kind = document.getElementById('kind');
  kind.replaceChildren(el('option', {value: '', text: 'every event'}));
  for (const [k, n] of Object.entries(trace.kinds)) kind.append(el('option', {value: k, text: k + ' (' + n + ')'}));
  kind.value = p.kind || '';
  const list = document.getElementById('timeline');
  list.replaceChildren();
  if (!trace.present) {
    list.append(el('li', {class: 'empty', text: trace.message}));
    return;
  }
  document.getElementById('timeline-title').textContent = 'Timeline · ' + trace.events + ' events, ' + findings.length + ' findings';
  for (const r of trace.rows) {
    list.append(el('li', {id: 'e' + r.seq, class: 'ev kind-' + r.kind.replace(/\./g, '-') + (r.findings.length ? ' began-finding' : '')},
      el('a', {href: traceUrl(p.rollout, {event: r.seq, kind: p.kind}), onclick: ev => { ev.preventDefault(); select(r.seq, true); }},
        el('span', {class: 'seq', text: '#' + r.seq}),
        el('span', {class: 'kind', text: r.kind}),
        r.severity ? severityBadge(r.severity) : null,
        el('span', {class: 'sum', text: r.summary})),
      r.findings.length ? el('span', {class: 'marks'}, r.findings.map(s => {
        const f = findings.find(x => x.seq === s);
        return severityBadge(f ? f.severity : null, '⚑ ' + (f ? f.detector : '#' + s));
      })) : null));
  }
  if (trace.rows.length === 0) list.append(el('li', {class: 'empty', text: 'No events here (from #' + from + ').'}));
  for (const id of ['timeline-pager', 'timeline-pager-top']) {
    const pager = document.getElementById(id);
    pager.replaceChildren();
    if (from > 1) pager.append(el('a', {href: '#', text: '← earlier', onclick: ev => { ev.preventDefault(); setUrl({from: Math.max(1, from - BLOCK)}); loadTimeline(Math.max(1, from - BLOCK)); }}));
    const last = trace.rows.length ? trace.rows[trace.rows.length - 1].seq : from;
    if (last < trace.lastSeq) pager.append(el('a', {href: '#', text: 'later →', onclick: ev => { ev.preventDefault(); setUrl({from: last + 1}); loadTimeline(last + 1); }}));
  }
}

async function select(seq, push) {
  const p = params();
  if (push) setUrl({event: seq, from: null});
  if (trace && trace.present && !trace.rows.some(r => r.seq === seq) && seq <= trace.lastSeq) await loadTimeline(blockOf(seq));
  document.querySelectorAll('#timeline li.selected').forEach(x => x.classList.remove('selected'));
  const row = document.getElementById('e' + seq);
  if (row) { row.classList.add('selected'); row.scrollIntoView({block: 'nearest'}); }
  updateFindingNav(seq);
  const box = document.getElementById('step');
  box.replaceChildren(el('p', {class: 'muted', text: 'Loading #' + seq + '…'}));
  let d;
  try {
    d = await api('/api/event', {id: p.rollout, seq: seq});
  } catch (e) {
    box.replaceChildren(el('p', {class: 'error', id: 'step-error', text: e.message}));
    showError(e.message);
    return;
  }
  showError(null);
  fill(box,
    el('h2', {id: 'step-title'}, '#' + d.seq + ' ', el('span', {class: 'kind', text: d.kind}), d.step !== null && d.step !== undefined ? ' · step ' + d.step : ''),
    el('p', {class: 'time', text: fmtTime(d.time)}),
    el('p', {class: 'sum', text: d.summary}),
    d.problems.length ? el('ul', {class: 'problems'}, d.problems.map(x => el('li', {text: x}))) : null,
    links('Follows from', d.causes, p.rollout),
    links(d.kind === 'file' || d.kind === 'process.start' ? 'Led to' : 'Events that follow from it', d.caused, p.rollout),
    d.call ? block('Call', d.call, 'call') : null,
    d.output ? block(d.kind === 'finding' ? 'Evidence' : 'Output', d.output, 'output') : null,
    d.diff ? diffBlock(d.diff) : null,
    causeDiff(d, p.rollout),
    revertForm(d, p.rollout),
    el('p', {class: 'local-only'}, el('a', {id: 'workspace-link', href: url('/workspace', {rollout: p.rollout, event: d.seq}),
      text: 'The workspace at this step (from the snapshot at or before it)…'})),
    d.kind === 'finding' ? el('p', {}, el('a', {id: 'false-alarm', href: url('/false-alarm', {rollout: p.rollout, event: d.seq}),
      text: 'Mark this finding a false alarm… (shows the hackPolicy change; changes nothing)'})) : null);
}

/**
 * Cluster mode: "revert to the snapshot before this step and continue with this patch" creates a branch Rollout on the
 * API server with the person's own token (a refusal is shown as the API server gave it). Locally there is nothing to
 * create it in: the form is hidden (cluster-only).
 */
function revertForm(d, id) {
  const path = el('input', {id: 'revert-path', size: 40, placeholder: 'e.g. conftest.py', 'aria-label': 'file to replace'});
  const content = el('textarea', {id: 'revert-content', rows: 5, cols: 70, placeholder: 'the file\'s new content (empty: an empty file)', 'aria-label': 'new content'});
  const out = el('div', {id: 'revert-result'});
  const button = el('button', {type: 'submit', id: 'revert-submit', text: 'Create the branch'});
  const form = el('form', {class: 'revert', id: 'revert-form'},
    el('p', {class: 'muted', text: 'A new Rollout restored from the last snapshot at or before #' + d.seq + ', with this file replaced '
      + 'before the agent continues. It is created with your own Kubernetes permissions.'}),
    el('label', {}, 'File ', path), el('br'), content, el('br'), button, out);
  form.addEventListener('submit', async ev => {
    ev.preventDefault();
    button.disabled = true;
    fill(out, el('p', {class: 'muted', text: 'Creating the branch…'}));
    const patches = path.value.trim() ? [{path: path.value.trim(), content: content.value}] : [];
    try {
      const b = await apiPost('/api/revert', {id: id, seq: d.seq, patches: patches});
      fill(out, el('p', {class: 'ok', id: 'revert-done'}, 'Created ', el('a', {id: 'revert-branch', href: b.link, text: b.id}),
        ' restored from snapshot ', el('code', {id: 'revert-snapshot', text: b.snapshot}), ' (' + b.snapshotBecause + ') with '
        + b.patches + ' patch' + (b.patches === 1 ? '' : 'es') + '.'));
    } catch (e) {
      fill(out, el('p', {class: 'error', id: 'revert-error', text: e.message}));
    } finally {
      button.disabled = false;
    }
  });
  return el('details', {class: 'cluster-only', id: 'revert'}, el('summary', {text: 'Revert to the snapshot before this step and continue with a patch…'}), form);
}

function links(title, list, id) {
  if (!list || list.length === 0) return null;
  return el('div', {class: 'links'}, el('h3', {text: title}), el('ul', {}, list.map(l => el('li', {},
    el('a', {class: 'cause', href: traceUrl(id, {event: l.seq}), onclick: ev => { ev.preventDefault(); select(l.seq, true); }},
      '#' + l.seq + ' ', el('span', {class: 'kind', text: l.kind}), ' '), l.severity ? severityBadge(l.severity) : null, ' ' + l.summary))));
}

function block(title, text, cls) {
  return el('div', {class: 'block ' + cls}, el('h3', {text: title}), el('pre', {text: text}));
}

function diffBlock(diff) {
  const pre = el('pre', {class: 'diff', id: 'diff'});
  for (const line of diff.split('\n')) {
    const c = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : '';
    pre.append(el('span', {class: c, text: line + '\n'}));
  }
  return el('div', {class: 'block'}, el('h3', {text: 'Diff'}), pre);
}

/** A finding's own event has no diff: say which event it began at, with a link (its diff is one click away). */
function causeDiff(d, id) {
  if (d.kind !== 'finding' || !d.causes.length) return null;
  const c = d.causes[0];
  return el('p', {class: 'began'}, 'This finding began at ',
    el('a', {id: 'began-at', href: traceUrl(id, {event: c.seq}), onclick: ev => { ev.preventDefault(); select(c.seq, true); }}, '#' + c.seq + ' ' + c.summary),
    ': open it for its diff.');
}

function updateFindingNav(seq) {
  const pos = document.getElementById('finding-pos');
  const i = findings.findIndex(f => f.seq === seq || f.at === seq);
  pos.textContent = findings.length === 0 ? 'no findings' : i >= 0 ? 'finding ' + (i + 1) + ' of ' + findings.length : findings.length + ' findings';
  document.getElementById('first-finding').disabled = findings.length === 0;
  document.getElementById('prev-finding').disabled = !findings.some(f => f.seq < seq);
  document.getElementById('next-finding').disabled = !findings.some(f => f.seq > seq);
}

function renderHead(info) {
  const r = info.summary;
  const head = document.getElementById('rollout');
  fill(head,
    el('h1', {text: r.id}),
    el('p', {}, phaseBadge(r.phase), ' ', r.reason || '', ' · reward ', el('strong', {text: fmtReward(r.reward)}),
      r.tests ? ' · tests ' + r.tests.passed + '/' + r.tests.total + ' passed' : '', ' · environment ', r.environment || '—',
      ' · ', r.findings.length + ' finding' + (r.findings.length === 1 ? '' : 's'),
      r.trajectory && r.trajectory.complete === false ? el('span', {class: 'badge sev-high', text: 'trajectory incomplete'}) : null),
    r.message ? el('p', {class: 'muted', text: r.message}) : null,
    el('p', {class: 'view-links'}, el('a', {id: 'lineage-link', href: url('/lineage', {rollout: r.id}), text: 'Snapshot lineage'}), ' · ',
      el('a', {id: 'compare-link', href: url('/compare', {a: r.id}), text: 'Compare with another rollout of ' + (r.environment || 'this task')})));
  showProblems('result.json could not be read', info.problems);
}

function renderGrading(result) {
  const box = document.getElementById('grading');
  box.replaceChildren();
  const tests = result && result.tests && result.tests.details;
  if (!tests || tests.length === 0) {
    box.append(el('p', {class: 'muted', text: 'No per-test results (the rollout was not graded by a test suite).'}));
    return;
  }
  box.append(el('p', {text: result.tests.passed + ' passed, ' + result.tests.failed + ' failed, ' + result.tests.skipped + ' skipped of ' + result.tests.total}),
    el('table', {class: 'grid small', id: 'tests'}, el('thead', {}, el('tr', {}, ['Test', 'Group', 'Status', 'ms'].map(h => el('th', {text: h})))),
      el('tbody', {}, tests.map(t => el('tr', {class: 'test-' + t.status},
        el('td', {}, el('code', {text: t.id}), t.message ? el('details', {}, el('summary', {text: 'message'}), el('pre', {text: t.message})) : null),
        el('td', {text: t.group || ''}), el('td', {}, el('span', {class: 'badge status-' + t.status, text: t.status})),
        el('td', {class: 'num', text: t.durationMs === undefined ? '' : t.durationMs}))))));
}

function jumpFinding(which) {
  const cur = Number(params().event) || 0;
  let f = null;
  if (which === 'first') f = findings[0];
  if (which === 'next') f = findings.find(x => x.seq > cur);
  if (which === 'prev') f = [...findings].reverse().find(x => x.seq < cur);
  if (f) select(f.seq, true);
}

document.getElementById('first-finding').addEventListener('click', () => jumpFinding('first'));
document.getElementById('next-finding').addEventListener('click', () => jumpFinding('next'));
document.getElementById('prev-finding').addEventListener('click', () => jumpFinding('prev'));
document.getElementById('kind').addEventListener('change', ev => { setUrl({kind: ev.target.value, from: null}); load(); });
window.addEventListener('popstate', load);
load();
