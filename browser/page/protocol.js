// The Gomocup / Yixin-Board lines the page sends and reads
// (docs/engine.md "Commands", "Swap2", "Yixin-Board"): built and parsed here
// only.  Points are {x, y}, the protocol's 0-based X,Y (column, row).
import { RULES, colourOf } from './rules.js';

// The session's settings: board, rule and the search's budget.  `visits` 0
// means by time (`ms` a move); otherwise a fixed number of simulations, with
// a turn limit long enough never to cut them (the Stop button still can).
export function settingsLines({ size, rule, visits, ms }) {
  return [
    `START ${size}`,
    `INFO rule ${RULES[rule].number}`,
    'INFO timeout_match 100000000',
    'INFO time_left 100000000',
    `INFO timeout_turn ${visits ? 600000 : ms}`,
    `INFO max_node ${visits || 0}`,
  ];
}

// BOARD / YXBOARD: field 1 is the side to move's stone, 2 the other's (the
// engine infers the side to move from the counts, so this holds for both).
export function positionLines(command, moves) {
  const toMove = colourOf(moves.length);
  return [command, ...moves.map((m, i) => `${m.x},${m.y},${colourOf(i) === toMove ? 1 : 2}`), 'DONE'];
}

export function swap2Lines(moves) {
  return ['SWAP2BOARD', ...moves.map((m) => `${m.x},${m.y}`), 'DONE'];
}

const POINT = /^(\d+),(\d+)$/;

function points(text) {
  const tokens = text.trim().split(/\s+/);
  const out = [];
  for (const t of tokens) {
    const m = POINT.exec(t);
    if (!m) return null;
    out.push({ x: Number(m[1]), y: Number(m[2]) });
  }
  return out;
}

// The engine's answer among its lines: the last line that is only points
// ("X,Y", "X1,Y1 X2,Y2", ...) or SWAP.  MESSAGE, DEBUG, OK, FORBID lines are
// not answers.  Returns {swap: true}, {points: [...]} or null.
export function answerOf(lines) {
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i].trim();
    if (/^SWAP$/i.test(l)) return { swap: true };
    const p = points(l);
    if (p && p.length) return { points: p };
  }
  return null;
}

// The first ERROR line, or null.
export function errorOf(lines) {
  return lines.find((l) => /^ERROR\b/.test(l)) || null;
}

// "FORBID 07070810" -> [{x: 7, y: 7}, {x: 8, y: 10}]; "FORBID ." -> [].
export function forbidOf(lines) {
  const l = lines.find((s) => s.startsWith('FORBID'));
  if (!l) return null;
  const digits = l.slice(6).trim().replace(/\.$/, '');
  const out = [];
  for (let i = 0; i + 4 <= digits.length; i += 4) {
    out.push({ x: Number(digits.slice(i, i + 2)), y: Number(digits.slice(i + 2, i + 4)) });
  }
  return out;
}

// What the engine said of its move (the MESSAGE before it): the net's value
// for the engine (-1..1), or a proof (the solver's, or an immediate win) as
// {win: bool, plies, atLeast}.
export function moveNoteOf(lines) {
  for (const l of lines) {
    let m = /^MESSAGE value ([+-]?[\d.]+) sims (\d+)/.exec(l);
    if (m) return { value: Number(m[1]), sims: Number(m[2]), text: l.slice(8) };
    m = /^MESSAGE proven (win|loss) in (>=)?(\d+) plies:?([^(]*)/.exec(l);
    if (m) {
      return { proof: { win: m[1] === 'win', plies: Number(m[3]), atLeast: !!m[2], line: m[4].trim() },
               text: l.slice(8) };
    }
    m = /^MESSAGE immediate win at (\d+,\d+)/.exec(l);
    if (m) return { proof: { win: true, plies: 1, atLeast: false, line: m[1] }, text: l.slice(8) };
    m = /^MESSAGE forced block at/.exec(l);
    if (m) return { text: l.slice(8) };
  }
  return null;
}
