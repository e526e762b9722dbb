#include "shim/session/exec/exec_policy.h"

#include "bundle/spec.h"
#include "shim/core/fs.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;

static Result<json::value> Parse(const std::string& text, const char* what) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec) return MakeError(std::string(what) + ": not JSON: " + ec.message(), EINVAL);
  return v;
}

Result<ExecPolicy> CompileExecPolicy(const std::string& policy_json, const std::string& sources_json,
                                  const std::string& workspace) {
  ExecPolicy out;
  out.workspace = workspace;
  if (!sources_json.empty()) out.sources = TRY_CTX(policy::ParseSources(TRY(Parse(sources_json, "--sources"))), "--sources");
  if (!policy_json.empty()) {
    out.rules = TRY_CTX(policy::ParsePolicy(TRY(Parse(policy_json, "--policy")), {.workspace = workspace}), "--policy");
    out.rules->blocked_packages = out.sources.blocked_packages;
  } else if (!out.sources.blocked_packages.empty()) {
    // Blocked packages alone: everything runs except their installs.
    out.rules = policy::Policy{.blocked_packages = out.sources.blocked_packages, .unmatched = policy::Decision::kAllow};
  }
  return out;
}

Status ApplyCommandPolicy(bundle::SessionProfile& p) {
  if (p.command_policy_json.empty() && p.sources_json.empty()) return Ok();
  auto compiled = TRY(CompileExecPolicy(p.command_policy_json, p.sources_json, p.workspace_dest));
  if (compiled.rules)
    for (const auto& r : compiled.rules->deny.network)
      if (r.host == "*" && p.network == "host")
        return MakeError("--policy denies " + r.text + ": the session cannot have the host's network (use none or proxy)", EINVAL);
  // Hosts matter only where the proxy is the way out: with none nothing leaves anyway.
  if (p.network != "proxy") return Ok();
  const auto& s = compiled.sources;
  p.allow_domains.insert(p.allow_domains.end(), s.allow_domains.begin(), s.allow_domains.end());
  p.deny_domains.insert(p.deny_domains.end(), s.deny_domains.begin(), s.deny_domains.end());
  if (!compiled.rules) return Ok();
  for (const auto& r : compiled.rules->allow.network)
    if (r.host != "*") p.allow_domains.push_back(r.host);
  for (const auto& r : compiled.rules->deny.network)
    if (r.host != "*") p.deny_domains.push_back(r.host);
  return Ok();
}

Status WriteExecPolicy(const std::filesystem::path& dir, const bundle::SessionProfile& p) {
  if (p.command_policy_json.empty() && p.sources_json.empty()) return Ok();
  json::object doc{{"workspace", p.workspace_dest}};
  if (!p.command_policy_json.empty()) doc["policy"] = TRY(Parse(p.command_policy_json, "--policy"));
  if (!p.sources_json.empty()) doc["sources"] = TRY(Parse(p.sources_json, "--sources"));
  return fs::WriteFileAtomic(dir / layout::kExecPolicy, json::serialize(doc), layout::kExecPolicy.mode);
}

Result<std::optional<ExecPolicy>> LoadExecPolicy(const std::filesystem::path& dir) {
  auto text = fs::ReadFile(dir / layout::kExecPolicy);
  if (!text) return std::optional<ExecPolicy>();
  const std::string what(layout::kExecPolicy.rel);
  auto doc = TRY(Parse(*text, what.c_str()));
  if (!doc.is_object()) return MakeError(what + ": not an object", EINVAL);
  auto& o = doc.get_object();
  auto part = [&](const char* k) { return o.contains(k) ? json::serialize(o.at(k)) : std::string(); };
  auto* ws = o.if_contains("workspace");
  std::string workspace = ws && ws->is_string() ? std::string(ws->get_string()) : "/workspace";
  return std::optional(TRY(CompileExecPolicy(part("policy"), part("sources"), workspace)));
}

void LimitExecMemory(json::object& process, int64_t bytes) {
  auto* rl = process.if_contains("rlimits");
  if (!rl || !rl->is_array()) {
    process["rlimits"] = json::array{};
    rl = process.if_contains("rlimits");
  }
  for (auto& v : rl->get_array()) {
    if (!v.is_object() || v.get_object()["type"] != "RLIMIT_AS") continue;
    auto& o = v.get_object();
    for (const char* k : {"soft", "hard"}) {
      const auto& cur = o[k];
      bool looser = cur.is_uint64() ? cur.get_uint64() > static_cast<uint64_t>(bytes)
                                    : !cur.is_int64() || cur.get_int64() > bytes;
      if (looser) o[k] = bytes;
    }
    return;
  }
  rl->get_array().push_back(json::object{{"type", "RLIMIT_AS"}, {"soft", bytes}, {"hard", bytes}});
}

std::vector<std::string> UnderMemoryLimit(const std::vector<std::string>& argv, int64_t bytes) {
  // A tighter limit the session already has stays (ulimit cannot raise it; its error is moot).
  std::vector<std::string> out = {"/bin/sh", "-c", "ulimit -v " + std::to_string(bytes >> 10) + " 2>/dev/null; exec \"$@\"",
                                  "sh"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

static std::string Script(const SessionExec& e) {
  std::string script;
  for (const auto& a : e.overrides.args) script += (script.empty() ? "" : " ") + a;
  return script;
}

std::string ApprovalKey(const SessionExec& e) {
  // The exec's own variables are part of what was approved (-e BASH_ENV=... asks): an
  // approval of the command alone does not cover it with other variables.
  std::string env = e.overrides.env.empty() ? "" : " env:" + json::serialize(json::value_from(e.overrides.env));
  if (e.shell) return "shell:" + Script(e) + env;
  return "argv:" + json::serialize(json::value_from(e.overrides.args)) + env;
}

policy::Verdict JudgeExec(const policy::Policy& rules, const SessionExec& e, const std::string& workspace) {
  policy::ExecContext ctx;
  ctx.env = e.overrides.env;
  const auto& cwd = e.overrides.cwd;
  if (cwd.empty()) ctx.cwd = policy::CwdSet(workspace);
  else if (cwd.front() == '/') ctx.cwd = policy::CwdSet(cwd);  // a relative --cwd: unknown, left so
  if (!e.shell) return policy::DecideArgv(rules, e.overrides.args, ctx);
  // --shell starts where the last --shell ended (shell_state.h: `cd -- DIR`), or where the
  // exec starts if DIR is gone: either. Unknown state: anywhere.
  if (!e.shell_cwd) ctx.cwd = policy::CwdSet();
  else if (!e.shell_cwd->empty()) {
    policy::CwdSet saved(*e.shell_cwd);
    saved.Merge(ctx.cwd);
    ctx.cwd = saved;
  }
  return policy::DecideScript(rules, Script(e), ctx);
}

}  // namespace sandshim::session
