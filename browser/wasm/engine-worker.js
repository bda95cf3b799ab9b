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
'use strict';

var GZ_NETS_DIR = '/nets';

var engine = null;        // the emscripten module, once init is done
var queue = [];           // messages waiting for the engine
var busy = false;         // a message is being handled (its search may be paused)
var stopRequested = false;
var channels = null;      // two MessageChannels: the quickest way back into the event loop
var channelTurn = 0;
var pendingWake = null;   // the paused search's wakeUp, while it waits for the channel

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
        if (wake) wake(stopRequested ? 1 : 0);
      };
    });
  }
  pendingWake = wakeUp;
  channelTurn ^= 1;
  channels[channelTurn].port2.postMessage(0);
}

// The wasm, compiled while it downloads where the browser can
// (instantiateStreaming; the browser then also caches the compiled code for
// the next visit), else from its bytes (a server that does not send
// application/wasm; Node's test host).
function instantiateWasm(imports) {
  var url = siteUrl('gz-engine.wasm');
  var streamed = typeof WebAssembly.instantiateStreaming === 'function' && typeof Response === 'function'
    ? fetch(url).then(function (r) {
      if (!(r instanceof Response) || !r.ok) throw new Error('no streaming');
      return WebAssembly.instantiateStreaming(r, imports);
    })
    : Promise.reject(new Error('no streaming'));
  return streamed.catch(function () {
    return fetchOk(url, 'the engine').then(function (r) { return r.arrayBuffer(); })
      .then(function (bytes) { return WebAssembly.instantiate(bytes, imports); });
  });
}

function init() {
  var indexUrl = siteUrl('../nets/index.json');
  var nets = fetchOk(indexUrl, 'the net index').then(function (r) { return r.json(); }).then(function (index) {
    if (!index || !Array.isArray(index.nets) || index.nets.length === 0)
      throw new Error('the net index ' + indexUrl + ' lists no nets');
    return Promise.all(index.nets.map(function (n) {
      return fetchOk(siteUrl('../nets/' + n.file), 'net ' + n.file).then(function (r) { return r.arrayBuffer(); })
        .then(function (bytes) { return {info: n, bytes: bytes}; });
    }));
  });
  // gz-engine.js defines GzEngine (MODULARIZE); the module asks
  // instantiateWasm for its instance and loads nothing itself.
  self.importScripts(siteUrl('gz-engine.js'));
  var wasmFailed;
  var wasmFailure = new Promise(function (_, reject) { wasmFailed = reject; });
  var module = GzEngine({
    instantiateWasm: function (imports, success) {
      instantiateWasm(imports).then(function (out) { success(out.instance, out.module); }, wasmFailed);
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
  return Promise.all([Promise.race([module, wasmFailure]), nets]).then(function (got) {
    var m = got[0];
    m.FS.mkdir(GZ_NETS_DIR);
    got[1].forEach(function (n) { m.FS.writeFile(GZ_NETS_DIR + '/' + n.info.file, new Uint8Array(n.bytes)); });
    if (m.ccall('gz_init', 'number', ['string'], [GZ_NETS_DIR]) !== 0)
      throw new Error('the engine did not start (see the log)');
    engine = m;
    post({
      type: 'ready',
      version: m.ccall('gz_version', 'string', [], []),
      build: 'st',
      nets: got[1].map(function (n) { return {file: n.info.file, rule: n.info.rule, size: n.info.size, heads: n.info.heads}; }),
    });
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
  if (m.type === 'protocol') {
    if (typeof m.line !== 'string') { fail('protocol: "line" must be a string'); return Promise.resolve(true); }
    var line = m.line.replace(/[\r\n]+$/, '');
    return Promise.resolve(engine.ccall('gz_protocol', 'number', ['string'], [line], {async: true}))
      .then(function () { return true; });
  }
  var query = typeof m.query === 'string' ? m.query : JSON.stringify(m.query);
  if (query === undefined) { fail('analyze: "query" must be an object'); return Promise.resolve(true); }
  return Promise.resolve(engine.ccall('gz_analyze', 'number', ['string'], [query], {async: true}))
    .then(function () { return true; });
}

function pump() {
  if (busy || queue.length === 0) return;
  var m = queue.shift();
  busy = true;
  stopRequested = false;
  var owesIdle = true;
  handle(m).then(function (idle) { owesIdle = idle; }, function (e) {
    fail(e && e.message ? e.message : e);
    owesIdle = m.type !== 'init';
  }).then(function () {
    busy = false;
    stopRequested = false;
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
    // Acts at once: the running search reads the flag at its next pause.
    // With nothing running there is nothing to stop; the page still gets
    // its idle.
    if (busy) stopRequested = true;
    else post({type: 'idle'});
    return;
  }
  queue.push(m);
  pump();
};
