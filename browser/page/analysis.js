// Analysis of the position on the board: the JSON analysis engine's n-best
// (win rate, visits, line, and the solver's proofs apart from the net's
// estimate), and Yixin's balance advice one and two moves deep.
import { settingsLines, positionLines, answerOf, errorOf } from './protocol.js';
import { st, hooks, say, engineSettings } from './state.js';

let queries = 0;

// "X,Y" -> {x, y}
export function pointOf(text) {
  const [x, y] = String(text).split(',').map(Number);
  return { x, y };
}

// The position's proof, if the solver has one: the response's own, else its
// best move's win (one winning move proves the position won).
export function proofOf(r) {
  const own = r.proof || (r.rootInfo && r.rootInfo.proof);
  if (own) return own;
  const best = r.moveInfos && r.moveInfos[0];
  return best && best.proof && best.proof.result === 'win' ? best.proof : null;
}

export async function analyse(maxVisits) {
  if (st.analysing) return;
  if (st.thinking) return say('the engine is thinking: analyse when it has moved (or press Stop)');
  const gen = st.gen;
  const query = {
    id: 'page-' + (++queries), boardSize: st.size, rule: st.rule,
    moves: st.moves.map((m, i) => [i % 2 === 0 ? 'B' : 'W', `${m.x},${m.y}`]),
    maxVisits, reportDuringSearchEvery: 0.5,
  };
  st.analysing = true;
  st.message = '';
  hooks.render();
  const take = (r) => {
    if (gen !== st.gen) return;  // for a position no longer on the board
    if (r.error) return say(`analysis refused: ${r.error}${r.field ? ' (' + r.field + ')' : ''}`);
    st.analysis = r;
    noteAnalysis(r, st.moves.length);
    hooks.render();
  };
  try {
    await st.engine.analyze(query, take);
  } catch (e) {
    say('analysis failed: ' + e.message);
  } finally {
    st.analysing = false;
    hooks.render();
  }
}

// The graph's point for this ply: the net's estimate and, apart, a proof.
function noteAnalysis(r, ply) {
  if (!r.rootInfo) return;
  const blackToMove = r.rootInfo.currentPlayer === 'B';
  const e = { black: blackToMove ? r.rootInfo.winrate : 1 - r.rootInfo.winrate };
  const proof = proofOf(r);
  if (proof) {
    const moverWins = proof.result === 'win';
    e.proven = moverWins === blackToMove ? 'B' : 'W';
    e.plies = proof.plies;
  }
  st.evals[ply] = e;
}

// YXBALANCEONE / YXBALANCETWO at score 0 (even): the move(s) after which the
// position is nearest an even game for the side that placed them.
export async function balance(two) {
  if (st.thinking || st.analysing) return say('wait for the engine, or press Stop');
  const gen = st.gen;
  st.thinking = true;
  hooks.render();
  try {
    const out = await st.engine.protocol([...settingsLines(engineSettings()),
      ...positionLines('YXBOARD', st.moves), two ? 'YXBALANCETWO 0' : 'YXBALANCEONE 0']);
    if (gen !== st.gen) return;
    const a = answerOf(out);
    if (!a || !a.points || a.points.length !== (two ? 2 : 1)) {
      throw new Error('no balance move: ' + (errorOf(out) || out.join(' | ')));
    }
    st.balance = a.points;
    st.message = `balance ${two ? 'two' : 'one'}: ${a.points.map((p) => p.x + ',' + p.y).join(' then ')}`;
  } catch (e) {
    if (gen === st.gen) st.message = e.message;
  } finally {
    if (gen === st.gen) st.thinking = false;
    hooks.render();
  }
}
