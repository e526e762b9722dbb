// HOME for a container process that was given none, as runc sets it (libcontainer's
// setupUser): the home directory of its uid in the container's /etc/passwd, else "/".
// docker never puts HOME in a container's env; programs (shells, git, pip) expect it.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace sandshim {

// The home field of the first passwd line whose uid is uid; "/" when there is none (pure).
std::string HomeFromPasswd(std::string_view passwd, uid_t uid);
// env itself when it has HOME, else env plus HOME from the passwd file at passwd_path.
std::vector<std::string> EnvWithHome(const std::vector<std::string>& env, uid_t uid,
                                     const char* passwd_path = "/etc/passwd");

}  // namespace sandshim
