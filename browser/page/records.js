// Game records in and out.
//   Piskvork's .psq: "Piskvorky 15x15, 11:11, 0", then one "x,y,ms" line a
//   move (1-based column and row, black first), then "-1".
//   The project's move list: the JSON analysis engine's own fields
//   (docs/engine.md "The JSON analysis engine"): {"boardSize", "rule",
//   "moves": [["B", "7,7"], ["W", "8,8"], ...]}, so `analyze` reads it as a
//   query once an "id" is added.  Plain "7,7 8,8 ..." (0-based X,Y) is read too.
// Every reader throws an Error naming what is wrong.

export function toPsq(size, moves) {
  const lines = [`Piskvorky ${size}x${size}, 11:11, 0`];
  for (const m of moves) lines.push(`${m.x + 1},${m.y + 1},0`);
  lines.push('-1');
  return lines.join('\r\n') + '\r\n';
}

function checkMoves(size, moves) {
  const seen = new Set();
  moves.forEach((m, i) => {
    if (!(m.x >= 0 && m.y >= 0 && m.x < size && m.y < size)) {
      throw new Error(`move ${i + 1} (${m.x},${m.y}) is off the ${size}x${size} board`);
    }
    const key = m.y * size + m.x;
    if (seen.has(key)) throw new Error(`move ${i + 1} (${m.x},${m.y}) is on an occupied point`);
    seen.add(key);
  });
  return moves;
}

export function fromPsq(text) {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const head = /^Piskvorky\s+(\d+)x(\d+)/.exec(lines[0] || '');
  if (!head) throw new Error('not a .psq file: the first line should be "Piskvorky 15x15, ..."');
  if (head[1] !== head[2]) throw new Error(`a ${head[1]}x${head[2]} board: only square boards are played`);
  const size = Number(head[1]);
  const moves = [];
  for (const l of lines.slice(1)) {
    const m = /^(\d+),(\d+)(,-?\d+)?$/.exec(l);
    if (!m) break;  // the moves end at "-1" or at the players' names
    moves.push({ x: Number(m[1]) - 1, y: Number(m[2]) - 1 });
  }
  return { size, rule: null, moves: checkMoves(size, moves) };
}

export function toMoveList(size, rule, moves) {
  return JSON.stringify({
    boardSize: size, rule,
    moves: moves.map((m, i) => [i % 2 === 0 ? 'B' : 'W', `${m.x},${m.y}`]),
  });
}

function point(p, where) {
  if (Array.isArray(p) && p.length === 2) return { x: Number(p[0]), y: Number(p[1]) };
  const m = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(String(p));
  if (!m) throw new Error(`${where}: "${p}" is not a point "X,Y"`);
  return { x: Number(m[1]), y: Number(m[2]) };
}

export function fromMoveList(text) {
  const t = text.trim();
  if (!t.startsWith('{')) {  // plain "7,7 8,8 ...", 0-based, black first
    const moves = t ? t.split(/[\s;]+/).map((p, i) => point(p, `move ${i + 1}`)) : [];
    return { size: null, rule: null, moves };
  }
  let j;
  try { j = JSON.parse(t); } catch (e) { throw new Error('the move list is not JSON: ' + e.message); }
  const size = j.boardSize === undefined ? 15 : j.boardSize;
  if (!Number.isInteger(size)) throw new Error('boardSize must be an integer');
  if (!Array.isArray(j.moves)) throw new Error('"moves" must be a list of ["B"|"W", "X,Y"]');
  const moves = j.moves.map((mv, i) => {
    if (!Array.isArray(mv) || mv.length !== 2) throw new Error(`moves[${i}] must be ["B"|"W", "X,Y"]`);
    const want = i % 2 === 0 ? 'B' : 'W';
    if (String(mv[0]).toUpperCase() !== want) {
      throw new Error(`moves[${i}] is ${mv[0]}: the colours must alternate from black (${want} expected)`);
    }
    return point(mv[1], `moves[${i}]`);
  });
  return { size, rule: j.rule || null, moves: checkMoves(size, moves) };
}

// Either kind, told apart by its first line.
export function readRecord(text) {
  return /^\s*Piskvorky/.test(text) ? fromPsq(text) : fromMoveList(text);
}
