// The snapshot lineage of a rollout as a tree: /lineage?rollout=ID. Rollouts (root, branch, revert) with their reward,
// the snapshots each took (a link to the event that recorded it), and the rollouts restored from each snapshot.
'use strict';

function node(n, current) {
  if (n.type === 'snapshot') {
    return el('li', {class: 'node-snapshot'},
      el('span', {class: 'label'}, '◆ snapshot ', el('a', {class: 'snapshot', href: n.link, text: n.id}),
        n.seq ? ' at event #' + n.seq : '', n.trigger ? ' (' + n.trigger + ')' : '', n.note ? el('span', {class: 'muted', text: ' · ' + n.note}) : null),
      n.children.length ? el('ul', {}, n.children.map(c => node(c, current))) : null);
  }
  return el('li', {class: 'node-rollout' + (n.id === current ? ' current' : ''), 'data-kind': n.kind},
    el('span', {class: 'label'}, n.kind + ' ', el('a', {class: 'rollout', href: n.link, text: n.id}), ' ', phaseBadge(n.phase),
      ' reward ', el('strong', {class: 'reward', text: fmtReward(n.reward)}),
      ' ', el('a', {href: url('/lineage', {rollout: n.id}), text: '(its lineage)'}),
      n.note ? el('span', {class: 'muted', text: ' · ' + n.note}) : null),
    n.children.length ? el('ul', {}, n.children.map(c => node(c, current))) : el('span', {class: 'muted', text: ' · no snapshots'}));
}

async function load() {
  const p = params();
  const tree = document.getElementById('tree');
  tree.replaceChildren();
  if (!p.rollout) {
    showError('No rollout given: open the lineage from a rollout\'s trace view, or add ?rollout=ID to this page\'s address.');
    return;
  }
  document.getElementById('title').textContent = 'Snapshot lineage of ' + p.rollout;
  let t;
  try {
    t = await api('/api/lineage', {id: p.rollout});
  } catch (e) {
    showError(e.message);
    tree.append(el('li', {class: 'empty', text: 'No lineage to show.'}));
    return;
  }
  showProblems('Parts of the trajectories could not be read', t.problems);
  tree.append(node(t.tree, t.id));
  if (t.capped) tree.append(el('li', {class: 'muted', text: 'Only the first ' + t.nodes + ' nodes are shown.'}));
}

window.addEventListener('popstate', load);
load();
