// The engine's Web Worker (a classic worker script): the contract with the
// page is browser/wasm/API.md; how it works, docs/browser.md.
//
// It loads gz-engine.js / gz-engine.wasm (the WebAssembly build of the
// engine, browser/wasm/wasm_main.cc) and the nets of ../nets/index.json into
// the module's in-memory file system, then hands each message to the engine,
// one at a time, in order.  The engine runs on this worker's only thread; a
// search pauses every ~50 ms (Asyncify: Module.gzYield below), which is when
// this worker reads the messages that came meanwhile: `stop` raises the flag
// the search reads at its next pause, everything else waits in `queue`.
//
// Loading, quickest first move first: the wasm is fetched and compiled and
// the net index fetched as soon as this script runs (before `init`); the
// engine starts with the default game's net only (15x15 freestyle, the page's
// default), and the other nets are fetched, and the engine restarted over all
// of them, when a message first needs another rule or size (START n, INFO
// rule r, an analysis query of another board or rule).
'use strict';

var GZ_NETS_DIR = '/nets';
// The game the engine starts with (the page's default, browser/page/state.js):
// its net is loaded first, the others when a game or query needs them.
var DEFAULT_SIZE = 15;
var DEFAULT_RULE = 'freestyle';  // INFO rule 0

var engine = null;        // the emscripten module, once init is done
var queue = [];           // messages waiting for the engine, each {m, seq}
var busy = false;         // a message is being handled (its search may be paused)
var seqReceived = 0;      // messages received so far (each queued one is numbered)
var seqRunning = 0;       // the number of the message being handled
var stopThrough = 0;      // a stop applies to the messages numbered up to this one
var channels = null;      // two MessageChannels: the quickest way back into the event loop
var channelTurn = 0;
var pendingWake = null;   // the paused search's wakeUp, while it waits for the channel

// The nets: the index, every net's info, which are in the engine.
var nets = {index: null, loadedAll: false, written: {}};
// The session lines that set state (INFO per key, the last START), replayed
// into a restarted engine so that it continues where the old one was.
var sessionInfo = {};      // key -> line, in the order first seen
var sessionStart = null;   // the last START / RESTART / RECTSTART line

function post(m) { self.postMessage(m); }

function fail(message) { post({type: 'error', message: String(message)}); }

// Where the site's files are: the worker is engine/engine-worker.js, the nets
// are nets/ beside the page.
function siteUrl(relative) { return new URL(relative, self.location.href).href; }

function fetchOk(url, what) {
  return fetch(url).then(function (r) {
    if (!r.ok) throw new Error('could not fetch ' + what + ' (' + url + '): HTTP ' + r.status);
    return r;
  });
}

// A promise started now and awaited later: its failure is reported by the
// one who awaits it, not as an unhandled rejection meanwhile.
function early(promise) {
  promise.catch(function () {});
  return promise;
}

// Back to the event loop, then on with the search: a message on a channel of
// our own is a task queued behind those already waiting (the page's
// messages), unlike a resolved promise, and it is not clamped to 4 ms like a
// nested setTimeout(0).  Two channels, used in turn: Node hands a port every
// message that arrives while it empties that port's queue, so one channel
// bouncing its own message would keep the worker's port (stop) waiting.
function yieldToEventLoop(wakeUp) {
  if (!channels) {
    channels = [new MessageChannel(), new MessageChannel()];
    channels.forEach(function (c) {
      c.port1.onmessage = function () {
        var wake = pendingWake;
        pendingWake = null;
        if (wake) wake(seqRunning <= stopThrough ? 1 : 0);
      };
    });
  }
  pendingWake = wakeUp;
  channelTurn ^= 1;
  channels[channelTurn].port2.postMessage(0);
}

// The wasm, compiled while it downloads where the browser can
// (compileStreaming; the browser then also caches the compiled code for the
// next visit), else from its bytes (a server that does not send
// application/wasm; Node's test host).  Started at once, before `init`.
function compileWasm() {
  var url = siteUrl('gz-engine.wasm');
  var streamed = typeof WebAssembly.compileStreaming === 'function' && typeof Response === 'function'
    ? fetch(url).then(function (r) {
      if (!(r instanceof Response) || !r.ok) throw new Error('no streaming');
      return WebAssembly.compileStreaming(r);
    })
    : Promise.reject(new Error('no streaming'));
  return streamed.catch(function () {
    return fetchOk(url, 'the engine').then(function (r) { return r.arrayBuffer(); })
      .then(function (bytes) { return WebAssembly.compile(bytes); });
  });
}

