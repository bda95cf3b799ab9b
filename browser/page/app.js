// The page: starts the engine worker, wires the controls, draws the state
// (state.js) after every change.  The game's flow is play.js, the analysis
// analysis.js; this file only shows them.
import { Engine } from './engine.js';
import { BoardView, columnName } from './board.js';
import { drawGraph } from './graph.js';
import { RULES, BLACK } from './rules.js';
import { toPsq, toMoveList, readRecord } from './records.js';
import { st, hooks, LEVELS, toMove, enginePlays, say } from './state.js';
import * as play from './play.js';
import { analyse, balance, pointOf, proofOf } from './analysis.js';

const $ = (id) => document.getElementById(id);
const view = new BoardView($('board'), (p) => play.clickPoint(p));
const logLines = [];

function log(line) {
  logLines.push(line);
  if (logLines.length > 300) logLines.shift();
  $('log').textContent = logLines.join('\n');
}

function name(p) { return `${columnName(p.x)}${p.y + 1} (${p.x},${p.y})`; }
function colourName(c) { return c === BLACK ? 'Black' : 'White'; }
function pct(p) { return (100 * p).toFixed(1) + '%'; }

// ---- drawing ------------------------------------------------------------

function render() {
  const a = st.analysis;
  const infos = a && a.moveInfos ? a.moveInfos : [];
  view.draw({
    size: st.size, moves: st.moves, numbers: $('numbers').checked,
    forbid: st.forbid || [], balance: st.balance,
    pv: infos.length ? infos[0].pv.map(pointOf) : [],
    nbest: infos.slice(0, 5).map((m) => ({ ...pointOf(m.move), proven: m.proof && m.proof.result,
      label: m.proof ? (m.proof.result === 'win' ? 'W' : 'L') + m.proof.plies : Math.round(100 * m.winrate) + '' })),
  });
  for (const [id, v] of [['size', st.size], ['rule', st.rule], ['opening', st.opening], ['side', st.side],
    ['level', st.level]]) $(id).value = String(v);
  $('rule-text').textContent = RULES[st.rule].text;
  $('seconds-label').hidden = st.level !== 'time';
  renderTurn();
  renderAnalysis(a, infos);
  $('message').textContent = st.message;
  drawGraph($('graph'), st.evals, Math.max(st.moves.length, st.evals.length - 1, 10), st.moves.length);
}

function renderTurn() {
  const r = st.result;
  $('result').textContent = !r ? '' : r.winner ? `${colourName(r.winner)} wins (${r.why})` : `Draw: ${r.why}`;
  $('result').dataset.winner = !r ? '' : r.winner === 0 ? 'draw' : r.winner === BLACK ? 'black' : 'white';
  const who = enginePlays(toMove()) ? 'the engine' : 'you';
  const phases = {
    'swap2-you-3': `swap2: place stone ${st.moves.length + 1} of 3 (black, white, black)`,
    'swap2-you-2': `swap2: place stone ${st.moves.length + 1} of 5 (white, then black)`,
    'swap2-engine-decide': 'swap2: the engine decides…',
    'swap2-you-decide': 'swap2: take black, take white, or place two more',
    'swap2-you-choose': 'swap2: the engine placed two more; choose your colour',
  };
  $('turn').textContent = r ? '' : phases[st.phase] ||
    `${colourName(toMove())} to move (${who})${st.thinking ? ' — thinking…' : ''}`;
  $('swap2').hidden = st.phase !== 'swap2-you-decide' && st.phase !== 'swap2-you-choose';
  $('swap2-two').hidden = st.phase !== 'swap2-you-decide';
  $('undo').disabled = !st.moves.length;
  $('redo').disabled = !st.redo.length;
}

// The net's estimate and the solver's proof are kept apart: a proof is a
// distance to the end, never a win rate.
function renderAnalysis(a, infos) {
  const note = st.engineNote;
  let net = '–', proof = '–', proven = '';
  if (a && a.rootInfo) {
    const side = a.rootInfo.currentPlayer === 'B' ? 'black' : 'white';
    net = `${pct(a.rootInfo.winrate)} for ${side} to move, ${a.rootInfo.visits} visits` + (st.analysing ? ' (searching)' : '');
    const p = proofOf(a);
    if (p) {
      // A proven root's win rate is the proof's 1 or 0, not the net's estimate.
      net = `none: the position is proven (${a.rootInfo.visits} visits)`;
      proven = p.result;
      proof = `${side} to move ${p.result === 'win' ? 'wins' : 'loses'} in ${p.complete === false ? '>=' : ''}${p.plies} plies: ${(p.line || []).join(' ')}`;
    } else proof = 'no proof';
  } else if (note) {
    const who = colourName(note.colour).toLowerCase();
    if (note.value !== undefined) net = `engine (${who}): ${note.value >= 0 ? '+' : ''}${note.value.toFixed(2)} (${pct((note.value + 1) / 2)}), ${note.sims} visits`;
    if (note.proof) {
      proven = note.proof.win ? 'win' : 'loss';
      proof = `engine (${who}) ${note.proof.win ? 'wins' : 'loses'} in ${note.proof.atLeast ? '>=' : ''}${note.proof.plies} plies: ${note.proof.line}`;
    } else proof = 'no proof';
  }
  $('net-eval').textContent = net;
  $('proof').textContent = proof;
  $('proof').dataset.proven = proven;
  $('nbest').querySelector('tbody').replaceChildren(...infos.slice(0, 10).map((m, i) => {
    const tr = document.createElement('tr');
    const cells = [i + 1, name(pointOf(m.move)),
      m.proof ? `${m.proof.result} in ${m.proof.plies}` : pct(m.winrate), m.visits, m.pv.slice(0, 10).join(' ')];
    for (const c of cells) { const td = document.createElement('td'); td.textContent = String(c); tr.append(td); }
    return tr;
  }));
}

