// The analysis board (docs/dashboard.md "Analysis"): any position -- the game
// viewer's current move, the browser game, stones clicked on the board or a
// pasted list -- analysed by the run's analysis engine.  While the search
// runs the board shows the best moves with their win rates (proven wins and
// losses as W<n> / L<n>), the policy heat map, and a move's line on hover;
// the table lists visits, win rate, prior and line.  Uses app.js's $, el and
// paint, and its viewer / play state.
'use strict';

const analysis = { id: null, moves: [], size: 15, state: null, timer: null, hover: null };
const ANALYSIS_POLL_MS = 300;

function analysisPoint(text, n) {  // "X,Y" (column, row) -> row * n + column
  const [x, y] = text.split(',').map(Number);
  return y * n + x;
}

function analysisRowCol(text) {  // the engine's "X,Y" as the dashboard's "row,col"
  const [x, y] = text.split(',');
  return y + ',' + x;
}

function analysisLabel(m) {
  if (m.proof) return (m.proof.result === 'win' ? 'W' : 'L') + m.proof.plies;
  return Math.round(100 * m.winrate) + '';
}

function analysisShow() {
  const n = analysis.size, box = $('analysis-board');
  const cells = new Array(n * n).fill(0);
  analysis.moves.forEach((p, i) => { cells[p] = i % 2 === 0 ? 1 : 2; });
  const a = analysis.state && analysis.state.analysis;
  const heat = a && a.policy ? a.policy.map((x) => Math.max(0, x)) : null;
  const last = analysis.moves.length ? analysis.moves[analysis.moves.length - 1] : -1;
  paint(box, n, cells, heat, last, -1, analysisClick);
  const infos = a ? a.moveInfos : [];
  const divs = box.children;
  infos.slice(0, 8).forEach((m, i) => {
    const p = analysisPoint(m.move, n);
    const cls = 'amark' + (i === 0 ? ' best' : '') + (m.proof ? ' proven-' + m.proof.result : '');
    divs[p].append(el('div', { class: cls, title: m.visits + ' visits, prior ' + (100 * m.prior).toFixed(1) + '%',
                              'data-visits': m.visits }, analysisLabel(m)));
  });
  if (analysis.hover !== null && infos[analysis.hover]) {  // the hovered move's line, numbered
    const colour0 = analysis.moves.length % 2 === 0 ? 'black' : 'white';
    infos[analysis.hover].pv.forEach((mv, k) => {
      const p = analysisPoint(mv, n);
      const colour = (k % 2 === 0) === (colour0 === 'black') ? 'black' : 'white';
      divs[p].replaceChildren(el('div', { class: 'apv ' + colour }, String(k + 1)));
    });
  }
  const rows = infos.slice(0, 12).map((m, i) => {
    const tr = el('tr', { 'data-order': i });
    [analysisRowCol(m.move), m.visits, m.proof ? (m.proof.result + ' in ' + m.proof.plies) : (100 * m.winrate).toFixed(1) + '%',
     (100 * m.prior).toFixed(1) + '%', m.pv.slice(0, 8).map(analysisRowCol).join(' ')].forEach((v) => tr.append(el('td', {}, String(v))));
    tr.addEventListener('mouseenter', () => { analysis.hover = i; analysisShow(); });
    tr.addEventListener('mouseleave', () => { analysis.hover = null; analysisShow(); });
    return tr;
  });
  $('analysis-table').querySelector('tbody').replaceChildren(...rows);
  const s = analysis.state;
  $('analysis-status').textContent = !s ? '' : s.error ? 'refused: ' + s.error
    : (s.done ? 'done' : 'searching') + (a ? ', ' + a.rootInfo.visits + ' visits, ' + a.rootInfo.currentPlayer +
      ' to move, win rate ' + (a.proof ? a.proof.result + ' in ' + a.proof.plies + ' plies' : (100 * a.rootInfo.winrate).toFixed(1) + '%') : '') +
      ' (' + s.net + ')';
  $('analysis-status').dataset.visits = a ? a.rootInfo.visits : 0;
  $('analysis-status').dataset.done = s ? String(s.done) : '';
}

