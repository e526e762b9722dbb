#include "shim/cli/env_arg.h"

#include <cerrno>
#include <cstdlib>

#include "shim/core/forget_env.h"

namespace sandshim::cli {

Result<std::string> ResolveEnvArg(std::string_view arg, bool forget) {
  if (arg.empty() || arg.front() == '=') return MakeError("--env '" + std::string(arg) + "': empty name", EINVAL);
  if (arg.find('=') != std::string_view::npos) return std::string(arg);
  std::string key(arg);
  const char* v = ::getenv(key.c_str());
  if (!v) return MakeError("--env " + key + ": " + key + " is not set in sandshim's environment", EINVAL);
  std::string out = key + "=" + v;
  // Read once: the value goes where --env sends it (a spec), and out of our environment, so
  // no process we fork (a container's waiter, for the container's life) or exec (a relay,
  // runsc) holds it in its environ (issue #31).
  if (forget && key != "PATH") proc::ForgetEnv(key);
  return out;
}

}  // namespace sandshim::cli
