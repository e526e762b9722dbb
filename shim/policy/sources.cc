#include "shim/policy/sources.h"

#include "shim/policy/packages.h"

namespace sandshim::policy {
namespace json = boost::json;

Result<std::string> HostOf(std::string_view s) {
  std::string_view rest = s;
  bool url = false;
  if (auto scheme = rest.find("://"); scheme != std::string_view::npos) {
    rest = rest.substr(scheme + 3);
    url = true;
  }
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (auto at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);  // user@
  // An scp-like git remote (git@host:org/repo): what follows ':' is a path, not a port.
  if (auto colon = rest.find(':'); colon != std::string_view::npos && !url) rest = rest.substr(0, colon);
  if (rest.empty() || rest.find_first_of(" \t") != std::string_view::npos)
    return MakeError("\"" + std::string(s) + "\": names no host", EINVAL);
  return std::string(rest);
}

static Result<std::vector<std::string>> Strings(const json::value& v, const std::string& where) {
  if (!v.is_array()) return MakeError(where + ": must be an array of strings", EINVAL);
  std::vector<std::string> out;
  for (const auto& s : v.get_array()) {
    if (!s.is_string()) return MakeError(where + ": must be an array of strings", EINVAL);
    out.emplace_back(s.get_string());
  }
  return out;
}

static Status AddBlocked(Sources& s, const std::string& manager, const json::value& v, const std::string& where) {
  for (const auto& name : TRY(Strings(v, where)))
    s.blocked_packages[manager].push_back(PackageName(manager == "*" ? "pip" : manager, name));
  return Ok();
}

static Result<int64_t> Positive(const json::value& v, const std::string& where) {
  if (!v.is_int64() || v.get_int64() <= 0) return MakeError(where + ": must be a positive integer", EINVAL);
  return v.get_int64();
}

Result<Sources> ParseSources(const json::value& doc) {
  if (!doc.is_object()) return MakeError("sources: must be a JSON object", EINVAL);
  Sources s;
  for (const auto& [key, v] : doc.get_object()) {
    std::string k(key), where = "sources: " + std::string(key);
    if (k == "package_managers") {
      if (!v.is_object()) return MakeError(where + ": must be an object", EINVAL);
      for (const auto& [mgr, m] : v.get_object()) {
        std::string w = where + "." + std::string(mgr);
        if (!m.is_object()) return MakeError(w + ": must be an object", EINVAL);
        if (auto* regs = m.get_object().if_contains("registries"))
          for (const auto& r : TRY(Strings(*regs, w + ".registries"))) s.allow_domains.push_back(TRY_CTX(HostOf(r), w));
        if (auto* b = m.get_object().if_contains("blocked_packages")) TRY(AddBlocked(s, std::string(mgr), *b, w + ".blocked_packages"));
      }
    } else if (k == "blocked_packages") {
      if (v.is_array()) TRY(AddBlocked(s, "*", v, where));
      else if (v.is_object())
        for (const auto& [mgr, names] : v.get_object()) TRY(AddBlocked(s, std::string(mgr), names, where + "." + std::string(mgr)));
      else return MakeError(where + ": must be an array or an object of arrays", EINVAL);
    } else if (k == "git_remotes") {
      for (const auto& r : TRY(Strings(v, where))) s.allow_domains.push_back(TRY_CTX(HostOf(r), where));
    } else if (k == "web_domains") {
      if (!v.is_object()) return MakeError(where + ": must be an object", EINVAL);
      if (auto* a = v.get_object().if_contains("allowed"))
        for (auto& d : TRY(Strings(*a, where + ".allowed"))) s.allow_domains.push_back(d);
      if (auto* b = v.get_object().if_contains("blocked")) s.deny_domains = TRY(Strings(*b, where + ".blocked"));
    } else if (k == "max_execution_time_seconds") {
      s.max_execution_time = std::chrono::seconds(TRY(Positive(v, where)));
    } else if (k == "max_memory_mb") {
      s.max_memory_bytes = TRY(Positive(v, where)) << 20;
    } else {
      return MakeError(where + ": unknown (package_managers, blocked_packages, git_remotes, web_domains, "
                               "max_execution_time_seconds, max_memory_mb)", EINVAL);
    }
  }
  return s;
}

}  // namespace sandshim::policy
