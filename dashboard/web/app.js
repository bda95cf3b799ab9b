// The dashboard page: polls the JSON endpoints (docs/dashboard.md) and draws
// them.  Loads nothing but this server's files.  After each render every chart
// container carries data-points (non-null points of its first data set), the
// boards carry data-stones, and <body data-ready="N"> counts finished polls:
// tests read the rendered DOM through these.
'use strict';

const POLL_MS = 3000;
const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const charts = {};
let polls = 0;

function $(id) { return document.getElementById(id); }
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
async function getJson(url, options) {
  const r = await fetch(url, options);
  const body = await r.json().catch(() => ({ error: 'not JSON (HTTP ' + r.status + ')' }));
  if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
  return body;
}
function fmt(x, digits) { return (x === null || x === undefined) ? '-' : Number(x).toFixed(digits); }
function duration(s) {
  if (s === null || s === undefined) return 'unknown';
  s = Math.round(s);
  if (s < 120) return s + ' s';
  if (s < 7200) return Math.round(s / 60) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

// ---- charts ---------------------------------------------------------------
function lineSet(label, data, i, extra) {
  return Object.assign({ label, data, borderColor: COLOURS[i % COLOURS.length],
                         backgroundColor: COLOURS[i % COLOURS.length], pointRadius: 2, borderWidth: 1.5,
                         spanGaps: true, tension: 0 }, extra || {});
}
function draw(id, type, labels, datasets, options) {
  const box = $(id);
  if (typeof Chart === 'undefined') throw new Error('Chart.js did not load (/vendor/chart.js)');
  let c = charts[id];
  if (!c) {
    c = charts[id] = new Chart(box.querySelector('canvas'), {
      type, data: { labels: [], datasets: [] },
      options: Object.assign({ animation: false, responsive: true, maintainAspectRatio: false,
                               interaction: { mode: 'index', intersect: false },
                               plugins: { legend: { labels: { boxWidth: 12 } } } }, options || {}),
    });
  }
  c.data.labels = labels;
  c.data.datasets = datasets;
  c.update('none');
  const first = datasets.length ? datasets[0].data : [];
  box.dataset.points = first.filter((v) => v !== null && v !== undefined).length;
  box.dataset.labels = labels.length;
}
const stacked = { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } };

function drawSeries(s) {
  const it = s.iterations;
  draw('chart-loss', 'line', it, [lineSet('policy loss', s.policy_loss, 0), lineSet('value loss', s.value_loss, 1)]);
  draw('chart-entropy', 'line', it, [lineSet('entropy (nats)', s.entropy, 2)]);
  draw('chart-rate', 'line', it, [lineSet('games/min', s.games_per_min, 0)]);
  draw('chart-batch', 'line', it, [lineSet('average batch', s.avg_batch, 0, { yAxisID: 'y' }),
                                   lineSet('fill (batch / max_batch)', s.batch_fill, 1, { yAxisID: 'y1' })],
       { scales: { y: { beginAtZero: true }, y1: { position: 'right', min: 0, max: 1, grid: { drawOnChartArea: false } } } });
  draw('chart-busy', 'line', it, [lineSet('forward busy (share of wall time)', s.forward_busy, 3)],
       { scales: { y: { min: 0, max: 1 } } });
  draw('chart-time', 'bar', it, [lineSet('self-play', s.selfplay_s, 0), lineSet('training', s.training_s, 1),
                                 lineSet('reload', s.reload_s, 2)], stacked);
  draw('chart-length', 'line', it, [lineSet('moves per game', s.avg_game_length, 4)]);
  draw('chart-wins', 'bar', it, [lineSet('black', s.black_share, 0, { backgroundColor: '#222' }),
                                 lineSet('white', s.white_share, 1, { backgroundColor: '#ddd' }),
                                 lineSet('draw', s.draw_share, 2, { backgroundColor: '#9c9' })],
       { scales: { x: { stacked: true }, y: { stacked: true, min: 0, max: 1 } } });
}

