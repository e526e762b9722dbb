// Finding a container's executable the way runc does (PATH from the process env, relative
// names against cwd), but resolved inside the container's root (openat2 RESOLVE_IN_ROOT):
// a symlink in the image can never make us look at the host. Failing early with runc's words
// ("executable file not found in $PATH") is what makes docker and podman report 127.
#pragma once

#include <string>
#include <vector>

#include "shim/core/container_path.h"
#include "shim/core/result.h"

namespace sandshim {

// Candidate paths for name, in search order (pure).
std::vector<std::string> ExecCandidates(const std::string& name, const std::vector<std::string>& env,
                                        const std::string& cwd);
// The first candidate that is an executable regular file as the container will see it:
// under root_fd, or under the source of a bind mount in mounts that covers it (mounts not
// yet made: create time on gVisor). Inside a container whose mounts are made, pass none.
Result<std::string> LookPath(int root_fd, const std::vector<MountView>& mounts, const std::string& name,
                             const std::vector<std::string>& env, const std::string& cwd);
Result<std::string> LookPath(int root_fd, const std::string& name, const std::vector<std::string>& env,
                             const std::string& cwd);

}  // namespace sandshim
