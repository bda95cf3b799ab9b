// The evaluation graph over the game: black's win rate at each ply as the
// net estimates it (blue line), and the solver's proofs apart (green or red
// squares on the 0% / 100% edges, labelled with the mate length).
// evals[i] is the position after i moves: {black: 0..1} or
// {proven: 'B'|'W', plies}, or undefined where nothing was searched.

export function drawGraph(canvas, evals, plies, current) {
  const g = canvas.getContext('2d');
  const w = canvas.width, h = canvas.height, pad = 6;
  const n = Math.max(plies, 1);
  const X = (i) => pad + (w - 2 * pad) * i / n;
  const Y = (p) => pad + (h - 2 * pad) * (1 - p);
  g.fillStyle = '#fff';
  g.fillRect(0, 0, w, h);
  g.strokeStyle = '#ccc';
  g.beginPath(); g.moveTo(pad, Y(0.5)); g.lineTo(w - pad, Y(0.5)); g.stroke();
  g.strokeStyle = '#999';
  g.beginPath(); g.moveTo(X(current), pad); g.lineTo(X(current), h - pad); g.stroke();
  g.strokeStyle = '#1f4e9c';
  g.lineWidth = 2;
  g.beginPath();
  let drawing = false;
  evals.forEach((e, i) => {
    if (!e || e.black === undefined) { drawing = false; return; }
    if (drawing) g.lineTo(X(i), Y(e.black)); else g.moveTo(X(i), Y(e.black));
    drawing = true;
  });
  g.stroke();
  g.fillStyle = '#1f4e9c';
  evals.forEach((e, i) => {  // each point too: a lone one draws no line
    if (e && e.black !== undefined) { g.beginPath(); g.arc(X(i), Y(e.black), 2.5, 0, 2 * Math.PI); g.fill(); }
  });
  g.lineWidth = 1;
  g.font = '10px sans-serif';
  g.textAlign = 'center';
  evals.forEach((e, i) => {
    if (!e || !e.proven) return;
    const y = e.proven === 'B' ? Y(1) : Y(0);
    g.fillStyle = e.proven === 'B' ? '#1a7f37' : '#b42318';
    g.fillRect(X(i) - 3, y - 3, 6, 6);
    g.fillText('M' + e.plies, X(i), e.proven === 'B' ? y + 12 : y - 6);
  });
}
