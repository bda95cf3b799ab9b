// The rules as the page judges a finished game: the same readings as the
// engine's Board (docs/engine.md "Loading the engine into a Gomocup manager",
// docs/play.md "Rules").  Forbidden points are not judged here: the engine
// names them (YXSHOWFORBID), so the page and the engine cannot disagree.
// Points are {x, y}: x the column, y the row, 0-based (the protocol's X,Y).

export const RULES = {
  freestyle: { number: 0, name: 'Freestyle', text: 'five or more in a row wins' },
  standard: { number: 1, name: 'Standard', text: 'exactly five wins; six or more does not' },
  renju: { number: 4, name: 'Renju', text: 'black may not make an overline, a double four or a double three ' +
           '(forbidden points are drawn and refused); white wins with five or more; a draw once only 25 points are empty' },
  'caro-overline': { number: 8, name: 'Caro with overlines', text: 'six or more always wins; exactly five wins ' +
                     'unless both ends are closed (by a stone of the other side or the board\'s edge)' },
  caro: { number: 9, name: 'Caro', text: 'exactly five wins unless both ends are closed (by a stone of the other ' +
          'side or the board\'s edge); six or more does not win' },
};

export const BLACK = 1;
export const WHITE = 2;

// The colour of the stone of move i (black moves first, colours alternate).
export function colourOf(i) { return i % 2 === 0 ? BLACK : WHITE; }

// A size*size array of 0 / BLACK / WHITE from a move list.
export function boardOf(size, moves) {
  const b = new Uint8Array(size * size);
  moves.forEach((m, i) => { b[m.y * size + m.x] = colourOf(i); });
  return b;
}

const DIRECTIONS = [[1, 0], [0, 1], [1, 1], [1, -1]];

// The run of `colour` through (x, y) along (dx, dy): its length and whether
// each end is open (the next point on the board and empty).
function run(b, size, x, y, dx, dy, colour) {
  const at = (i, j) => (i >= 0 && j >= 0 && i < size && j < size ? b[j * size + i] : -1);
  let n = 1;
  let i = x + dx, j = y + dy;
  while (at(i, j) === colour) { n++; i += dx; j += dy; }
  const openA = at(i, j) === 0;
  i = x - dx; j = y - dy;
  while (at(i, j) === colour) { n++; i -= dx; j -= dy; }
  const openB = at(i, j) === 0;
  return { n, open: openA || openB };
}

// Does the stone just placed at (x, y) win under `rule`?  The winning
// line's length, or 0.
export function isWin(rule, b, size, x, y) {
  const colour = b[y * size + x];
  for (const [dx, dy] of DIRECTIONS) {
    const { n, open } = run(b, size, x, y, dx, dy, colour);
    if (n < 5) continue;
    switch (rule) {
      case 'freestyle': return n;
      case 'standard': if (n === 5) return n; break;
      case 'renju': if (n === 5 || colour === WHITE) return n; break;
      case 'caro': if (n === 5 && open) return n; break;
      case 'caro-overline': if (n >= 6 || open) return n; break;
      default: throw new Error('unknown rule ' + rule);
    }
  }
  return 0;
}

// The result after the last move: {winner: BLACK|WHITE|0 (draw), why} or null
// while the game goes on.
export function judge(rule, size, moves) {
  if (!moves.length) return null;
  const b = boardOf(size, moves);
  const last = moves[moves.length - 1];
  const n = isWin(rule, b, size, last.x, last.y);
  if (n) return { winner: colourOf(moves.length - 1), why: n === 5 ? 'five in a row' : `${n} in a row` };
  const empty = size * size - moves.length;
  if (empty === 0) return { winner: 0, why: 'the board is full' };
  // Renju as the Gomocup manager judges it (and the engine's Board).
  if (rule === 'renju' && empty <= 25) return { winner: 0, why: 'only 25 points are empty (renju)' };
  return null;
}
