// Shipped nets (nets/ of the repository, docs/engine.md "Shipped nets"):
// where a binary looks for them and which one it plays by default.  Used by
// the engine binaries (play without --weights) and the dashboard's browser
// games before a run's first checkpoint.
// Thread-safety: free functions over the file system; safe from any thread.
#pragma once

#include <string>
#include <vector>

namespace gz {

// Where a binary in `executable_dir` looks for them (build/bin/../../nets,
// then <executable_dir>/nets as in an engine folder, then the nets/ of the
// source tree it was built from, for a build folder outside the checkout).
std::vector<std::string> ShippedNetDirs(const std::string& executable_dir);
// The newest shipped net (file names end in their date, so the last name in
// order) of `rule` trained for size x size boards, else the newest of `rule`
// that plays them (conv heads), in the first of `dirs` that has one (size 0:
// the newest of the rule); "" when there is none.
std::string NewestShippedNet(const std::vector<std::string>& dirs, int size, const std::string& rule);

// The newest shipped net of every (rule, trained size) in the first of `dirs`
// that has any: what the bare engine plays (EvaluatorSource picks one per
// game by rule and size).  The newest 15x15 freestyle net comes first (the
// pick's tie-break: it plays a rule without a net of its own), then the rest
// by name.  Empty when no directory has a readable net.
std::vector<std::string> ShippedLeagueNets(const std::vector<std::string>& dirs);

// Directory of the running executable (/proc/self/exe), "." if unknown.
std::string ExecutableDir();

}  // namespace gz