const entryLabels = {};  // ladder entry -> its short name, from the last ratings poll
function drawRatings(r) {
  const it = r.iterations;
  const band = 'rgba(31, 119, 180, 0.18)';
  const sets = [lineSet('checkpoint', r.elo, 0),
                lineSet('95% low', r.elo_low, 0, { pointRadius: 0, borderWidth: 0, fill: false }),
                lineSet('95% high', r.elo_high, 0, { pointRadius: 0, borderWidth: 0, fill: '-1', backgroundColor: band })];
  const scores = [];
  let i = 1;
  for (const [entry, o] of Object.entries(r.opponents)) {
    const name = o.label || entry;  // short and distinct (run_data.h ShortEntryNames), not an absolute path
    entryLabels[entry] = name;
    if (o.elo.some((v) => v !== null && v !== 0)) sets.push(lineSet(name, o.elo, i, { borderDash: [4, 3] }));
    scores.push(lineSet(name, o.score, i));
    i++;
  }
  $('anchor').textContent = r.anchor ? ('anchor ' + r.anchor + ' = 0') : 'no ratings yet';
  draw('chart-elo', 'line', it, sets, { plugins: { legend: { labels: { filter: (l) => !l.text.startsWith('95%') } } } });
  draw('chart-score', 'line', it, scores, { scales: { y: { min: 0, max: 1 } } });
}

// ---- live state -----------------------------------------------------------
function fillTable(id, rows) {
  const body = $(id).querySelector('tbody');
  body.replaceChildren(...rows.map(([k, v, cls]) => {
    const tr = el('tr');
    tr.append(el('th', {}, k), el('td', cls ? { class: cls } : {}, v));
    return tr;
  }));
}
function drawStatus(s) {
  $('run-dir').textContent = s.run_dir || '';
  $('warnings').replaceChildren(...(s.warnings || []).map((w) => el('li', {}, w)));
  if (s.iteration === null || s.iteration === undefined) {
    $('iteration').textContent = '-';
    $('progress-text').textContent = 'the run has not started';
  } else {
    $('iteration').textContent = s.iteration;
    const pct = s.target_games ? Math.min(100, 100 * s.games / s.target_games) : 0;
    $('progress-bar').style.width = pct + '%';
    $('progress-text').textContent = s.games + ' / ' + s.target_games + ' games, ' + fmt(s.games_per_min, 1) +
      ' games/min, ETA ' + duration(s.eta_s) + ' (iteration running ' + duration(s.iteration_elapsed_s) + ')';
  }
  const sv = s.server || {};
  fillTable('server', [
    ['alive', sv.alive ? 'yes' : 'NO', sv.alive ? '' : 'dead'],
    ['model generation', sv.model_generation ?? '-'],
    ['average batch', fmt(sv.avg_batch, 2)], ['requests/s', fmt(sv.requests_per_s, 0)],
    ['positions/s', fmt(sv.positions_per_s, 0)], ['forward (ms)', fmt(sv.avg_forward_ms, 2)],
    ['cache hit rate', fmt(sv.cache_hit_rate, 3)], ['device', sv.device ?? '-'],
    ['stats age', duration(sv.stats_age_s)]]);
  const ev = s.evaluator || {};
  fillTable('evaluator', ev.present ? [
    ['alive', ev.alive ? 'yes' : 'NO', ev.alive ? '' : 'dead'], ['state', ev.state ?? '-'],
    ['checkpoint', ev.checkpoint ?? '-'], ['opponent', entryLabels[ev.entry] ?? ev.opponent ?? '-'],
    ['games', (ev.games_done ?? '-') + ' / ' + (ev.games_total ?? '-')],
    ['last evaluated', ev.last_evaluated ?? '-'], ['heartbeat', duration(ev.heartbeat_age_s) + ' ago'],
    ['message', ev.message || '']] : [['state', 'no status/evaluator.json (not running in this run)']]);
  const body = $('workers').querySelector('tbody');
  body.replaceChildren(...(s.workers || []).map((w) => {
    const tr = el('tr', { 'data-worker': w.id });
    tr.append(el('td', {}, w.id), el('td', w.alive ? {} : { class: 'dead' }, w.alive ? 'yes' : 'NO'),
              el('td', {}, w.mode), el('td', {}, w.fallbacks_total), el('td', {}, w.games_this_iteration),
              el('td', {}, w.since_last_game_s === null ? '-' : duration(w.since_last_game_s) + ' ago'));
    return tr;
  }));
  $('workers').dataset.rows = (s.workers || []).length;
  const hosts = s.hosts || [];
  $('hosts').querySelector('tbody').replaceChildren(...hosts.map((h) => {
    const sv = h.server || {};
    const tr = el('tr', { 'data-host': h.host });
    tr.append(el('td', {}, h.host), el('td', sv.alive ? {} : { class: 'dead' }, sv.alive ? 'alive' : 'SILENT'),
              el('td', {}, sv.serving_generation ?? '-'),
              el('td', {}, sv.heartbeat_age_s === undefined ? '-' : duration(sv.heartbeat_age_s) + ' ago'),
              el('td', {}, h.workers_alive + ' / ' + (h.workers || []).length),
              el('td', {}, h.games_this_iteration), el('td', {}, fmt(h.games_per_min, 1)),
              el('td', {}, fmt(sv.positions_per_s, 0)));
    return tr;
  }));
  $('hosts').dataset.rows = hosts.length;
  $('hosts').hidden = hosts.length === 0;
  $('hosts-none').hidden = hosts.length > 0;
}

