// The game's flow: the human's clicks, the engine's moves, renju's forbidden
// points, the swap2 opening, undo and redo.  Every engine exchange carries
// the whole position (BOARD / YXBOARD), so undo, loading a record or a rule
// change never leave the engine out of step.
import { judge, colourOf, BLACK, WHITE } from './rules.js';
import { settingsLines, positionLines, swap2Lines, answerOf, errorOf, forbidOf, moveNoteOf } from './protocol.js';
import { st, hooks, say, toMove, enginePlays, engineSettings } from './state.js';

// The swap2 steps (docs/engine.md "Swap2"):
//   swap2-you-3      you place black, white, black; the engine then swaps, plays the 4th or adds two
//   swap2-you-choose after its two: you take a colour
//   swap2-engine-3   the engine places three (SWAP2BOARD with none)
//   swap2-you-decide you take black, white, or place two more (swap2-you-2), then the engine chooses
const PLACING = { 'swap2-you-3': 3, 'swap2-you-2': 5 };

function lines(extra) { return [...settingsLines(engineSettings()), ...extra]; }

// A position changed: judge it, drop what belonged to the old one, go on.
export function changed() {
  st.gen++;
  st.result = st.phase === 'play' ? judge(st.rule, st.size, st.moves) : null;
  st.forbid = null;
  st.analysis = null;
  st.balance = [];
  st.thinking = false;
  hooks.render();
  hooks.afterChange();
  proceed();
}

// What is owed now: renju's forbidden points for black, the engine's move.
async function proceed() {
  if (st.result || !st.engine || !st.engine.ready) return;
  if (st.rule === 'renju' && toMove() === BLACK) await forbidden();
  if (st.phase === 'play' && enginePlays(toMove())) engineMove();
}

// Black's forbidden points here, asked of the engine once a position.
export async function forbidden() {
  if (st.rule !== 'renju' || toMove() !== BLACK) return [];
  if (st.forbid) return st.forbid;
  const gen = st.gen;
  if (st.forbidWait && st.forbidWait.gen === gen) return st.forbidWait.promise;
  // null when the engine could not say (the page then refuses black's moves: it cannot tell).
  const promise = st.engine.protocol(lines([...positionLines('YXBOARD', st.moves), 'YXSHOWFORBID'])).then((out) => {
    const f = forbidOf(out);
    if (f === null) throw new Error('the engine answered YXSHOWFORBID without a FORBID line: ' + out.join(' | '));
    if (gen === st.gen) { st.forbid = f; hooks.render(); }
    return f;
  }).catch((e) => { say('forbidden points: ' + e.message); return null; });
  st.forbidWait = { gen, promise };
  return promise;
}

export async function engineMove() {
  if (st.result || st.thinking) return;
  const gen = st.gen;
  const ply = st.moves.length;
  const colour = toMove();
  st.thinking = true;
  hooks.render();
  try {
    const out = await st.engine.protocol(lines(positionLines('BOARD', st.moves)));
    if (gen !== st.gen) return;  // the position moved meanwhile: the answer is for another
    const answer = answerOf(out);
    if (!answer || !answer.points || answer.points.length !== 1) {
      throw new Error('the engine answered no move: ' + (errorOf(out) || out.join(' | ')));
    }
    const p = answer.points[0];
    // The page plays no move it would refuse a human (the engine's own checks are its tests').
    if (p.x >= st.size || p.y >= st.size || st.moves.some((m) => m.x === p.x && m.y === p.y)) {
      throw new Error(`the engine answered ${p.x},${p.y}, which is off the board or occupied`);
    }
    if (colour === BLACK && st.forbid && st.forbid.some((q) => q.x === p.x && q.y === p.y)) {
      throw new Error(`the engine answered ${p.x},${p.y}, forbidden for black under renju`);
    }
    noteEngine(moveNoteOf(out), ply, colour);
    st.moves.push(p);
    st.redo = [];
    changed();
  } catch (e) {
    if (gen === st.gen) { st.thinking = false; say(e.message); }
  }
}

// The engine's word on the position it moved from, for the graph and the panel.
function noteEngine(note, ply, colour) {
  st.engineNote = note && { ...note, colour };
  if (!note) return;
  const mine = colour === BLACK ? 'B' : 'W', other = colour === BLACK ? 'W' : 'B';
  if (note.proof) st.evals[ply] = { proven: note.proof.win ? mine : other, plies: note.proof.plies };
  else if (note.value !== undefined) {
    const p = (note.value + 1) / 2;
    st.evals[ply] = { black: colour === BLACK ? p : 1 - p };
  }
}

