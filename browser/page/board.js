// The board on a canvas: grid, coordinates, stones with their numbers, the
// last move, renju's forbidden points, the principal variation as numbered
// ghost stones, balance advice and the n-best marks.  The canvas is also the
// PNG the page saves, so everything shown is drawn on it (no HTML overlay).
import { BLACK, colourOf } from './rules.js';

const MARGIN = 30;  // room for the coordinates

export function columnName(x) { return String.fromCharCode(97 + x); }  // a, b, ... (h8 = 7,7, as `play` reads it)

export class BoardView {
  constructor(canvas, onPoint) {
    this.canvas = canvas;
    this.onPoint = onPoint;
    canvas.addEventListener('click', (e) => {
      const p = this.pointAt(e.clientX, e.clientY);
      if (p) this.onPoint(p);
    });
  }

  get cell() { return (this.canvas.width - 2 * MARGIN) / (this.size - 1); }

  // The point under a client position, or null off the board.
  pointAt(cx, cy) {
    const r = this.canvas.getBoundingClientRect();
    const sx = this.canvas.width / r.width, sy = this.canvas.height / r.height;
    const x = Math.round(((cx - r.left) * sx - MARGIN) / this.cell);
    const y = Math.round(((cy - r.top) * sy - MARGIN) / this.cell);
    return x >= 0 && y >= 0 && x < this.size && y < this.size ? { x, y } : null;
  }

  // The client position of a point's centre (the browser test clicks there).
  clientOf(x, y) {
    const r = this.canvas.getBoundingClientRect();
    return [r.left + (MARGIN + x * this.cell) * r.width / this.canvas.width,
            r.top + (MARGIN + y * this.cell) * r.height / this.canvas.height];
  }

  // view: {size, moves, forbid: [{x,y}], pv: [{x,y}] (from the side to move),
  //        nbest: [{x,y,label,proven}], balance: [{x,y}], numbers: bool}
  draw(view) {
    this.size = view.size;
    this.drawn = view;  // what is on the canvas, for the test and the PNG
    const g = this.canvas.getContext('2d');
    const c = this.cell, n = view.size, at = (i) => MARGIN + i * c;
    g.fillStyle = '#dcb35c';
    g.fillRect(0, 0, this.canvas.width, this.canvas.height);
    g.strokeStyle = '#5a4320';
    g.lineWidth = 1;
    g.fillStyle = '#3b2a10';
    g.font = `${Math.max(9, Math.round(c * 0.38))}px sans-serif`;
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    for (let i = 0; i < n; i++) {
      g.beginPath(); g.moveTo(at(0), at(i)); g.lineTo(at(n - 1), at(i)); g.stroke();
      g.beginPath(); g.moveTo(at(i), at(0)); g.lineTo(at(i), at(n - 1)); g.stroke();
      g.fillText(columnName(i), at(i), MARGIN / 2);
      g.fillText(String(i + 1), MARGIN / 2, at(i));
    }
    const stone = (x, y, colour, alpha) => {
      g.globalAlpha = alpha;
      g.beginPath();
      g.arc(at(x), at(y), c * 0.45, 0, 2 * Math.PI);
      g.fillStyle = colour === BLACK ? '#111' : '#f4f4f4';
      g.fill();
      g.strokeStyle = '#222';
      g.stroke();
      g.globalAlpha = 1;
    };
    const label = (x, y, text, colour, fill) => {
      g.fillStyle = fill || (colour === BLACK ? '#fff' : '#111');
      g.fillText(text, at(x), at(y) + 1);
    };
    view.moves.forEach((m, i) => {
      stone(m.x, m.y, colourOf(i), 1);
      if (view.numbers) label(m.x, m.y, String(i + 1), colourOf(i));
    });
    if (view.moves.length) {  // the last move: a red ring (its number stays readable)
      const m = view.moves[view.moves.length - 1];
      g.strokeStyle = '#d22';
      g.lineWidth = 2;
      g.beginPath(); g.arc(at(m.x), at(m.y), c * 0.45, 0, 2 * Math.PI); g.stroke();
    }
    g.strokeStyle = '#c00';
    g.lineWidth = 2;
    for (const p of view.forbid) {  // renju: black may not play here
      const d = c * 0.25;
      g.beginPath();
      g.moveTo(at(p.x) - d, at(p.y) - d); g.lineTo(at(p.x) + d, at(p.y) + d);
      g.moveTo(at(p.x) + d, at(p.y) - d); g.lineTo(at(p.x) - d, at(p.y) + d);
      g.stroke();
    }
    g.lineWidth = 1;
    const first = colourOf(view.moves.length);
    view.pv.forEach((p, k) => {  // the principal variation: ghost stones, numbered
      const colour = k % 2 === 0 ? first : 3 - first;
      stone(p.x, p.y, colour, 0.55);
      label(p.x, p.y, String(k + 1), colour);
    });
    // The n best moves: a badge on the point's lower half (the line's first
    // stone stays readable above it), a win rate or W<n> / L<n> for a proof.
    const big = g.font;
    g.font = `bold ${Math.max(8, Math.round(c * 0.3))}px sans-serif`;
    for (const p of view.nbest) {
      g.fillStyle = p.proven === 'win' ? '#1a7f37' : p.proven === 'loss' ? '#b42318' : '#1f4e9c';
      g.globalAlpha = 0.9;
      g.fillRect(at(p.x) - c * 0.42, at(p.y) + c * 0.12, c * 0.84, c * 0.36);
      g.globalAlpha = 1;
      g.fillStyle = '#fff';
      g.fillText(p.label, at(p.x), at(p.y) + c * 0.31);
    }
    g.font = big;
    view.balance.forEach((p, k) => {  // balance advice: green rings, B1 / B2
      g.strokeStyle = '#0a0';
      g.lineWidth = 3;
      g.beginPath(); g.arc(at(p.x), at(p.y), c * 0.4, 0, 2 * Math.PI); g.stroke();
      g.lineWidth = 1;
      label(p.x, p.y, 'B' + (k + 1), 0, '#060');
    });
  }
}