// ---- controls -------------------------------------------------------------

function fillSelects() {
  for (const [key, r] of Object.entries(RULES)) $('rule').append(new Option(`${r.name} (rule ${r.number})`, key));
  for (const l of LEVELS) $('level').append(new Option(l.name, l.id));
}

function download(name, blob) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function loadRecord(text) {
  try {
    const r = readRecord(text);
    const size = r.size || st.size;
    if (size !== 15 && size !== 20) throw new Error(`a ${size}x${size} board: the page plays 15x15 and 20x20`);
    if (r.rule && !RULES[r.rule]) throw new Error(`unknown rule "${r.rule}"`);
    r.moves.forEach((m, i) => {
      if (m.x >= size || m.y >= size) throw new Error(`move ${i + 1} is off the ${size}x${size} board`);
    });
    play.loadMoves(size, r.rule, r.moves);
  } catch (e) {
    say('cannot load the record: ' + e.message);
  }
}

function wire() {
  const on = (id, f, ev = 'click') => $(id).addEventListener(ev, f);
  on('new-game', () => play.newGame());
  on('size', () => { st.size = Number($('size').value); play.newGame(); }, 'change');
  on('rule', () => { st.rule = $('rule').value; play.changed(); }, 'change');
  on('opening', () => { st.opening = $('opening').value; render(); }, 'change');
  on('side', () => { st.side = $('side').value; play.changed(); }, 'change');
  on('level', () => { st.level = $('level').value; render(); }, 'change');
  on('seconds', () => { st.seconds = Math.max(0.1, Number($('seconds').value) || 2); }, 'change');
  on('numbers', render, 'change');
  on('undo', () => play.undo());
  on('redo', () => play.redo());
  on('engine-move', () => play.engineMove());
  on('stop', () => st.engine && st.engine.stop());
  on('swap2-black', () => play.swap2Choose('black'));
  on('swap2-white', () => play.swap2Choose('white'));
  on('swap2-two', () => play.swap2Choose('two'));
  on('analyse', () => analyse(Math.max(1, Number($('analysis-visits').value) || 1000)));
  on('balance-one', () => balance(false));
  on('balance-two', () => balance(true));
  on('load', () => loadRecord($('record').value));
  on('record-file', async () => {
    const f = $('record-file').files[0];
    if (f) { const text = await f.text(); $('record').value = text; loadRecord(text); }
  }, 'change');
  on('show-psq', () => { $('record').value = toPsq(st.size, st.moves); });
  on('show-moves', () => { $('record').value = toMoveList(st.size, st.rule, st.moves); });
  on('save-psq', () => download('game.psq', new Blob([toPsq(st.size, st.moves)], { type: 'text/plain' })));
  on('save-moves', () => download('game.json', new Blob([toMoveList(st.size, st.rule, st.moves)], { type: 'application/json' })));
  on('save-png', () => $('board').toBlob((b) => download('board.png', b), 'image/png'));
}

// ---- start ----------------------------------------------------------------

// The service worker keeps the site for offline use; browsers allow it on
// https and on localhost only (file:// is not served).
function registerOffline() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register('sw.js').then(
    () => log('offline cache: service worker registered'),
    (e) => log('offline cache unavailable: ' + e.message));
}

async function start() {
  fillSelects();
  wire();
  hooks.render = render;
  render();
  const status = $('engine-status');
  try {
    // The worker index.html started before the modules loaded (it fetches
    // and compiles the engine meanwhile), else one of our own.
    st.engine = new Engine(window.gzEngineWorker || 'engine/engine-worker.js', {
      onLog: log,
      onError: (m) => { log('ERROR ' + m); say('engine: ' + m); },
    });
    const ready = await st.engine.init();
    status.textContent = `engine ${ready.version || ''} (${ready.build === 'mt' ? 'threaded' : 'single-threaded'}), ` +
      `${(ready.nets || []).length} nets`;
    status.dataset.state = 'ready';
    play.changed();  // anything owed (an engine that plays black moves first)
  } catch (e) {
    status.textContent = 'engine failed: ' + e.message;
    status.dataset.state = 'error';
  }
  // After the engine's start and its first job (at most 10 s), not beside
  // them: the service worker's first install fetches the whole site (every
  // net) for offline use, which would compete with them.
  const started = Date.now();
  const whenIdle = () => (st.engine && st.engine.busy && Date.now() - started < 10000
    ? setTimeout(whenIdle, 250) : registerOffline());
  setTimeout(whenIdle, 250);
}

// For the browser test (tests/browser/test_browser_page.py): what the page
// holds and draws, read-only copies.
window.gz = {
  state: () => JSON.parse(JSON.stringify({
    size: st.size, rule: st.rule, side: st.side, phase: st.phase, moves: st.moves, result: st.result,
    thinking: st.thinking, analysing: st.analysing, busy: !!(st.engine && st.engine.busy),
    ready: !!(st.engine && st.engine.ready), forbid: st.forbid, message: st.message, refused: st.refused,
    toMove: toMove(), engineToMove: enginePlays(toMove()), evals: st.evals, analysis: st.analysis,
    engineNote: st.engineNote, balance: st.balance, drawn: view.drawn,
  })),
  clientOf: (x, y) => view.clientOf(x, y),
  pngDataUrl: () => $('board').toDataURL('image/png'),
};

start();