function fetchIndex() {
  var indexUrl = siteUrl('../nets/index.json');
  return fetchOk(indexUrl, 'the net index').then(function (r) { return r.json(); }).then(function (index) {
    if (!index || !Array.isArray(index.nets) || index.nets.length === 0)
      throw new Error('the net index ' + indexUrl + ' lists no nets');
    return index;
  });
}

var wasmModule = early(compileWasm());
var netIndex = early(fetchIndex());
var netFetches = {};  // file -> promise of its bytes (each net fetched once)

function fetchNet(n) {
  if (!netFetches[n.file]) {
    netFetches[n.file] = early(fetchOk(siteUrl('../nets/' + n.file), 'net ' + n.file)
      .then(function (r) { return r.arrayBuffer(); })
      .catch(function (e) { delete netFetches[n.file]; throw e; }));  // a later message tries again
  }
  return netFetches[n.file];
}

// The nets the default game needs: the index's net of its rule trained for
// its size (what the engine's pick chooses for it, and the first league net,
// whose play settings the engine adopts); all of them when there is none.
function defaultNets(index) {
  var own = index.nets.filter(function (n) { return n.rule === DEFAULT_RULE && n.size === DEFAULT_SIZE; });
  return own.length === 1 ? own : index.nets;
}

// The default game's net fetched as soon as the index is there.
var firstNets = early(netIndex.then(function (index) {
  var want = defaultNets(index);
  return Promise.all(want.map(fetchNet)).then(function () { return want; });
}));

// Writes `list` into the module's file system (those not there yet) and
// (re)starts the engine over everything written so far.
function startEngine(m, list) {
  return Promise.all(list.map(fetchNet)).then(function (bytes) {
    list.forEach(function (n, i) {
      if (nets.written[n.file]) return;
      m.FS.writeFile(GZ_NETS_DIR + '/' + n.file, new Uint8Array(bytes[i]));
      nets.written[n.file] = true;
    });
    if (m.ccall('gz_init', 'number', ['string'], [GZ_NETS_DIR]) !== 0)
      throw new Error('the engine did not start (see the log)');
  });
}

function init() {
  // gz-engine.js defines GzEngine (MODULARIZE); the module asks
  // instantiateWasm for its instance and loads nothing itself.
  self.importScripts(siteUrl('gz-engine.js'));
  var wasmFailed;
  var wasmFailure = new Promise(function (_, reject) { wasmFailed = reject; });
  var module = GzEngine({
    instantiateWasm: function (imports, success) {
      wasmModule.then(function (compiled) {
        return WebAssembly.instantiate(compiled, imports).then(function (instance) { success(instance, compiled); });
      }).catch(wasmFailed);
      return {};  // the exports come later, through success
    },
    print: function (line) { post({type: 'log', line: line}); },
    printErr: function (line) { post({type: 'log', line: line}); },
    gzEmit: function (kind, line) {
      if (kind === 1) {
        var response;
        try { response = JSON.parse(line); } catch (e) { response = {error: 'unparsable response: ' + line}; }
        post({type: 'analysis', response: response});
      } else {
        post({type: 'protocol-out', line: line});
      }
    },
    gzYield: yieldToEventLoop,
  });
  return Promise.all([Promise.race([module, wasmFailure]), netIndex, firstNets]).then(function (got) {
    var m = got[0];
    nets.index = got[1];
    m.FS.mkdir(GZ_NETS_DIR);
    return startEngine(m, got[2]).then(function () {
      nets.loadedAll = got[2].length === nets.index.nets.length;
      engine = m;
      post({
        type: 'ready',
        version: m.ccall('gz_version', 'string', [], []),
        build: 'st',
        nets: nets.index.nets.map(function (n) { return {file: n.file, rule: n.rule, size: n.size, heads: n.heads}; }),
      });
    });
  });
}

