#include "shim/core/look_path.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/unique_fd.h"

namespace sandshim {

std::vector<std::string> ExecCandidates(const std::string& name, const std::vector<std::string>& env,
                                        const std::string& cwd) {
  if (name.find('/') != std::string::npos) {
    if (name[0] == '/') return {name};
    return {(cwd.empty() ? "/" : cwd) + "/" + name};
  }
  std::string path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  for (const auto& e : env)
    if (e.rfind("PATH=", 0) == 0) path = e.substr(5);
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t end = path.find(':', pos);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(pos, end - pos);
    if (dir.empty()) dir = cwd.empty() ? "/" : cwd;
    out.push_back(dir + "/" + name);
    pos = end + 1;
  }
  return out;
}

Result<std::string> LookPath(int root_fd, const std::string& name, const std::vector<std::string>& env,
                             const std::string& cwd) {
  for (const auto& cand : ExecCandidates(name, env, cwd)) {
    struct open_how how {};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    std::string rel = cand.substr(cand.find_first_not_of('/') == std::string::npos ? cand.size() : cand.find_first_not_of('/'));
    UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, root_fd, rel.c_str(), &how, sizeof how)));
    if (!fd.valid()) continue;
    struct stat st;
    if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111)) return cand;
  }
  if (name.find('/') != std::string::npos)
    return MakeError("exec: \"" + name + "\": stat " + name + ": no such file or directory", ENOENT);
  return MakeError("exec: \"" + name + "\": executable file not found in $PATH", ENOENT);
}

}  // namespace sandshim
