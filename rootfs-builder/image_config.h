// The parts of an image's config a session needs to run it as its author meant (Env, Cmd,
// Entrypoint, WorkingDir, User). Kept in meta.json next to the rootfs in the cache.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::rootfs {

struct ImageConfig {
  std::vector<std::string> env;  // "KEY=VALUE"
  std::vector<std::string> entrypoint, cmd;
  std::string working_dir, user;
};

// From an OCI/docker image config blob ({"config": {"Env": …}}); a missing section is empty.
Result<ImageConfig> ParseImageConfig(std::string_view json_text);
boost::json::object ToJson(const ImageConfig& c);
ImageConfig ImageConfigFromJson(const boost::json::object& o);

}  // namespace sandshim::rootfs
