#include "shim/cli/env_arg.h"

#include <cerrno>
#include <cstdlib>

namespace sandshim::cli {

Result<std::string> ResolveEnvArg(std::string_view arg) {
  if (arg.empty() || arg.front() == '=') return MakeError("--env '" + std::string(arg) + "': empty name", EINVAL);
  if (arg.find('=') != std::string_view::npos) return std::string(arg);
  std::string key(arg);
  const char* v = ::getenv(key.c_str());
  if (!v) return MakeError("--env " + key + ": " + key + " is not set in sandshim's environment", EINVAL);
  return key + "=" + v;
}

}  // namespace sandshim::cli
