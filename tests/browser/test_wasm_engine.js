#!/usr/bin/env node
// test_wasm_engine: the WebAssembly engine of the static site (browser/build.sh
// makes it; docs/browser.md) run in Node through the real worker script,
// engine/engine-worker.js, inside a worker_threads Worker that plays a Web
// Worker's part (self, postMessage, onmessage, importScripts, fetch of the
// site's files).  Over the messages of browser/wasm/API.md it checks:
//   init: ready, the single-threaded build, the site's nets;
//   a short game by protocol lines (START, INFO rule, BEGIN, TURN ...), each
//     move a legal empty point after its MESSAGE, then idle;
//   an analysis query answered with n-best moves, win rates, visits and PVs;
//   renju: YXSHOWFORBID lists black's double-three point and TURN there is
//     refused with an ERROR that says forbidden;
//   stop: a move given ten minutes ends with a move when stop comes, and an
//     analysis of ten million visits ends with its final response; a stop
//     sent with the job's settings stops its search; a stop with nothing
//     running gets no reply; a balance and a swap2 search stop too (the
//     paths Asyncify instruments, browser/wasm/asyncify_only.txt);
//   a 20x20 game after the 15x15 ones: the worker loads the other nets then.
// A missing site fails (it is never skipped).  No timing is asserted; a stop
// that does not work leaves the search running until the watchdog (far
// beyond any stopped search) fails the test.
//   node tests/browser/test_wasm_engine.js SITE_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const { Worker } = require('worker_threads');

const site = process.argv[2];
let failures = 0;
function check(ok, what) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) failures++;
}
function die(why) {
  console.log('FAIL ' + why);
  console.log('test_wasm_engine: FAILED');
  process.exit(1);
}

if (!site) die('usage: test_wasm_engine.js SITE_DIR');
for (const f of ['engine/engine-worker.js', 'engine/gz-engine.js', 'engine/gz-engine.wasm', 'nets/index.json']) {
  if (!fs.existsSync(path.join(site, f)))
    die(`the site has no ${f} (${path.resolve(site)}): build it with browser/build.sh`);
}

// The Web Worker's global scope, as much of it as engine-worker.js and
// emscripten's glue use; then the real worker script.
const bootstrap = `
const { parentPort, workerData } = require('worker_threads');
const fs = require('fs');
const vm = require('vm');
const { fileURLToPath, pathToFileURL } = require('url');
globalThis.self = globalThis;
self.location = { href: workerData.workerUrl };
self.postMessage = (m) => parentPort.postMessage(m);
parentPort.on('message', (m) => { if (self.onmessage) self.onmessage({ data: m }); });
self.importScripts = (...urls) => {
  for (const u of urls) {
    const file = fileURLToPath(new URL(u, self.location.href));
    vm.runInThisContext(fs.readFileSync(file, 'utf8'), { filename: file });
  }
};
// fetch of the site's files only: nothing may come from elsewhere.
self.fetch = async (u) => {
  const url = new URL(u, self.location.href);
  if (url.protocol !== 'file:') throw new Error('the worker fetched ' + url.href + ', outside the site');
  let bytes;
  try { bytes = fs.readFileSync(fileURLToPath(url)); } catch (e) { return { ok: false, status: 404 }; }
  return {
    ok: true, status: 200,
    arrayBuffer: async () => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
    json: async () => JSON.parse(bytes.toString('utf8')),
  };
};
const file = fileURLToPath(workerData.workerUrl);
vm.runInThisContext(fs.readFileSync(file, 'utf8'), { filename: file });
`;

const workerUrl = require('url').pathToFileURL(path.resolve(site, 'engine/engine-worker.js')).href;
const worker = new Worker(bootstrap, { eval: true, workerData: { workerUrl } });
const inbox = [];
let waiter = null;
const logs = [];
worker.on('message', (m) => {
  if (m.type === 'log') { logs.push(m.line); return; }
  inbox.push(m);
  if (waiter) waiter();
});
worker.on('error', (e) => die('the worker died: ' + (e && e.stack ? e.stack : e)));

// The watchdog: far longer than anything here takes when it works.
const WATCHDOG_MS = 240000;
const watchdog = setTimeout(() => {
  console.log(logs.slice(-20).join('\n'));
  die(`no answer within ${WATCHDOG_MS / 1000} s: a search the page stopped kept running, or the engine hung`);
}, WATCHDOG_MS);