async function analysisPoll() {
  analysis.timer = null;
  if (!analysis.id) return;
  const id = analysis.id;
  try {
    const state = await getJson('/api/analysis/state?id=' + encodeURIComponent(id));
    if (id !== analysis.id) return;  // a newer analysis started meanwhile
    analysis.state = state;
    analysisShow();
    if (!analysis.state.done) analysis.timer = setTimeout(analysisPoll, ANALYSIS_POLL_MS);
  } catch (err) {
    $('analysis-status').textContent = String(err.message || err);
  }
}

// Stops the search; polling goes on until its final response.
function analysisStop() {
  if (analysis.id && analysis.state && !analysis.state.done)
    fetch('/api/analysis/stop', { method: 'POST', body: JSON.stringify({ id: analysis.id }) }).catch(() => {});
}

async function analysisStart(moves, size) {
  analysisStop();
  if (analysis.timer) clearTimeout(analysis.timer);
  analysis.timer = null;
  analysis.moves = moves.slice();
  analysis.size = size || analysis.size;
  analysis.state = null;
  analysis.hover = null;
  analysis.id = null;
  analysisShow();
  try {
    const r = await getJson('/api/analysis/start', { method: 'POST', body: JSON.stringify({ moves: analysis.moves }) });
    analysis.id = r.id;
    analysis.size = r.board_size;
    $('analysis-status').textContent = 'searching (' + r.net + ')';
    analysisPoll();
  } catch (err) {
    $('analysis-status').textContent = String(err.message || err);
  }
}

function analysisClick(p) {  // set up a position: a stone of the side to move, then a new analysis
  if (analysis.moves.includes(p)) return;
  analysisStart(analysis.moves.concat([p]), analysis.size);
}

function analysisFromViewer() {
  const g = viewer.game;
  if (!g) return;
  // The opening's stones first: they are on the viewer's board but not in g.moves.
  analysisStart(g.opening.concat(g.moves.slice(0, viewer.step).map((m) => m.point)), g.board_size);
  $('analysis').scrollIntoView();
}

function analysisFromPlay() {
  if (play.state) analysisStart(play.state.moves, play.state.board_size);
}

function analysisPaste() {  // "row,col row,col ..." (as the boards' tooltips show points)
  const n = analysis.size, moves = [];
  for (const t of $('analysis-input').value.trim().split(/\s+/).filter(Boolean)) {
    const [r, c] = t.split(',').map(Number);
    if (!(r >= 0 && r < n && c >= 0 && c < n)) { $('analysis-status').textContent = 'not a point: ' + t; return; }
    moves.push(r * n + c);
  }
  analysisStart(moves, n);
}

window.addEventListener('DOMContentLoaded', () => {
  const section = el('section', { id: 'analysis' });
  section.innerHTML = '<h2>Analysis</h2><div class="controls">' +
    '<button id="analysis-from-viewer">analyse the viewer\'s position</button>' +
    '<button id="analysis-from-play">analyse the browser game</button>' +
    '<input id="analysis-input" size="30" placeholder="row,col row,col ... (black first)">' +
    '<button id="analysis-paste">analyse</button><button id="analysis-clear">empty board</button>' +
    '<button id="analysis-stop">stop</button> <span id="analysis-status" class="muted"></span></div>' +
    '<div class="row"><div id="analysis-board" class="board"></div>' +
    '<table id="analysis-table"><thead><tr><th>move (row,col)</th><th>visits</th><th>win</th><th>prior</th><th>line</th>' +
    '</tr></thead><tbody></tbody></table></div>' +
    '<p class="muted">Click a point to add a stone; hover a row to see its line. Win rates are for the side to ' +
    'move; W5 / L5: proven win / loss in 5 plies.</p>';
  const viewerSection = $('viewer');
  viewerSection.parentNode.insertBefore(section, viewerSection.nextSibling);
  $('analysis-from-viewer').addEventListener('click', analysisFromViewer);
  $('analysis-from-play').addEventListener('click', analysisFromPlay);
  $('analysis-paste').addEventListener('click', analysisPaste);
  $('analysis-clear').addEventListener('click', () => analysisStart([], analysis.size));
  $('analysis-stop').addEventListener('click', analysisStop);
  // Leaving the page stops the search (the server also stops one nobody polls).
  window.addEventListener('pagehide', () => {
    if (analysis.id && analysis.state && !analysis.state.done)
      navigator.sendBeacon('/api/analysis/stop', JSON.stringify({ id: analysis.id }));
  });
  analysisShow();
});
