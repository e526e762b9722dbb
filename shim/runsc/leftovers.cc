#include "shim/runsc/leftovers.h"

#include <unistd.h>

#include <chrono>


#include "shim/core/cgroupfs.h"
#include "shim/core/fs.h"
#include "shim/core/proc.h"
#include "shim/core/process.h"

namespace sandshim::runsc {
namespace {

bool IsRunsc(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  std::string base = std::filesystem::path(argv[0]).filename().string();
  return base.rfind("runsc", 0) == 0;
}

// Value of --flag=v or --flag v (runsc accepts single and double dashes).
bool HasFlagValue(const std::vector<std::string>& argv, std::string_view flag, std::string_view value) {
  for (size_t i = 1; i < argv.size(); ++i) {
    std::string_view a = argv[i];
    while (!a.empty() && a.front() == '-') a.remove_prefix(1);
    if (a.substr(0, flag.size()) != flag) continue;
    a.remove_prefix(flag.size());
    if (a.empty() && i + 1 < argv.size() && argv[i + 1] == value) return true;
    if (!a.empty() && a.front() == '=' && a.substr(1) == value) return true;
  }
  return false;
}

}  // namespace

bool BelongsTo(const std::vector<std::string>& argv, const Owner& o) {
  if (!IsRunsc(argv) || !HasFlagValue(argv, "root", o.runsc_root.string())) return false;
  if (!o.bundle.empty() && HasFlagValue(argv, "bundle", o.bundle.string())) return true;
  for (size_t i = 1; i < argv.size(); ++i)
    if (argv[i] == o.id) return true;
  return false;
}

Status KillProcesses(const Owner& o) {
  std::vector<pid_t> pids = proc::AllPids();
  std::erase(pids, ::getpid());
  // Those reparented to us are reaped as they die.
  auto alive = process::KillAndAwait(pids, std::chrono::seconds(1),
                                     [&](pid_t pid) { return BelongsTo(proc::Cmdline(pid), o); });
  if (!alive.empty()) return MakeError("runsc process " + std::to_string(alive.front()) + " survived SIGKILL", EBUSY);
  return Ok();
}

// runsc names its files <container-id>_sandbox:<sandbox-id>.{state,lock}.
static std::vector<std::filesystem::path> StateFiles(const Owner& o) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  std::string mine = o.id + "_sandbox:";
  std::string as_sandbox = "_sandbox:" + o.id + ".";
  for (const auto& e : std::filesystem::directory_iterator(o.runsc_root, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(mine, 0) == 0 || name.find(as_sandbox) != std::string::npos) out.push_back(e.path());
  }
  return out;
}

bool HasStateFiles(const Owner& o) { return !StateFiles(o).empty(); }

Status RemoveStateFiles(const Owner& o) {
  for (const auto& f : StateFiles(o)) TRY(fs::RemoveAll(f));
  return Ok();
}

Status RemoveCgroups(const std::string& cgroups_path) {
  if (cgroups_path.empty() || cgroups_path.find(':') != std::string::npos) return Ok();
  if (cgroups_path.find("..") != std::string::npos) return MakeError("refusing cgroupsPath with ..", EINVAL);
  std::string err;
  auto own = cgroupfs::Own();
  for (const auto& h : cgroupfs::Hierarchies()) {
    // runsc places cgroupsPath under the hierarchy's root, or under its own cgroup where that
    // is not the root (this host's memory controller): try both.
    auto rel = std::filesystem::path(cgroups_path).relative_path();
    for (const auto& dir : {h.mount / rel, cgroupfs::OwnDir(h, own) / rel}) {
      if (dir == h.mount) continue;
      // rmdir removes a cgroup only when it has no processes or children: exactly the safety
      // we want. A busy cgroup is reported; a missing one is already done.
      if (::rmdir(dir.c_str()) != 0 && errno != ENOENT)
        err += (err.empty() ? "" : "; ") + ErrnoError("rmdir " + dir.string()).msg;
    }
  }
  if (!err.empty()) return MakeError(err, EBUSY);
  return Ok();
}

}  // namespace sandshim::runsc
