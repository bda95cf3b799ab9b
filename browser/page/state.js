// The page's one game state, shared by the modules; `changed()` is how any of
// them says the position moved (app.js draws, play.js asks the engine).
import { colourOf, BLACK, WHITE } from './rules.js';

// Strength levels: simulations a move (docs/play.md "In the browser" says how
// strong each is).  "time" searches for the seconds the page gives.
export const LEVELS = [
  { id: 'novice', name: 'Novice (16 visits)', visits: 16 },
  { id: 'casual', name: 'Casual (64 visits)', visits: 64 },
  { id: 'club', name: 'Club (256 visits)', visits: 256 },
  { id: 'strong', name: 'Strong (1,024 visits)', visits: 1024 },
  { id: 'expert', name: 'Expert (4,096 visits)', visits: 4096 },
  { id: 'time', name: 'By thinking time', visits: 0 },
];

export const st = {
  engine: null,        // Engine (engine.js), once started
  size: 15,
  rule: 'freestyle',
  opening: 'plain',    // plain | swap2-you (you place the first three) | swap2-engine
  side: 'engine-white',// engine-white | engine-black | none (analysis) | both
  level: 'club',
  seconds: 2,
  moves: [],           // [{x, y}], black first
  redo: [],            // moves taken back, the next one last
  result: null,        // rules.js judge(): {winner, why} once the game is over
  phase: 'play',       // play, or a swap2 step (play.js)
  gen: 0,              // bumped on every change: a reply for an older position is dropped
  thinking: false,     // the engine searches a move (or a swap2 answer) for this position
  analysing: false,
  forbid: null,        // renju: black's forbidden points here ([] none), null = not asked yet
  evals: [],           // per ply: {black: 0..1} and/or {proven: 'B'|'W', plies}
  analysis: null,      // the newest analysis response for this position
  engineNote: null,    // what the engine said of its last move (protocol.js moveNoteOf)
  balance: [],         // balance advice shown on the board
  message: '',         // the last refusal, error or notice
  refused: 0,          // moves refused (occupied, forbidden, not your turn): the test counts them
};

export function level() { return LEVELS.find((l) => l.id === st.level) || LEVELS[2]; }

export function toMove() { return colourOf(st.moves.length); }

export function engineSettings() {
  return { size: st.size, rule: st.rule, visits: level().visits, ms: Math.round(st.seconds * 1000) };
}

// Does the engine play `colour` in this game?
export function enginePlays(colour) {
  if (st.phase !== 'play') return false;
  return st.side === 'both' || (st.side === 'engine-white' && colour === WHITE) ||
         (st.side === 'engine-black' && colour === BLACK);
}

export const hooks = { render: () => {}, afterChange: () => {} };

export function say(text) {
  st.message = text;
  hooks.render();
}
