#include "shim/session/pool/member_rebase.h"

#include <algorithm>

#include "bundle/json_rebase.h"
#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;
namespace {

void SetEnv(json::object& proc, const std::map<std::string, std::string>& env) {
  auto& list = proc["env"];
  if (!list.is_array()) list = json::array();
  auto& arr = list.as_array();
  for (const auto& [k, val] : env) {
    std::string kv = k + "=" + val;
    auto it = std::find_if(arr.begin(), arr.end(), [&](const json::value& e) {
      return e.is_string() && std::string_view(e.as_string()).starts_with(k + "=");
    });
    if (it != arr.end()) *it = kv;
    else arr.emplace_back(kv);
  }
}

// Rewrites one JSON file of the member for its new place (and binds env into the spec).
Status RebaseFile(const std::filesystem::path& file, const MemberMove& m, const std::map<std::string, std::string>& env,
                  const std::string& cwd, mode_t mode) {
  auto text = fs::ReadFile(file);
  if (!text) return Ok();  // sessions made before pins had none
  auto v = TRY(bundle::ParseJson(*text, file.string()));
  bundle::RebasePaths(v, m.member_dir, m.session_dir);
  bundle::RebasePaths(v, m.workspace_from, m.workspace_to);
  if (auto* proc = v.is_object() ? v.as_object().if_contains("process") : nullptr; proc && proc->is_object()) {
    if (!cwd.empty()) proc->as_object()["cwd"] = cwd;
    if (!env.empty()) SetEnv(proc->as_object(), env);
  }
  // Not fsync'd: what these name (the sandbox, its mounts, the relay) dies with the kernel,
  // and the durable intent already says where the member is going.
  return fs::WriteFileAtomic(file, json::serialize(v), mode, /*sync=*/false);
}

}  // namespace

Status RebaseMemberFiles(const std::filesystem::path& member_dir, const MemberMove& move,
                         const std::map<std::string, std::string>& env, const std::string& cwd) {
  static const std::map<std::string, std::string> kNoEnv;
  for (const auto& e : ClaimRebased()) {
    bool spec = e.rel == layout::kBundleConfig.rel;  // the spec: the claim's env and cwd too
    TRY(RebaseFile(member_dir / e, move, spec ? env : kNoEnv, spec ? cwd : "", e.mode));
  }
  return Ok();
}

}  // namespace sandshim::session
