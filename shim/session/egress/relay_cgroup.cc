#include "shim/session/egress/relay_cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <sstream>

#include "shim/core/fs.h"
#include "shim/core/mountinfo.h"
#include "shim/core/unique_fd.h"

namespace sandshim::session {
namespace {

struct CgroupMount {
  std::filesystem::path point;
  std::string super_options;  // v1: the controllers, e.g. "rw,memory"
  bool v2 = false;
};

std::vector<CgroupMount> CgroupMounts(const std::string& mountinfo) {
  std::vector<CgroupMount> out;
  for (const auto& e : mountinfo::Parse(mountinfo)) {
    // Only a hierarchy mounted at its own root: the paths in /proc/<pid>/cgroup are from there.
    if (e.root != "/" || (e.fstype != "cgroup" && e.fstype != "cgroup2")) continue;
    out.push_back({e.mount_point, "," + e.super_options + ",", e.fstype == "cgroup2"});
  }
  return out;
}

bool HasController(const CgroupMount& m, const std::string& c) { return m.super_options.find("," + c + ",") != std::string::npos; }

}  // namespace

namespace {
// Each line of /proc/PID/cgroup that names a cgroup of its own: its controllers ("" on
// cgroup2) and path.
template <typename Fn>
void ForEachOwnCgroup(const std::string& proc_cgroup, Fn fn) {
  std::istringstream in(proc_cgroup);
  for (std::string line; std::getline(in, line);) {
    auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    std::string ctrls = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (path.empty() || path == "/" || path.find("..") != std::string::npos) continue;  // not a cgroup of its own
    fn(ctrls, std::filesystem::path(path).relative_path());
  }
}
}  // namespace

std::vector<std::filesystem::path> RelayCgroupDirs(const std::string& proc_cgroup, const std::string& mountinfo) {
  auto mounts = CgroupMounts(mountinfo);
  std::vector<std::filesystem::path> out;
  ForEachOwnCgroup(proc_cgroup, [&](const std::string& line_ctrls, const std::filesystem::path& path) {
    std::string ctrls = "," + line_ctrls + ",";
    auto has = [&](const char* c) { return ctrls.find("," + std::string(c) + ",") != std::string::npos; };
    for (const auto& m : mounts) {
      bool take = m.v2 ? ctrls == ",," : (has("memory") && HasController(m, "memory")) || (has("pids") && HasController(m, "pids"));
      if (take) out.push_back(m.point / path / "relay");
    }
  });
  return out;
}

std::vector<std::filesystem::path> SessionCgroupDirs(const std::string& proc_cgroup, const std::string& mountinfo) {
  auto mounts = CgroupMounts(mountinfo);
  std::vector<std::filesystem::path> out;
  ForEachOwnCgroup(proc_cgroup, [&](const std::string& ctrls, const std::filesystem::path& path) {
    for (const auto& m : mounts) {
      bool take = m.v2 ? ctrls.empty() : false;
      // v1: the hierarchy that holds the line's first controller (or its name=...).
      if (!m.v2 && !ctrls.empty()) take = HasController(m, ctrls.substr(0, ctrls.find(',')));
      if (take) out.push_back(m.point / path);
    }
  });
  return out;
}

Status JoinSessionCgroups(pid_t sandbox) {
  auto proc_cgroup = TRY(fs::ReadFile("/proc/" + std::to_string(sandbox) + "/cgroup"));
  std::string self = std::to_string(::getpid());
  for (const auto& d : SessionCgroupDirs(proc_cgroup, TRY(fs::ReadFile("/proc/self/mountinfo")))) {
    UniqueFd procs(::open((d / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
    if (!procs.valid() || ::write(procs.get(), self.data(), self.size()) != static_cast<ssize_t>(self.size()))
      return ErrnoError("join the session's cgroup " + d.string());
  }
  return Ok();
}

Status ChargeRelay(pid_t relay, pid_t sandbox, const std::filesystem::path& record) {
  auto proc_cgroup = TRY(fs::ReadFile("/proc/" + std::to_string(sandbox) + "/cgroup"));
  auto dirs = RelayCgroupDirs(proc_cgroup, TRY(fs::ReadFile("/proc/self/mountinfo")));
  boost::json::array listed;
  for (const auto& d : dirs) listed.push_back(boost::json::string(d.string()));
  TRY(fs::WriteFileAtomic(record, boost::json::serialize(listed), 0600));  // before any mkdir
  std::string pid = std::to_string(relay);
  for (const auto& d : dirs) {
    if (::mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) return ErrnoError("mkdir " + d.string());
    UniqueFd procs(::open((d / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
    if (!procs.valid() || ::write(procs.get(), pid.data(), pid.size()) != static_cast<ssize_t>(pid.size()))
      return ErrnoError("move the relay into " + d.string());
  }
  return Ok();
}

Status UnchargeRelay(const std::filesystem::path& record) {
  auto text = fs::ReadFile(record);
  if (!text) return fs::Exists(record) ? text.error() : Status(Ok());
  boost::system::error_code ec;
  auto v = boost::json::parse(*text, ec);
  if (!ec && v.is_array())
    for (const auto& d : v.get_array()) {
      if (!d.is_string()) continue;
      std::filesystem::path dir(std::string(d.get_string()));
      if (dir.filename() != "relay") continue;  // only ever our child: the record is ours, but check anyway
      if (::rmdir(dir.c_str()) != 0 && errno != ENOENT) return ErrnoError("rmdir " + dir.string());
    }
  if (::unlink(record.c_str()) != 0 && errno != ENOENT) return ErrnoError("unlink " + record.string());
  return Ok();
}

}  // namespace sandshim::session
