// The browser board (browser/page/ with the WebAssembly engine, assembled by
// browser/build.sh into build/browser/site/) served from its folder under
// /board/, so a training run and a study session use one board.
//
// A path is served only when every segment is a plain name: no "..", ".",
// empty segment, hidden name (".x"), backslash or control byte; so nothing
// outside the folder is ever opened.  Content types by extension
// (application/wasm for .wasm, which WebAssembly.instantiateStreaming
// requires).  The policy lets the page compile its WebAssembly and start its
// worker and service worker from this server; nothing else loads.
// Thread-safety: immutable after construction; Get() may run concurrently.
#pragma once

#include <string>

#include "dashboard/http_types.h"

namespace gz {

class SiteFiles {
 public:
  // `dir` may not exist (yet): each request then answers 404 naming it and
  // browser/build.sh.
  explicit SiteFiles(std::string dir) : dir_(std::move(dir)) {}

  // `relative` is the decoded path after "/board/" ("" = index.html).  Throws
  // HttpError 400 for a refused path, 404 for a missing file.
  HttpResponse Get(const std::string& relative) const;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// The content type of a file served from the site, by its extension.
std::string SiteContentType(const std::string& path);

}  // namespace gz
