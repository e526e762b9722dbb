#include "shim/gvisor/spec_fixups.h"

#include <errno.h>

#include <algorithm>
#include <string>

#include "shim/core/fs.h"

namespace sandshim::runtime {
namespace json = boost::json;

int64_t HostPidsLimitFor(int64_t container_limit, int64_t host_pid_max) {
  int64_t roomy = kSandboxOwnTasks + container_limit * kHostTasksPerProcess;
  int64_t least = kSandboxOwnTasks + container_limit * kMinHostTasksPerProcess;
  return std::min(roomy, std::max(least, host_pid_max / 2));
}

int64_t HostPidsLimit(int64_t container_limit) {
  auto text = fs::ReadFile("/proc/sys/kernel/pid_max");
  int64_t pid_max = 32768;  // the kernel's default where it cannot be read
  if (text) try {
      pid_max = std::stoll(*text);
    } catch (const std::exception&) {
    }
  return HostPidsLimitFor(container_limit, pid_max);
}

static bool MovePidsLimit(json::object& doc) {
  auto* linux_obj = doc.if_contains("linux") ? doc["linux"].if_object() : nullptr;
  auto* res = linux_obj && linux_obj->if_contains("resources") ? (*linux_obj)["resources"].if_object() : nullptr;
  auto* pids = res && res->if_contains("pids") ? (*res)["pids"].if_object() : nullptr;
  if (!pids || !pids->if_contains("limit") || !(*pids)["limit"].is_number()) return false;
  int64_t limit = (*pids)["limit"].to_number<int64_t>();
  if (limit <= 0) {
    res->erase("pids");
    return true;
  }
  // The host cgroup still gets a limit (raw runsc writes pids.max; "max" would let a runaway
  // Sentry fork the host out of pids), with room for the sandbox's own tasks.
  (*pids)["limit"] = HostPidsLimit(limit);
  auto* process = doc.if_contains("process") ? doc["process"].if_object() : nullptr;
  if (!process) return true;
  if (!process->if_contains("rlimits") || !(*process)["rlimits"].is_array()) (*process)["rlimits"] = json::array{};
  auto& rl = (*process)["rlimits"].get_array();
  for (auto& r : rl)
    if (r.is_object() && r.get_object().if_contains("type") && r.get_object()["type"] == "RLIMIT_NPROC") {
      auto& o = r.get_object();
      for (const char* k : {"soft", "hard"})
        if (!o.if_contains(k) || !o[k].is_number() || o[k].to_number<int64_t>() > limit) o[k] = limit;
      return true;
    }
  rl.push_back(json::object{{"type", "RLIMIT_NPROC"}, {"soft", limit}, {"hard", limit}});
  return true;
}

static bool AnswersEnosys(const json::object& rule) {
  const auto* action = rule.if_contains("action");
  const auto* ret = rule.if_contains("errnoRet");
  return action && *action == "SCMP_ACT_ERRNO" && ret && ret->is_number() && ret->to_number<int64_t>() == ENOSYS &&
         !rule.if_contains("args");
}

// Only where one rule names clone3, answering ENOSYS: a profile that says more of clone3 (an
// EPERM of its own, conditions) is left as it is rather than given a second, conflicting rule.
static bool AllowClone3(json::object& doc) {
  auto* linux_obj = doc.if_contains("linux") ? doc["linux"].if_object() : nullptr;
  auto* seccomp = linux_obj && linux_obj->if_contains("seccomp") ? (*linux_obj)["seccomp"].if_object() : nullptr;
  auto* rules = seccomp && seccomp->if_contains("syscalls") ? (*seccomp)["syscalls"].if_array() : nullptr;
  if (!rules) return false;
  json::object* only = nullptr;
  for (auto& v : *rules) {
    auto* rule = v.if_object();
    const auto* names = rule && rule->if_contains("names") ? rule->at("names").if_array() : nullptr;
    if (!names || std::find(names->begin(), names->end(), json::value("clone3")) == names->end()) continue;
    if (only) return false;
    only = rule;
  }
  if (!only || !AnswersEnosys(*only)) return false;
  auto& names = (*only)["names"].as_array();
  if (names.size() == 1) {
    (*only)["action"] = "SCMP_ACT_ALLOW";
    only->erase("errnoRet");
    return true;
  }
  names.erase(std::find(names.begin(), names.end(), json::value("clone3")));
  rules->push_back(json::object{{"names", json::array{"clone3"}}, {"action", "SCMP_ACT_ALLOW"}});
  return true;
}

bool FixupSpec(json::object& doc) {
  bool pids = MovePidsLimit(doc);
  bool clone3 = AllowClone3(doc);
  return pids || clone3;
}

json::object TakeBlkioWeights(json::object& doc) {
  json::object out;
  auto* linux_obj = doc.if_contains("linux") ? doc["linux"].if_object() : nullptr;
  auto* res = linux_obj && linux_obj->if_contains("resources") ? (*linux_obj)["resources"].if_object() : nullptr;
  auto* blkio = res && res->if_contains("blockIO") ? (*res)["blockIO"].if_object() : nullptr;
  if (!blkio) return out;
  for (const char* k : {"weight", "leafWeight", "weightDevice"})
    if (auto it = blkio->find(k); it != blkio->end()) {
      out[k] = it->value();
      blkio->erase(it);
    }
  return out;
}

bool MountsTmp(const json::object& doc) {
  const auto* mounts = doc.if_contains("mounts") ? doc.at("mounts").if_array() : nullptr;
  if (!mounts) return false;
  for (const auto& m : *mounts) {
    const auto* o = m.if_object();
    const auto* dest = o && o->if_contains("destination") ? o->at("destination").if_string() : nullptr;
    if (!dest) continue;
    auto p = std::filesystem::path(std::string(*dest)).lexically_normal();
    if (p == "/tmp" || p == "/tmp/") return true;
  }
  return false;
}

void BindImageTmp(json::object& doc, const std::filesystem::path& image_tmp) {
  const auto* root = doc.if_contains("root") ? doc["root"].if_object() : nullptr;
  bool readonly = root && root->if_contains("readonly") && root->at("readonly").is_bool() && root->at("readonly").get_bool();
  if (!doc.if_contains("mounts") || !doc["mounts"].is_array()) doc["mounts"] = json::array{};
  doc["mounts"].get_array().push_back(json::object{{"destination", "/tmp"},
                                                   {"type", "bind"},
                                                   {"source", image_tmp.string()},
                                                   {"options", json::array{"rbind", readonly ? "ro" : "rw"}}});
}

}  // namespace sandshim::runtime
