// The JS side of the WebAssembly engine's two imports (browser/wasm/wasm_main.cc),
// linked with --js-library.  Both call what the worker set on the module
// (engine-worker.js): Module.gzEmit(kind, line) and Module.gzYield(wakeUp).
mergeInto(LibraryManager.library, {
  gz_js_emit: function (kind, line) {
    Module['gzEmit'](kind, UTF8ToString(line));
  },
  // Asyncify: the search's stack is saved, the worker's event loop runs (the
  // page's messages are read), then wakeUp(stop ? 1 : 0) resumes the search.
  gz_js_yield__sig: 'i',
  gz_js_yield: function () {
    return Asyncify.handleSleep(function (wakeUp) {
      Module['gzYield'](wakeUp);
    });
  },
});