// The next message that is not a log.
function next() {
  if (inbox.length) return Promise.resolve(inbox.shift());
  return new Promise((resolve) => { waiter = () => { waiter = null; resolve(inbox.shift()); }; });
}
// Everything up to and including the idle that ends one command.
async function untilIdle() {
  const got = [];
  for (;;) {
    const m = await next();
    if (m.type === 'error') die('the worker reported an error: ' + m.message);
    if (m.type === 'idle') return got;
    got.push(m);
  }
}
async function protocol(line) {
  worker.postMessage({ type: 'protocol', line });
  return (await untilIdle()).filter((m) => m.type === 'protocol-out').map((m) => m.line);
}
const MOVE = /^(\d+),(\d+)$/;

async function main() {
  worker.postMessage({ type: 'init' });
  const ready = await next();
  if (ready.type !== 'ready') die('init answered ' + JSON.stringify(ready) + ', expected ready');
  check(ready.build === 'st', `ready: single-threaded build (${ready.build}), version ${ready.version}`);
  const index = JSON.parse(fs.readFileSync(path.join(site, 'nets/index.json'), 'utf8'));
  check(Array.isArray(ready.nets) && ready.nets.length === index.nets.length && ready.nets.every((n) => n.file && n.rule && n.size),
        `ready: the ${index.nets.length} nets of nets/index.json (${(ready.nets || []).map((n) => n.rule + '/' + n.size).join(' ')})`);

  // A short game: freestyle, the engine black, 120 ms a move.
  check((await protocol('START 15')).includes('OK'), 'START 15 answers OK');
  await protocol('INFO rule 0');
  await protocol('INFO timeout_turn 120');
  const taken = new Set();
  let reply = await protocol('BEGIN');
  for (let turn = 0; turn < 4; ++turn) {
    const move = reply[reply.length - 1] || '';
    const m = MOVE.exec(move);
    const legal = m && +m[1] < 15 && +m[2] < 15 && !taken.has(move);
    check(legal && reply.some((l) => l.startsWith('MESSAGE')), `move ${turn + 1}: ${move} (after ${reply.length - 1} other lines)`);
    if (!legal) break;
    taken.add(move);
    // Our stone: the first empty point of row 0 (far from the engine's).
    let ours = '';
    for (let x = 0; x < 15 && !ours; ++x) if (!taken.has(`${x},0`)) ours = `${x},0`;
    taken.add(ours);
    reply = await protocol('TURN ' + ours);
  }

  // Analysis: n-best with win rates, visits and PVs.
  worker.postMessage({ type: 'analyze', query: {
    id: 'a1', boardSize: 15, rule: 'freestyle', moves: [['B', '7,7'], ['W', '8,8'], ['B', '7,8']], maxVisits: 300 } });
  const answers = (await untilIdle()).filter((m) => m.type === 'analysis').map((m) => m.response);
  const final = answers.find((r) => r.id === 'a1' && r.isDuringSearch === false);
  check(final && !final.error, 'analysis: a final response' + (final && final.error ? ': ' + final.error : ''));
  if (final && final.moveInfos) {
    const infos = final.moveInfos;
    check(infos.length >= 2, `analysis: ${infos.length} moves ranked (n-best)`);
    check(infos.every((i) => MOVE.test(i.move) && typeof i.winrate === 'number' && i.visits >= 0),
          'analysis: every move has a point, a win rate and visits');
    check(infos[0].pv && infos[0].pv.length >= 1 && infos[0].pv[0] === infos[0].move,
          `analysis: the best move's PV ${JSON.stringify(infos[0].pv)}`);
    check(final.rootInfo && final.rootInfo.visits >= 300, `analysis: ${final.rootInfo && final.rootInfo.visits} root visits`);
  }

  // Renju: black's double three at 7,7 (7,5 7,6 down, 5,7 6,7 across).
  await protocol('START 15');
  await protocol('INFO rule 4');
  const stones = ['7,5,1', '7,6,1', '5,7,1', '6,7,1', '0,0,2', '14,14,2', '0,14,2', '14,0,2'];
  for (const s of ['YXBOARD', ...stones, 'DONE']) await protocol(s);
  const forbid = (await protocol('YXSHOWFORBID')).find((l) => l.startsWith('FORBID')) || '';
  check(/^FORBID (\d{4})*0707(\d{4})*\.$/.test(forbid), `renju: YXSHOWFORBID lists 0707 (${forbid})`);
  const refused = await protocol('TURN 7,7');
  check(refused.some((l) => l.startsWith('ERROR') && /forbidden/.test(l)) && !refused.some((l) => MOVE.test(l)),
        `renju: TURN at the forbidden point refused (${refused.join(' | ')})`);

  // Stop ends a move given ten minutes; the move still comes.
  await protocol('START 15');
  await protocol('INFO rule 0');
  await protocol('INFO timeout_turn 600000');
  await protocol('INFO timeout_match 0');
  await protocol('INFO max_node 100000000');
  worker.postMessage({ type: 'protocol', line: 'BEGIN' });
  setTimeout(() => worker.postMessage({ type: 'stop' }), 1500);
  const stopped = (await untilIdle()).filter((m) => m.type === 'protocol-out').map((m) => m.line);
  check(MOVE.test(stopped[stopped.length - 1] || ''), `stop: the long move ended with a move (${stopped.join(' | ')})`);
  // ... and the session goes on.
  await protocol('INFO timeout_turn 120');
  const after = await protocol('TURN 0,0');
  check(MOVE.test(after[after.length - 1] || ''), `stop: the next TURN is answered (${after[after.length - 1]})`);

  // Stop ends an analysis of ten million visits with its final response.
  worker.postMessage({ type: 'analyze', query: { id: 'long', boardSize: 15, moves: [['B', '7,7']], maxVisits: 10000000 } });
  setTimeout(() => worker.postMessage({ type: 'stop' }), 1500);
  const longAnswers = (await untilIdle()).filter((m) => m.type === 'analysis').map((m) => m.response);
  const longFinal = longAnswers.find((r) => r.id === 'long' && r.isDuringSearch === false);
  check(longFinal && longFinal.moveInfos && longFinal.moveInfos.length >= 1,
        `stop: the analysis ended with its final response (${longFinal ? longFinal.rootInfo.visits + ' visits' : 'none'})`);
  check(!longAnswers.some((r) => r.isDuringSearch), 'stop: no report during the search the query did not ask for');

  // A stop sent while the worker still reads a job's settings stops the
  // search of the job's last line (sent together, as the page does).
  for (const line of ['START 15', 'INFO rule 0', 'INFO timeout_turn 600000', 'INFO max_node 100000000', 'BEGIN'])
    worker.postMessage({ type: 'protocol', line });
  worker.postMessage({ type: 'stop' });
  let idles = 0;
  const early = [];
  while (idles < 5) {
    const m = await next();
    if (m.type === 'error') die('the worker reported an error: ' + m.message);
    if (m.type === 'idle') idles++;
    else if (m.type === 'protocol-out') early.push(m.line);
  }
  check(MOVE.test(early[early.length - 1] || ''), `stop during the settings: the search of the last line ended with a move (${early.slice(-2).join(' | ')})`);
  // A stop with nothing running gets no reply: the next message's own replies come first.
  worker.postMessage({ type: 'stop' });
  worker.postMessage({ type: 'protocol', line: 'ABOUT' });
  const first = await next();
  check(first.type === 'protocol-out' && first.line.startsWith('name='), `stop with nothing running: no reply (next: ${JSON.stringify(first)})`);
  if (first.type !== 'idle') await untilIdle();

  // Stop reaches the other searches the page runs: balance advice, a swap2 answer.
  for (const [what, lines] of [['YXBALANCETWO', ['YXBOARD', '7,7,2', '8,8,1', 'DONE', 'YXBALANCETWO 0']],
                                ['SWAP2BOARD', ['SWAP2BOARD', '7,7', '8,8', '6,8', 'DONE']]]) {
    for (const line of ['START 15', 'INFO rule 0', 'INFO timeout_turn 600000', 'INFO max_node 100000000', ...lines.slice(0, -1)])
      await protocol(line);
    worker.postMessage({ type: 'protocol', line: lines[lines.length - 1] });
    setTimeout(() => worker.postMessage({ type: 'stop' }), 1000);
    const out = (await untilIdle()).filter((m) => m.type === 'protocol-out').map((m) => m.line);
    check(out.some((l) => /^(SWAP|\d+,\d+( \d+,\d+)*)$/.test(l)), `stop: ${what} ended with an answer (${out.slice(-2).join(' | ')})`);
  }

  // The nets of other rules and sizes are loaded when a game needs them: a
  // 20x20 game is played by the 20x20 net (the engine's log names it).
  const logsBefore = logs.length;
  await protocol('START 20');
  await protocol('INFO rule 0');
  await protocol('INFO timeout_turn 120');
  const big = await protocol('BEGIN');
  const net20 = index.nets.find((n) => n.size === 20 && n.rule === 'freestyle');
  check(MOVE.test(big[big.length - 1] || '') && (!net20 || logs.slice(logsBefore).some((l) => l.includes(net20.file + ' plays this 20x20'))),
        `20x20: a move (${big[big.length - 1]}) by ${net20 ? net20.file : 'the nets there are'}`);

  clearTimeout(watchdog);
  await worker.terminate();
  console.log(`test_wasm_engine: ${failures === 0 ? 'passed' : failures + ' checks FAILED'}`);
  process.exit(failures === 0 ? 0 : 1);
}

main().catch((e) => die(e && e.stack ? e.stack : String(e)));