// ---- boards ---------------------------------------------------------------
function boardCells(box, size, onClick) {
  if (Number(box.dataset.size) !== size) {
    box.style.gridTemplateColumns = 'repeat(' + size + ', 30px)';
    box.replaceChildren();
    for (let p = 0; p < size * size; p++) {
      const c = el('div', { class: 'cell', 'data-point': p, title: Math.floor(p / size) + ',' + (p % size) });
      if (onClick) c.addEventListener('click', () => onClick(p));
      box.append(c);
    }
    box.dataset.size = size;
  }
  return box.children;
}
// cells: array of 0/1/2; heat: array of probabilities or null; last: point or -1.
function paint(box, size, cells, heat, last, next, onClick) {
  const divs = boardCells(box, size, onClick);
  let stones = 0;
  const peak = heat ? Math.max(...heat, 1e-9) : 1;
  for (let p = 0; p < size * size; p++) {
    const d = divs[p];
    d.replaceChildren();
    d.classList.toggle('next', p === next);
    if (heat && heat[p] > 0 && !cells[p]) {
      const h = el('div', { class: 'heat', title: (100 * heat[p]).toFixed(1) + '%' });
      h.style.opacity = (0.85 * heat[p] / peak).toFixed(3);
      d.append(h);
    }
    if (cells[p]) {
      d.append(el('div', { class: 'stone ' + (cells[p] === 1 ? 'black' : 'white') + (p === last ? ' last' : '') }));
      stones++;
    }
  }
  box.dataset.stones = stones;
}

// ---- game viewer ----------------------------------------------------------
const viewer = { game: null, step: 0 };
function viewerShow() {
  const g = viewer.game;
  if (!g) return;
  const n = g.board_size, cells = new Array(n * n).fill(0);
  let colour = 1, last = -1;
  for (const p of g.opening) { cells[p] = colour; colour = 3 - colour; last = p; }
  for (let t = 0; t < viewer.step; t++) { const m = g.moves[t]; cells[m.point] = m.colour === 'black' ? 1 : 2; last = m.point; }
  const cur = viewer.step < g.moves.length ? g.moves[viewer.step] : null;
  paint($('viewer-board'), n, cells, cur ? cur.policy : null, last, cur ? cur.point : -1);
  $('viewer-step').value = viewer.step;
  const ends = { five: 'five in a row', resigned: 'resignation', proven: 'proven result (adjudicated)', draw: 'draw' };
  const r = g.resignation;
  $('viewer-info').textContent = 'move ' + viewer.step + ' / ' + g.moves.length + ' (opening ' + g.opening.length +
    ' stones), winner: ' + g.winner + ', by ' + (ends[g.end] || g.end) +
    (r && r.disabled ? '; never resigns (false-positive check)' + (r.would_resign_move >= 0
      ? ', would have resigned after move ' + r.would_resign_move : '') : '');
  $('viewer-info').dataset.end = g.end;
  $('viewer-move').textContent = cur
    ? cur.colour + ' to move: MCTS policy as heat map, played (' + Math.floor(cur.point / n) + ',' + (cur.point % n) +
      '), recorded value ' + fmt(cur.value, 3) + ' for ' + cur.colour + ', model generation ' + cur.model_generation +
      (g.playout_cap ? (cur.full_search ? ', full search (policy target)' : ', cheap search (value target only)') : '')
    : 'final position';
  $('viewer-move').dataset.fullSearch = cur ? String(cur.full_search) : '';
}
async function viewerLoad() {
  const it = $('viewer-iteration').value, file = $('viewer-file').value;
  if (!it || !file) return;
  viewer.game = await getJson('/api/game?iteration=' + encodeURIComponent(it) + '&file=' + encodeURIComponent(file));
  viewer.step = viewer.game.moves.length;
  $('viewer-step').max = viewer.game.moves.length;
  $('viewer-board').dataset.file = file;
  $('viewer-board').dataset.iteration = it;
  viewerShow();
}
function setOptions(select, values) {
  const keep = select.value;
  const now = Array.from(select.options).map((o) => o.value).join(',');
  if (now === values.join(',')) return false;
  select.replaceChildren(...values.map((v) => el('option', { value: v }, v)));
  if (values.map(String).includes(keep)) select.value = keep;
  return select.value !== keep;
}
async function viewerFiles() {
  const it = $('viewer-iteration').value;
  if (!it) return;
  const r = await getJson('/api/games?iteration=' + encodeURIComponent(it));
  if (setOptions($('viewer-file'), r.files) || !viewer.game) await viewerLoad();
}
async function viewerIterations() {
  const r = await getJson('/api/iterations');
  const sel = $('viewer-iteration');
  const first = sel.options.length === 0;
  const changed = setOptions(sel, r.iterations.slice().reverse().map(String));
  if (first && r.iterations.length) {
    // Start on the newest iteration that has games.
    for (const it of r.iterations.slice().reverse()) {
      const g = await getJson('/api/games?iteration=' + it);
      if (g.files.length) { sel.value = String(it); break; }
    }
  }
  if (changed || first) await viewerFiles();
}
function viewerStep(s) {
  if (!viewer.game) return;
  viewer.step = Math.max(0, Math.min(viewer.game.moves.length, s));
  viewerShow();
}

