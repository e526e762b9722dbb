#include "shim/session/exec/exec_guard.h"

#include <unistd.h>

#include <cstdlib>

#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/session/store/audit.h"
#include "shim/session/store/installed_binary.h"
#include "shim/session/store/layout.h"
#include "shim/policy/exec_judge.h"
#include "shim/session/exec/exec_policy.h"
#include "shim/session/exec/policy_mounts.h"

// ctx_helper_embed.S (CMakeLists.txt): the static sandshim-guard, .incbin'd.
extern "C" const char sandshim_guard_begin[];
extern "C" const char sandshim_guard_end[];

namespace sandshim::session {
namespace json = boost::json;

std::string_view GuardBytes() {
  return {sandshim_guard_begin, static_cast<size_t>(sandshim_guard_end - sandshim_guard_begin)};
}

namespace {

// <session>/sshim: empty files and directories, one for each bind below /.sshim. The session
// directory is root's (0700): nothing of a tenant's is in the way.
Result<std::filesystem::path> MakeToolsSkeleton(const std::filesystem::path& session_dir) {
  auto dir = session_dir / layout::kToolsSkeleton;
  TRY_CTX(fs::MkdirAll(dir, layout::kToolsSkeleton.mode), "the /.sshim skeleton");
  for (auto name : kToolsSkeletonDirs) TRY_CTX(fs::MkdirAll(dir / name, 0755), "the /.sshim skeleton");
  for (auto name : kToolsSkeletonFiles) {
    auto file = dir / name;
    if (!fs::Exists(file)) TRY_CTX(fs::WriteFileAtomic(file, "", 0444), "the /.sshim skeleton");
  }
  return dir;
}

void AddBind(json::object& spec, std::string_view dest, const std::filesystem::path& source) {
  if (!spec.if_contains("mounts") || !spec["mounts"].is_array()) spec["mounts"] = json::array{};
  spec["mounts"].as_array().push_back(json::object{{"destination", dest},
                                                   {"type", "bind"},
                                                   {"source", source.string()},
                                                   {"options", json::array{"rbind", "ro", "nosuid", "nodev"}}});
}

}  // namespace

Status AddExecGuard(json::object& spec, const bundle::SessionProfile& p, const std::filesystem::path& dir) {
  if (p.command_policy_json.empty() && p.sources_json.empty()) return Ok();
  auto compiled = TRY(CompileExecPolicy(p.command_policy_json, p.sources_json, p.workspace_dest));
  if (!compiled.rules || policy::GuardRuleArgs(*compiled.rules).empty()) return Ok();
  auto path = TRY(InstallBinary(dir, "sandshim-guard", GuardBytes(), "exec guard"));
  AddBind(spec, kToolsDir, TRY(MakeToolsSkeleton(dir)));  // before the binds into it
  AddBind(spec, kGuardPath, path);
  return Ok();
}

Status AddPolicyEnforcement(json::object& spec, const bundle::SessionProfile& p, const std::filesystem::path& dir) {
  TRY(AddPolicyMounts(spec, p));
  return AddExecGuard(spec, p, dir);
}

bool BindsGuard(const json::value& doc) {
  const auto* o = doc.if_object();
  const auto* mounts = o ? o->if_contains("mounts") : nullptr;
  if (!mounts || !mounts->is_array()) return false;
  for (const auto& m : mounts->get_array())
    if (m.is_object() && m.get_object().if_contains("destination") && m.get_object().at("destination") == kGuardPath) return true;
  return false;
}

bool WantGuard(const std::vector<std::string>& rules, const json::value& doc) {
  return !rules.empty() && BindsGuard(doc) && !std::getenv("SANDSHIM_TEST_NO_EXEC_GUARD");
}

void UnderGuard(json::object& process, const std::vector<std::string>& rules, int audit_fd) {
  json::array args{kGuardPath};
  for (const auto& r : rules) args.emplace_back(r);
  if (audit_fd >= 0) args.insert(args.end(), {"--audit-fd", json::value(std::to_string(audit_fd))});
  args.emplace_back("--");
  if (const auto* cmd = process.if_contains("args"); cmd && cmd->is_array())
    for (const auto& a : cmd->get_array()) args.push_back(a);
  process["args"] = std::move(args);
}

void AuditGuardRefusals(int fd, const std::filesystem::path& audit, const std::string& session,
                        const std::vector<std::string>& exec_argv) {
  std::string text;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  json::array exec;
  for (const auto& a : exec_argv) exec.emplace_back(a);
  for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) {
    boost::system::error_code ec;
    auto line = json::parse(std::string_view(text).substr(at, nl - at), ec);
    if (ec || !line.is_object()) {
      log::Warn("session " + session + ": an exec guard line that is not JSON was dropped");
      continue;
    }
    auto fields = std::move(line.get_object());
    fields["session"] = session;
    fields["exec_argv"] = exec;
    (void)AppendAudit(audit, "execve", std::move(fields));
  }
}

}  // namespace sandshim::session
