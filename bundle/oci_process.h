// The OCI "process" object, typed: what config.json's process, `exec --process FILE` and a
// session's exec carry. Read strictly (json_field.h): a mistyped uid, gid, capability list or
// rlimit is an error naming the field, so nothing downstream ever sees a default in its place
// (a "uid":"1000" read leniently would run the workload as root).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bundle/json_field.h"

namespace sandshim::bundle {

struct User {
  uint32_t uid = 0, gid = 0;
  std::optional<uint32_t> umask;
  std::vector<uint32_t> additional_gids;
};

struct Capabilities {
  std::vector<std::string> bounding, effective, permitted, inheritable, ambient;
};

struct Rlimit {
  std::string type;  // RLIMIT_NOFILE, ...
  uint64_t soft = 0, hard = 0;
};

struct Process {
  bool terminal = false;
  std::vector<std::string> args, env;
  std::string cwd;
  User user;
  std::optional<Capabilities> capabilities;  // absent: the runtime's default (runsc: the container's)
  std::vector<Rlimit> rlimits;
  bool no_new_privileges = false;
  std::optional<int> oom_score_adj;
};

// p is the process object with its location, e.g. Fields(obj, "config.json", "process").
Result<Process> ReadProcess(const Fields& p);
// The same for a bare process document (exec --process FILE, a session's exec): paths read
// "<doc>: user.uid: ...".
Result<Process> ReadProcess(const boost::json::object& p, std::string_view doc);

}  // namespace sandshim::bundle
