#include "shim/policy/rules.h"

#include <algorithm>

namespace sandshim::policy {
namespace json = boost::json;

std::string_view Name(Decision d) {
  switch (d) {
    case Decision::kAllow: return "allow";
    case Decision::kAsk: return "ask";
    case Decision::kDeny: return "deny";
  }
  return "ask";
}

bool RuleSet::Has(Access a) const {
  for (const auto& r : file)
    if (r.access == a) return true;
  return false;
}

static std::string Expand(std::string_view s, const PolicyVars& vars) {
  std::string out(s);
  for (size_t at; (at = out.find("${WORKSPACE}")) != std::string::npos;) out.replace(at, 12, vars.workspace);
  return out;
}

static Result<ShellRule> ParseShellRule(std::string text, std::string_view body) {
  ShellRule r{.text = std::move(text)};
  if (body.size() >= 2 && body.substr(body.size() - 2) == ":*") {
    r.prefix = true;
    body.remove_suffix(2);
  }
  // Words split at the C locale's spaces, as `istream >> string` splits them; without a stream
  // (the exec guard parses its rules on every exec: no locale, no stream code to load).
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  for (size_t at = body.find_first_not_of(kSpace); at != std::string_view::npos;) {
    size_t end = std::min(body.find_first_of(kSpace, at), body.size());
    r.words.emplace_back(body.substr(at, end - at));
    at = body.find_first_not_of(kSpace, end);
  }
  if (r.words.empty()) return MakeError("rule " + r.text + ": names no command", EINVAL);
  return r;
}

static Result<FileRule> ParseFileRule(std::string text, std::string_view body) {
  FileRule r{.text = std::move(text)};
  auto colon = body.find(':');
  if (colon == std::string_view::npos) return MakeError("rule " + r.text + ": expected file(read:GLOB) or file(write:GLOB)", EINVAL);
  auto mode = body.substr(0, colon);
  if (mode == "read") r.access = Access::kRead;
  else if (mode == "write") r.access = Access::kWrite;
  else return MakeError("rule " + r.text + ": access must be read or write", EINVAL);
  std::string glob(body.substr(colon + 1));
  // file(read:/etc/shadow:*): the path, or anything below it.
  if (glob.size() >= 2 && glob.substr(glob.size() - 2) == ":*") glob = glob.substr(0, glob.size() - 2) + "/**";
  if (glob.empty() || glob.front() != '/') return MakeError("rule " + r.text + ": the path must be absolute", EINVAL);
  r.glob = glob;
  return r;
}

Status AddRule(RuleSet& set, std::string_view rule, const PolicyVars& vars) {
  std::string text(rule);
  auto open = rule.find('(');
  if (open == std::string_view::npos || rule.back() != ')')
    return MakeError("rule " + text + ": expected KIND(...)", EINVAL);
  auto kind = rule.substr(0, open);
  std::string body = Expand(rule.substr(open + 1, rule.size() - open - 2), vars);
  if (kind == "shell") set.shell.push_back(TRY(ParseShellRule(text, body)));
  else if (kind == "file") set.file.push_back(TRY(ParseFileRule(text, body)));
  else if (kind == "network") {
    if (body.rfind("outbound:", 0) != 0) return MakeError("rule " + text + ": expected network(outbound:HOST)", EINVAL);
    auto host = body.substr(9);
    if (host.empty()) return MakeError("rule " + text + ": names no host", EINVAL);
    set.network.push_back({text, host});
  } else {
    return MakeError("rule " + text + ": unknown kind \"" + std::string(kind) + "\" (shell, file or network)", EINVAL);
  }
  return Ok();
}

static Status AddTier(RuleSet& set, const json::object& perms, const char* tier, const PolicyVars& vars) {
  auto* v = perms.if_contains(tier);
  if (!v) return Ok();
  if (!v->is_array()) return MakeError(std::string("permissions.") + tier + ": must be an array of strings", EINVAL);
  for (const auto& r : v->get_array()) {
    if (!r.is_string()) return MakeError(std::string("permissions.") + tier + ": must be an array of strings", EINVAL);
    TRY_CTX(AddRule(set, std::string_view(r.get_string()), vars), std::string("permissions.") + tier);
  }
  return Ok();
}

Result<Policy> ParsePolicy(const json::value& doc, const PolicyVars& vars) {
  if (!doc.is_object()) return MakeError("policy: must be a JSON object", EINVAL);
  auto* perms = doc.get_object().if_contains("permissions");
  if (!perms || !perms->is_object()) return MakeError("policy: needs a \"permissions\" object", EINVAL);
  for (const auto& [k, v] : perms->get_object())
    if (k != "allow" && k != "ask" && k != "deny")
      return MakeError("policy: permissions." + std::string(k) + ": unknown (allow, ask, deny)", EINVAL);
  Policy p;
  TRY(AddTier(p.allow, perms->get_object(), "allow", vars));
  TRY(AddTier(p.ask, perms->get_object(), "ask", vars));
  TRY(AddTier(p.deny, perms->get_object(), "deny", vars));
  if (auto* ttl = doc.get_object().if_contains("approval_ttl_seconds")) {
    if (!ttl->is_int64() || ttl->get_int64() <= 0) return MakeError("policy: approval_ttl_seconds: must be a positive integer", EINVAL);
    p.approval_ttl = std::chrono::seconds(ttl->get_int64());
  }
  return p;
}

}  // namespace sandshim::policy