// Does message `m` need a net the engine has not loaded: a game of another
// size or rule than the default's, or an analysis query of one?
function needsOtherNets(m) {
  if (nets.loadedAll) return false;
  if (m.type === 'protocol') {
    var words = m.line.trim().split(/\s+/);
    var word = words[0].toUpperCase();
    if (word === 'START') return Number(words[1]) !== DEFAULT_SIZE || (words[2] !== undefined && Number(words[2]) !== DEFAULT_SIZE);
    if (word === 'RECTSTART') return true;
    if (word === 'INFO' && (words[1] || '').toLowerCase() === 'rule') return Number(words[2]) !== 0;
    return false;
  }
  var q = m.query;
  if (typeof q === 'string') { try { q = JSON.parse(q); } catch (e) { return false; } }  // refused anyway
  if (!q || typeof q !== 'object' || q.action !== undefined) return false;
  var size = q.boardSize === undefined ? DEFAULT_SIZE : q.boardSize;
  var rule = q.rule === undefined ? DEFAULT_RULE : String(q.rule).toLowerCase();
  return size !== DEFAULT_SIZE || rule !== DEFAULT_RULE;
}

// The session lines that set state, kept for a restart (see above).
function noteSessionLine(line) {
  var words = line.trim().split(/\s+/);
  var word = words[0].toUpperCase();
  if (word === 'START' || word === 'RESTART' || word === 'RECTSTART') sessionStart = line;
  else if (word === 'INFO' && words[1]) sessionInfo[words[1].toLowerCase()] = line;
}

// Every net into the engine, once: the engine restarts over all of them, and
// the session's state lines are replayed into it (their replies dropped).
function loadOtherNets() {
  return startEngine(engine, nets.index.nets).then(function () {
    nets.loadedAll = true;
    var replay = Object.keys(sessionInfo).map(function (k) { return sessionInfo[k]; });
    if (sessionStart) replay.push(sessionStart);
    var emit = engine.gzEmit;
    engine.gzEmit = function () {};
    try {
      replay.forEach(function (line) { engine.ccall('gz_protocol', 'number', ['string'], [line]); });
    } finally {
      engine.gzEmit = emit;
    }
  });
}

// One message; a promise that settles when the engine is done with it.
function handle(m) {
  if (m.type === 'init') {
    if (engine) { post({type: 'ready', version: engine.ccall('gz_version', 'string', [], []), build: 'st', nets: []}); return Promise.resolve(false); }
    return init().then(function () { return false; });
  }
  if (m.type !== 'protocol' && m.type !== 'analyze') {
    fail('unknown message type "' + m.type + '" (init, protocol, analyze, stop)');
    return Promise.resolve(true);
  }
  if (!engine) {
    fail('the engine is not loaded: send {type: "init"} first');
    return Promise.resolve(true);
  }
  if (m.type === 'protocol' && typeof m.line !== 'string') { fail('protocol: "line" must be a string'); return Promise.resolve(true); }
  var query;
  if (m.type === 'analyze') {
    query = typeof m.query === 'string' ? m.query : JSON.stringify(m.query);
    if (query === undefined) { fail('analyze: "query" must be an object'); return Promise.resolve(true); }
  }
  var ready = needsOtherNets(m) ? loadOtherNets() : Promise.resolve();
  return ready.then(function () {
    if (m.type === 'protocol') {
      var line = m.line.replace(/[\r\n]+$/, '');
      noteSessionLine(line);
      return engine.ccall('gz_protocol', 'number', ['string'], [line], {async: true});
    }
    return engine.ccall('gz_analyze', 'number', ['string'], [query], {async: true});
  }).then(function () { return true; });
}

function pump() {
  if (busy || queue.length === 0) return;
  var item = queue.shift();
  var m = item.m;
  busy = true;
  seqRunning = item.seq;
  var owesIdle = true;
  handle(m).then(function (idle) { owesIdle = idle; }, function (e) {
    fail(e && e.message ? e.message : e);
    owesIdle = m.type !== 'init';
  }).then(function () {
    busy = false;
    if (owesIdle) post({type: 'idle'});
    pump();
  });
}

self.onmessage = function (e) {
  var m = e.data;
  if (!m || typeof m !== 'object' || typeof m.type !== 'string') {
    fail('a message must be an object with a string "type"');
    return;
  }
  if (m.type === 'stop') {
    // Acts at once: the running search reads the flag at its next pause; a
    // search in a message already sent (a job's last line, after its
    // settings) stops at its first pause.  With nothing running or waiting
    // there is nothing to stop, and no reply.
    if (busy || queue.length) stopThrough = seqReceived;
    return;
  }
  queue.push({m: m, seq: ++seqReceived});
  pump();
};
