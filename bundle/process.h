// The OCI "process" object of `exec`: read from --process FILE, or built like runc does from
// the container's own process (env, capabilities, rlimits, user) with the command-line
// overrides on top.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bundle/spec.h"

namespace sandshim::bundle {

struct ExecOverrides {
  std::vector<std::string> args;
  std::vector<std::string> env;   // KEY=VALUE, appended (a later key wins)
  std::string cwd;                // empty: keep the container's
  std::string user;               // "uid[:gid]", empty: keep the container's
  bool tty = false;
  std::vector<std::string> additional_gids;
  std::vector<std::string> cap_add;  // e.g. CAP_NET_ADMIN
  bool no_new_privs = false;
};

Result<boost::json::object> LoadProcess(const std::filesystem::path& file);
Result<boost::json::object> ProcessFromOverrides(const Spec& container, const ExecOverrides& o);
// Parses "uid[:gid]" into numbers.
Result<std::pair<uint32_t, std::optional<uint32_t>>> ParseUser(std::string_view user);

}  // namespace sandshim::bundle
