// The page's side of the engine worker (browser/wasm/API.md): one job at a
// time, each a list of messages whose replies are collected until the worker
// has said "idle" once for every message sent.  The worker does the search,
// so the page never waits on it; `stop()` goes out at once, outside the queue.

export class Engine {
  // `worker`: the worker's URL, or a Worker already started (index.html
  // starts it before the modules load; its load error, if any, is kept in
  // worker.gzEarlyError).
  constructor(worker, { onLog = () => {}, onError = () => {} } = {}) {
    this.worker = typeof worker === 'string' ? new Worker(worker) : worker;
    this.onLog = onLog;
    this.onError = onError;
    this.jobs = [];      // waiting: {messages, onLine, onAnalysis, resolve, reject}
    this.current = null; // running: the same, plus idles still owed and replies so far
    this.ready = null;   // the worker's "ready" message
    this.worker.onmessage = (e) => this.receive(e.data);
    this.worker.onerror = (e) => this.fail('the engine worker failed: ' + (e.message || 'unknown error'));
  }

  // Loads the wasm and the nets; resolves with the "ready" message.
  init() {
    return new Promise((resolve, reject) => {
      this.readyWaiter = { resolve, reject };
      if (this.worker.gzEarlyError) return this.fail('the engine worker failed: ' + this.worker.gzEarlyError);
      this.worker.postMessage({ type: 'init' });
    });
  }

  get busy() { return this.current !== null || this.jobs.length > 0; }

  // Protocol lines (docs/engine.md "Commands"); resolves with the engine's
  // output lines.  onLine sees each as it comes (analysis while thinking).
  protocol(lines, onLine = () => {}) {
    return this.enqueue(lines.map((line) => ({ type: 'protocol', line })), { onLine });
  }

  // One JSON analysis query; resolves with its responses, the final one last.
  analyze(query, onAnalysis = () => {}) {
    return this.enqueue([{ type: 'analyze', query }], { onAnalysis });
  }

  // Ends the running search at once; it still answers what it owes.  With
  // nothing running there is nothing to stop, and nothing is sent.  A stop
  // sent while the worker still reads the job's settings stops the search of
  // its last line (API.md); one that arrives after the job ended is ignored.
  stop() {
    if (!this.current) return;
    this.worker.postMessage({ type: 'stop' });
  }

  enqueue(messages, handlers) {
    return new Promise((resolve, reject) => {
      this.jobs.push({ messages, ...handlers, resolve, reject });
      this.next();
    });
  }

  next() {
    if (this.current || !this.jobs.length || !this.ready) return;
    const job = this.jobs.shift();
    job.owed = job.messages.length;
    job.lines = [];
    job.analyses = [];
    this.current = job;
    for (const m of job.messages) this.worker.postMessage(m);
  }

  receive(msg) {
    const job = this.current;
    switch (msg.type) {
      case 'ready':
        this.ready = msg;
        if (this.readyWaiter) this.readyWaiter.resolve(msg);
        this.next();
        return;
      case 'protocol-out':
        if (job) { job.lines.push(msg.line); if (job.onLine) job.onLine(msg.line); }
        return;
      case 'analysis':
        if (job) { job.analyses.push(msg.response); if (job.onAnalysis) job.onAnalysis(msg.response); }
        return;
      case 'idle':
        if (!job) return;
        if (--job.owed > 0) return;
        this.current = null;
        job.resolve(job.messages[0].type === 'analyze' ? job.analyses : job.lines);
        this.next();
        return;
      case 'log':
        this.onLog(msg.line);
        return;
      case 'error':
        // Before "ready" nothing can work; after it the worker still owes
        // its idles (API.md), so the page shows the error and goes on.
        if (!this.ready) this.fail(msg.message);
        else this.onError(msg.message);
        return;
      default:
        this.onLog('unknown message from the engine worker: ' + JSON.stringify(msg));
    }
  }

  // The worker failed: every waiting promise learns it; the page shows it.
  fail(message) {
    this.onError(message);
    if (!this.ready && this.readyWaiter) this.readyWaiter.reject(new Error(message));
    const all = (this.current ? [this.current] : []).concat(this.jobs);
    this.current = null;
    this.jobs = [];
    for (const j of all) j.reject(new Error(message));
  }
}
