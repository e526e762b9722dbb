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

namespace {

enum class Found { kNo, kNotExecutable, kYes };

// An executable regular file at rel beneath dir (rel "" means dir itself): resolved as if
// dir were "/", so no symlink in an image or a bind source leads outside it. Something else
// there (a directory, a file without x bits) is kNotExecutable: runc's "permission denied".
Found ExecutableBeneath(int dir, const std::string& rel) {
  UniqueFd fd;
  if (!rel.empty()) {
    struct open_how how {};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    fd = UniqueFd(static_cast<int>(::syscall(SYS_openat2, dir, rel.c_str(), &how, sizeof how)));
    if (!fd.valid()) return Found::kNo;
    dir = fd.get();
  }
  struct stat st;
  if (::fstat(dir, &st) != 0) return Found::kNo;
  return S_ISREG(st.st_mode) && (st.st_mode & 0111) ? Found::kYes : Found::kNotExecutable;
}

// Whether cand exists for the container: in the bind mount that covers it if any, else in
// the rootfs. Another kind of mount (tmpfs, a volume driver's) is filled only once the
// container runs: it may provide anything, so it counts as found (the start reports it).
Found Provided(int root_fd, const std::vector<MountView>& mounts, const std::string& cand) {
  auto cover = FindCoveringMount(mounts, cand);
  if (!cover) return ExecutableBeneath(root_fd, CleanContainerPath(cand).substr(1));
  if (!cover->mount->bind || cover->mount->source.empty() || cover->mount->source[0] != '/') return Found::kYes;
  // The source is the spec author's host path and is followed as runc follows it; only what
  // lies below it is confined to it.
  UniqueFd src(::open(cover->mount->source.c_str(), O_PATH | O_CLOEXEC));
  return src.valid() ? ExecutableBeneath(src.get(), cover->rel) : Found::kNo;
}

}  // namespace

Result<std::string> LookPath(int root_fd, const std::vector<MountView>& mounts, const std::string& name,
                             const std::vector<std::string>& env, const std::string& cwd) {
  bool denied = false;
  for (const auto& cand : ExecCandidates(name, env, cwd)) {
    auto found = Provided(root_fd, mounts, cand);
    if (found == Found::kYes) return cand;
    denied = denied || found == Found::kNotExecutable;
  }
  // A path that is there but cannot be run: runc's words (Go's LookPath), which docker and
  // podman report as 126. A name looked up in PATH skips such files, as Go's does.
  if (name.find('/') != std::string::npos && denied)
    return MakeError("exec: \"" + name + "\": permission denied", EACCES);
  if (name.find('/') != std::string::npos)
    return MakeError("exec: \"" + name + "\": stat " + name + ": no such file or directory", ENOENT);
  return MakeError("exec: \"" + name + "\": executable file not found in $PATH", ENOENT);
}

Result<std::string> LookPath(int root_fd, const std::string& name, const std::vector<std::string>& env,
                             const std::string& cwd) {
  return LookPath(root_fd, {}, name, env, cwd);
}

}  // namespace sandshim
