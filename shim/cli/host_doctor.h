// `sandshim doctor`: what this host offers each backend, and what to do about each gap.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "shim/runtime/config.h"

namespace sandshim::runtime {

struct Finding {
  std::string area;    // gvisor, userns, cgroups, seccomp, overlayfs
  bool ok = false;
  std::string detail;  // what was measured
  std::string advice;  // what to do when !ok (or a known caveat)
};

std::vector<Finding> Doctor(const Config& config);
boost::json::array ToJson(const std::vector<Finding>& f);

}  // namespace sandshim::runtime
