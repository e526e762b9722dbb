#include "bundle/process.h"

#include <charconv>

#include "shim/core/fs.h"

namespace sandshim::bundle {

namespace json = boost::json;

Result<json::object> LoadProcess(const std::filesystem::path& file) {
  auto text = TRY_CTX(fs::ReadFile(file), "exec --process");
  auto v = TRY(ParseJson(text, "process " + file.string()));
  if (!v.is_object()) return MakeError("process " + file.string() + ": must be a JSON object", EINVAL);
  auto& p = v.get_object();
  // Read strictly once here so a mistyped field fails `exec` with its name, before anything runs.
  auto typed = TRY(ReadProcess(p, "process " + file.string()));
  if (typed.args.empty()) return MakeError("process " + file.string() + ": args must name a command", EINVAL);
  return std::move(p);
}

static Result<uint32_t> ParseU32(std::string_view s, std::string_view what) {
  uint32_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty())
    return MakeError("invalid " + std::string(what) + " \"" + std::string(s) + "\": must be a number", EINVAL);
  return v;
}

Result<std::pair<uint32_t, std::optional<uint32_t>>> ParseUser(std::string_view user) {
  auto colon = user.find(':');
  uint32_t uid = TRY(ParseU32(user.substr(0, colon), "user"));
  if (colon == std::string_view::npos) return std::pair<uint32_t, std::optional<uint32_t>>{uid, std::nullopt};
  uint32_t gid = TRY(ParseU32(user.substr(colon + 1), "group"));
  return std::pair<uint32_t, std::optional<uint32_t>>{uid, gid};
}

static void MergeEnv(json::array& env, const std::vector<std::string>& extra) {
  for (const auto& kv : extra) {
    std::string key = kv.substr(0, kv.find('='));
    bool replaced = false;
    for (auto& e : env) {
      if (e.is_string() && std::string_view(e.get_string()).substr(0, key.size() + 1) == key + "=") {
        e = kv;
        replaced = true;
      }
    }
    if (!replaced) env.emplace_back(kv);
  }
}

Result<json::object> ProcessFromOverrides(const Spec& container, const ExecOverrides& o) {
  if (o.args.empty()) return MakeError("exec: no command given", EINVAL);
  json::object p;
  if (const auto* base = GetObject(container.doc, "process")) p = *base;
  json::array args;
  for (const auto& a : o.args) args.emplace_back(a);
  p["args"] = std::move(args);
  p["terminal"] = o.tty;
  // The container's console size belongs to its own terminal, not this one.
  p.erase("consoleSize");
  if (!o.cwd.empty()) p["cwd"] = o.cwd;
  if (!p.contains("cwd")) p["cwd"] = "/";
  json::array env = p.contains("env") && p["env"].is_array() ? p["env"].get_array() : json::array{};
  MergeEnv(env, o.env);
  p["env"] = std::move(env);
  if (!o.user.empty()) {
    auto [uid, gid] = TRY(ParseUser(o.user));
    json::object u;
    u["uid"] = uid;
    u["gid"] = gid.value_or(0);
    p["user"] = std::move(u);
  }
  if (!o.additional_gids.empty()) {
    json::array gids;
    for (const auto& g : o.additional_gids) gids.emplace_back(TRY(ParseU32(g, "additional gid")));
    if (!p["user"].is_object()) p["user"] = json::object{{"uid", 0}, {"gid", 0}};
    p["user"].get_object()["additionalGids"] = std::move(gids);
  }
  if (o.no_new_privs) p["noNewPrivileges"] = true;
  if (!o.cap_add.empty() && p.contains("capabilities") && p["capabilities"].is_object()) {
    for (auto& [set, v] : p["capabilities"].get_object()) {
      if (!v.is_array()) continue;
      for (const auto& c : o.cap_add) v.get_array().emplace_back(c);
    }
  }
  return p;
}

}  // namespace sandshim::bundle
