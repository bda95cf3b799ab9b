#include "dashboard/site_files.h"

#include <sys/stat.h>

#include <vector>

#include "common/base/fileio.h"

namespace gz {

namespace {

// Every segment a plain name, or the HttpError names what is refused.
void CheckRelative(const std::string& relative) {
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    const std::string seg = relative.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == ".." || seg[0] == '.')
      throw HttpError(400, "refused path: '" + relative + "' (empty, dot or hidden segment)");
    for (unsigned char c : seg)
      if (c < 0x20 || c == 0x7f || c == '\\') throw HttpError(400, "refused path: a control byte or backslash");
    start = end + 1;
  }
}

}  // namespace

std::string SiteContentType(const std::string& path) {
  static const std::vector<std::pair<std::string, std::string>> kTypes = {
      {".html", "text/html; charset=utf-8"},     {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},             {".wasm", "application/wasm"},
      {".png", "image/png"},                     {".svg", "image/svg+xml"},
      {".txt", "text/plain; charset=utf-8"},     {".md", "text/plain; charset=utf-8"},
  };
  for (const auto& [ext, type] : kTypes)
    if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return type;
  return "application/octet-stream";  // the nets (.pt) and anything else: bytes
}

HttpResponse SiteFiles::Get(const std::string& relative) const {
  const std::string rel = relative.empty() || relative.back() == '/' ? relative + "index.html" : relative;
  CheckRelative(rel);
  const std::string path = dir_ + "/" + rel;
  struct stat sb;
  if (::stat(dir_.c_str(), &sb) != 0 || !S_ISDIR(sb.st_mode))
    throw HttpError(404, "the browser board is not built: no folder " + dir_ +
                             " (run browser/build.sh, or give gz_dashboard --site-dir)");
  if (::stat(path.c_str(), &sb) != 0 || !S_ISREG(sb.st_mode)) throw HttpError(404, "no such file in the board: " + rel);
  HttpResponse r;
  r.content_type = SiteContentType(rel);
  r.body = ReadFileOrThrow(path);
  // Revalidated each time: browser/build.sh may rebuild the site under a running dashboard.
  r.cache_control = "no-cache";
  r.content_security_policy =
      "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; img-src 'self' data: blob:; frame-ancestors 'none'";
  return r;
}

}  // namespace gz
