#include "shim/session/exec/policy_mounts.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "shim/core/log.h"
#include "shim/session/exec/exec_policy.h"

namespace sandshim::session {
namespace json = boost::json;

namespace {

constexpr size_t kMaxWalk = 200000;  // workspace entries looked at for hard links

// The one path a rule names: "/x", "/x/**" (and "/x:*", parsed to that): "/x"; else "".
std::string OnePath(const std::string& glob) {
  std::string p = glob;
  if (p.size() > 3 && p.compare(p.size() - 3, 3, "/**") == 0) p.resize(p.size() - 3);
  return p.find_first_of("*?[") == std::string::npos ? p : "";
}

// Other names, in the sandbox, of the file at `dest` when it lies in the workspace.
std::vector<std::string> HardLinks(const bundle::SessionProfile& p, const std::string& dest) {
  const std::string& ws = p.workspace_dest;
  if (p.workspace.empty() || (dest != ws && dest.rfind(ws + "/", 0) != 0)) return {};
  std::filesystem::path host = p.workspace + dest.substr(ws.size());
  struct stat target;
  if (::lstat(host.c_str(), &target) != 0 || !S_ISREG(target.st_mode) || target.st_nlink < 2) return {};
  std::vector<std::string> out;
  std::error_code ec;
  size_t seen = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(p.workspace, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    if (++seen > kMaxWalk) {
      log::Warn("policy mounts: more than " + std::to_string(kMaxWalk) + " workspace entries: hard links of " + dest + " not all found");
      break;
    }
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0 || st.st_ino != target.st_ino || st.st_dev != target.st_dev) continue;
    auto rel = std::filesystem::relative(it->path(), p.workspace, ec).string();
    if (!ec && it->path() != host) out.push_back(ws + "/" + rel);
  }
  return out;
}

void Append(json::object& lx, const char* key, const std::vector<std::string>& paths) {
  if (paths.empty()) return;
  if (!lx.if_contains(key) || !lx[key].is_array()) lx[key] = json::array{};
  auto& a = lx[key].as_array();
  for (const auto& path : paths)
    if (std::find(a.begin(), a.end(), json::value(path)) == a.end()) a.push_back(json::value(path));
}

}  // namespace

PolicyMounts FileRuleMounts(const policy::Policy& p) {
  PolicyMounts m;
  for (const auto& r : p.deny.file) {
    auto path = OnePath(r.glob);
    if (path.empty() || path == "/") { m.advisory.push_back(r.text); continue; }
    (r.access == policy::Access::kRead ? m.masked : m.readonly).push_back(path);
  }
  return m;
}

Status AddPolicyMounts(json::object& spec, const bundle::SessionProfile& p) {
  if (p.command_policy_json.empty()) return Ok();
  if (std::getenv("SANDSHIM_TEST_NO_POLICY_MOUNTS")) return Ok();  // test-only positive control
  auto compiled = TRY(CompileExecPolicy(p.command_policy_json, p.sources_json, p.workspace_dest));
  if (!compiled.rules) return Ok();
  auto m = FileRuleMounts(*compiled.rules);
  for (auto* list : {&m.masked, &m.readonly}) {
    std::vector<std::string> links;
    for (const auto& path : *list)
      for (auto& l : HardLinks(p, path)) links.push_back(std::move(l));
    list->insert(list->end(), links.begin(), links.end());
  }
  if (!spec.if_contains("linux") || !spec["linux"].is_object()) spec["linux"] = json::object{};
  auto& lx = spec["linux"].as_object();
  Append(lx, "readonlyPaths", m.readonly);
  Append(lx, "maskedPaths", m.masked);
  return Ok();
}

}  // namespace sandshim::session