// A click on the board.
export async function clickPoint(p) {
  if (st.result) return refuse('the game is over: New game, Undo, or load a record');
  const occupied = st.moves.some((m) => m.x === p.x && m.y === p.y);
  if (occupied) return refuse(`${p.x},${p.y} is occupied`);
  if (PLACING[st.phase]) return placeOpening(p);
  if (st.phase !== 'play') return refuse('choose in the swap2 panel first');
  if (st.thinking) return refuse('the engine is thinking (Stop makes it move now)');
  if (enginePlays(toMove())) return refuse("it is the engine's turn");
  if (st.rule === 'renju' && toMove() === BLACK) {
    const gen = st.gen;
    const f = await forbidden();
    if (gen !== st.gen) return refuse('the position changed: click again');
    if (f === null) return refuse('the engine could not name the forbidden points here, so no black move is taken');
    if (f.some((q) => q.x === p.x && q.y === p.y)) {
      return refuse(`${p.x},${p.y} is forbidden for black under renju (an overline, a double four or a double three)`);
    }
  }
  if (st.analysing) st.engine.stop();
  st.message = '';
  st.moves.push(p);
  st.redo = [];
  changed();
}

function refuse(text) {
  st.refused++;
  say(text);
}

// Stones of the swap2 opening placed by the human.
function placeOpening(p) {
  st.moves.push(p);
  st.message = '';
  if (st.moves.length < PLACING[st.phase]) return changed();
  const stones = st.moves.length;
  st.phase = 'swap2-engine-decide';
  changed();
  swap2Engine(stones);
}

// The engine's swap2 step on the stones placed so far (0, 3 or 5).
export async function swap2Engine(stones) {
  const gen = st.gen;
  st.thinking = true;
  hooks.render();
  let answer;
  try {
    const out = await st.engine.protocol(lines(swap2Lines(st.moves)));
    if (gen !== st.gen) return;
    answer = answerOf(out);
    if (!answer) throw new Error('the engine gave no swap2 answer: ' + (errorOf(out) || out.join(' | ')));
  } catch (e) {
    if (gen === st.gen) { st.thinking = false; say(e.message); }
    return;
  }
  const pts = answer.points || [];
  if (stones === 0 && pts.length === 3) {
    st.moves.push(...pts);
    st.phase = 'swap2-you-decide';
  } else if (answer.swap) {  // the engine takes black
    st.side = 'engine-black';
    st.phase = 'play';
  } else if (pts.length === 1) {  // it stays white and plays the next stone
    st.moves.push(pts[0]);
    st.side = 'engine-white';
    st.phase = 'play';
  } else if (stones === 3 && pts.length === 2) {  // two more: you choose the colour
    st.moves.push(...pts);
    st.phase = 'swap2-you-choose';
  } else {
    st.thinking = false;
    return say('the engine gave an unexpected swap2 answer: ' + JSON.stringify(answer));
  }
  say(st.phase === 'play' ? `swap2: the engine plays ${st.side === 'engine-black' ? 'black' : 'white'}` : 'swap2: your choice');
  changed();
}

// The human's swap2 choice: 'black', 'white' or 'two' (place two more).
export function swap2Choose(choice) {
  if (st.phase !== 'swap2-you-decide' && st.phase !== 'swap2-you-choose') return refuse('no swap2 choice is asked now');
  if (choice === 'two') {
    if (st.phase !== 'swap2-you-decide') return refuse('two more stones are placed only after the first three');
    st.phase = 'swap2-you-2';
  } else {
    st.side = choice === 'black' ? 'engine-white' : 'engine-black';
    st.phase = 'play';
  }
  st.message = '';
  changed();
}

export function newGame() {
  if (st.engine && (st.thinking || st.analysing)) st.engine.stop();
  st.moves = [];
  st.redo = [];
  st.evals = [];
  st.engineNote = null;
  st.message = '';
  st.phase = { plain: 'play', 'swap2-you': 'swap2-you-3', 'swap2-engine': 'swap2-engine-decide' }[st.opening];
  changed();
  if (st.opening === 'swap2-engine') swap2Engine(0);
}

// Undo takes back to the human's turn against the engine; one move otherwise.
export function undo() {
  if (st.phase !== 'play') return refuse('undo works once the opening is decided');
  if (!st.moves.length) return refuse('nothing to undo');
  if (st.thinking || st.analysing) st.engine.stop();
  st.redo.push(st.moves.pop());
  while (st.moves.length && st.side !== 'none' && st.side !== 'both' && enginePlays(toMove())) {
    st.redo.push(st.moves.pop());
  }
  st.message = '';
  changed();
}

export function redo() {
  if (st.phase !== 'play') return refuse('redo works once the opening is decided');
  if (!st.redo.length) return refuse('nothing to redo');
  if (st.thinking || st.analysing) st.engine.stop();
  const keep = st.redo;
  st.moves.push(keep.pop());
  while (keep.length && st.side !== 'none' && st.side !== 'both' && enginePlays(toMove())) st.moves.push(keep.pop());
  changed();
  st.redo = keep;
}

export function loadMoves(size, rule, moves) {
  if (st.engine && (st.thinking || st.analysing)) st.engine.stop();
  st.size = size;
  if (rule) st.rule = rule;
  st.moves = moves;
  st.redo = [];
  st.evals = [];
  st.engineNote = null;
  st.phase = 'play';
  st.message = `loaded ${moves.length} moves`;
  changed();
}

export { BLACK, WHITE, colourOf };
