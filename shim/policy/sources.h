// sources.json: what exists for a session beyond its commands (docs/POLICY.md):
//   {"package_managers": {"pip": {"registries": ["https://pypi.org/simple"],
//                                 "blocked_packages": ["evil"]}, ...},
//    "blocked_packages": {"npm": ["event-stream"]} or ["x", ...] (any manager),
//    "git_remotes": ["https://github.com/acme/*"],
//    "web_domains": {"allowed": ["docs.python.org"], "blocked": ["evil.example"]},
//    "max_execution_time_seconds": 600, "max_memory_mb": 2048}
// Registries, git remotes and web domains become the egress proxy's allow and deny lists;
// blocked packages become install checks at exec; the limits the exec defaults.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::policy {

struct Sources {
  std::map<std::string, std::vector<std::string>> blocked_packages;  // manager ("*": any) -> names
  std::vector<std::string> allow_domains, deny_domains;              // for the egress proxy
  std::chrono::seconds max_execution_time{0};                        // 0: none
  int64_t max_memory_bytes = 0;                                      // 0: none
};

Result<Sources> ParseSources(const boost::json::value& doc);
// "https://user@pypi.org:443/simple" -> "pypi.org:443"; "files.pythonhosted.org" stays.
Result<std::string> HostOf(std::string_view url_or_host);

}  // namespace sandshim::policy