// ---- play -----------------------------------------------------------------
const play = { state: null, busy: false };
function playShow() {
  const s = play.state;
  const box = $('play-board');
  const last = s.moves.length ? s.moves[s.moves.length - 1] : -1;
  paint(box, s.board_size, s.cells, null, last, -1, playClick);
  box.dataset.moves = s.moves.length;
  box.dataset.over = s.over;
  const e = s.engine ? ' Net\'s last move: (' + Math.floor(s.engine.point / s.board_size) + ',' +
    (s.engine.point % s.board_size) + ') ' + s.engine.reason + ', value ' + fmt(s.engine.value, 2) + '.' : '';
  $('play-info').textContent = 'You are ' + s.human + ' against ' + (s.net || ('checkpoint ' + s.checkpoint)) + ' (' + s.simulations +
    ' simulations). ' + (s.over ? 'Game over: ' + (s.result === 'draw' ? 'draw' : s.result + ' wins') + '.'
                                : (s.to_move === s.human ? 'Your move.' : 'Thinking...')) + e;
}
async function playRequest(url, body) {
  play.busy = true;
  $('play-board').dataset.busy = 'true';
  try {
    play.state = await getJson(url, { method: 'POST', headers: { 'Content-Type': 'application/json' },
                                      body: JSON.stringify(body) });
    $('play-error').textContent = '';
    playShow();
  } catch (err) {
    $('play-error').textContent = err.message;  // the game goes on; the board stays as it was
  } finally {
    play.busy = false;
    $('play-board').dataset.busy = 'false';
  }
}
function playClick(p) {
  if (!play.state || play.busy) return;
  const n = play.state.board_size;
  playRequest('/api/play/move', { id: play.state.id, row: Math.floor(p / n), col: p % n });
}
function playNew() {
  const colour = document.querySelector('input[name=colour]:checked').value;
  if (play.state && !play.state.over)
    fetch('/api/play/end', { method: 'POST', body: JSON.stringify({ id: play.state.id }) }).catch(() => {});
  playRequest('/api/play/new', { colour });
}

// ---- polling --------------------------------------------------------------
async function poll() {
  try {
    const [series, ratings, status] = await Promise.all([getJson('/api/series'), getJson('/api/ratings'),
                                                         getJson('/api/status')]);
    drawSeries(series);
    drawRatings(ratings);
    drawStatus(status);
    await viewerIterations();
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
    $('load-error').textContent = '';
    document.body.dataset.ready = ++polls;
  } catch (err) {
    $('load-error').textContent = String(err.message || err);
  }
  setTimeout(poll, POLL_MS);
}

window.addEventListener('DOMContentLoaded', () => {
  $('viewer-iteration').addEventListener('change', () => { viewer.game = null; viewerFiles(); });
  $('viewer-file').addEventListener('change', viewerLoad);
  $('viewer-step').addEventListener('input', (e) => viewerStep(Number(e.target.value)));
  $('viewer-first').addEventListener('click', () => viewerStep(0));
  $('viewer-prev').addEventListener('click', () => viewerStep(viewer.step - 1));
  $('viewer-next').addEventListener('click', () => viewerStep(viewer.step + 1));
  $('viewer-last').addEventListener('click', () => viewerStep(Infinity));
  $('play-new').addEventListener('click', playNew);
  poll();
});
