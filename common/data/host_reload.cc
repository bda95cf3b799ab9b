#include "common/data/host_reload.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/data/record_format.h"
#include "common/data/run_layout.h"

namespace gz {
namespace {

// The file at `path` (it exists), checked as a `format` record.
nlohmann::json ParseVersioned(const std::string& path, const RecordFormat& format) {
  std::optional<nlohmann::json> j = ReadRecordFile(path, format);
  if (!j) GOMOKU_THROW(IoError, path << ": " << format.name << " vanished while being read");
  return std::move(*j);
}

// The `format` record at `path` as `parse` reads it; nullopt when there is
// none.  A field missing or of the wrong type is IoError "malformed `what`".
template <typename Parse>
auto ReadVersioned(const std::string& path, const RecordFormat& format, const char* what, Parse parse)
    -> std::optional<decltype(parse(nlohmann::json()))> {
  if (!FileExists(path)) return std::nullopt;
  const nlohmann::json j = ParseVersioned(path, format);
  try {
    return parse(j);
  } catch (const nlohmann::json::exception& e) {
    GOMOKU_THROW(IoError, path << ": malformed " << what << ": " << e.what());
  }
}

}  // namespace

void WriteReloadAnnouncement(const std::string& path, const ReloadAnnouncement& a) {
  WriteRecordFile(path,
                 {{"iteration", a.iteration},
                  {"weights", a.weights},
                  {"generation", a.generation},
                  {"announced_at", a.announced_at}},
                 kReloadAnnouncementRecord);
}

std::optional<ReloadAnnouncement> ReadReloadAnnouncement(const std::string& path) {
  return ReadVersioned(path, kReloadAnnouncementRecord, "reload announcement", [&](const nlohmann::json& j) {
    ReloadAnnouncement a;
    a.iteration = j.at("iteration").get<int64_t>();
    a.weights = j.at("weights").get<std::string>();
    a.generation = j.at("generation").get<int64_t>();
    a.announced_at = j.value("announced_at", 0.0);
    if (a.weights.empty()) GOMOKU_THROW(IoError, path << ": reload announcement names no weights");
    return a;
  });
}

void WriteHostAck(const std::string& path, const HostAck& a) {
  nlohmann::json ann = nullptr;
  if (a.has_announcement)
    ann = {{"generation", a.announced_generation}, {"ok", a.announcement_ok},
           {"reason", a.announcement_reason},     {"at", a.announcement_at}};
  nlohmann::json j = {{"host", a.host}, {"pid", a.pid}, {"seq", a.seq}, {"updated_at", a.updated_at}};
  j["serving_generation"] = a.serving_generation;
  j["serving_weights"] = a.serving_weights;
  j["announcement"] = ann;
  WriteRecordFile(path, std::move(j), kHostAckRecord);
}

std::optional<HostAck> ReadHostAck(const std::string& path) {
  return ReadVersioned(path, kHostAckRecord, "reload acknowledgement", [](const nlohmann::json& j) {
    HostAck a;
    a.host = j.at("host").get<std::string>();
    a.pid = j.value("pid", int64_t{0});
    a.seq = j.at("seq").get<int64_t>();
    a.updated_at = j.value("updated_at", 0.0);
    a.serving_generation = j.at("serving_generation").get<int64_t>();
    a.serving_weights = j.value("serving_weights", "");
    const nlohmann::json& ann = j.at("announcement");
    if (ann.is_object()) {
      a.has_announcement = true;
      a.announced_generation = ann.at("generation").get<int64_t>();
      a.announcement_ok = ann.at("ok").get<bool>();
      a.announcement_reason = ann.value("reason", "");
      a.announcement_at = ann.value("at", 0.0);
    }
    return a;
  });
}

std::vector<std::string> ListAckingHosts(const std::string& status_dir) {
  std::vector<std::string> hosts;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(status_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (!it->is_directory(ec2)) continue;
    if (std::filesystem::exists(it->path() / RunLayout::kReloadAckFile, ec2)) hosts.push_back(it->path().filename().string());
  }
  std::sort(hosts.begin(), hosts.end());
  return hosts;
}

}  // namespace gz
