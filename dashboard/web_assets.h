// The page's files (dashboard/web/), compiled in by embed_web.cmake.
// Thread-safety: immutable static data.
#pragma once

#include <optional>
#include <string_view>

namespace gz {

// The bytes of web/<name> ("index.html", "app.js", "style.css"), or nullopt.
std::optional<std::string_view> WebAsset(std::string_view name);

}  // namespace gz
