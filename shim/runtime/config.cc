#include "shim/runtime/config.h"

#include <algorithm>
#include <cstdlib>

#include "bundle/spec.h"
#include "shim/core/fs.h"

namespace sandshim::runtime {

std::filesystem::path DefaultConfigPath() {
  const char* env = std::getenv("SANDSHIM_CONFIG");
  return env && *env ? env : "/etc/sandshim/config.json";
}

Result<Config> ParseConfig(std::string_view text) {
  auto v = TRY(bundle::ParseJson(text, "sandshim config"));
  if (!v.is_object()) return MakeError("sandshim config: must be a JSON object", EINVAL);
  const auto& o = v.get_object();
  // A value of the wrong type is an error, not a silent default (review N9): the operator
  // meant something, and "audit_dir": 5 must not quietly become the default audit dir.
  for (const char* key : {"backend", "runsc", "platform", "cache_dir", "audit_dir", "workspace_guards"})
    if (const auto* f = o.if_contains(key); f && !f->is_string())
      return MakeError(std::string("sandshim config: ") + key + " must be a string", EINVAL);
  if (const auto* f = o.if_contains("runsc_flags")) {
    bool ok = f->is_array() &&
              std::all_of(f->get_array().begin(), f->get_array().end(), [](const auto& e) { return e.is_string(); });
    if (!ok) return MakeError("sandshim config: runsc_flags must be an array of strings", EINVAL);
  }
  Config c;
  c.backend = bundle::GetString(o, "backend", c.backend);
  c.runsc = bundle::GetString(o, "runsc", c.runsc);
  c.runsc_flags = bundle::GetStrings(o, "runsc_flags");
  c.platform = bundle::GetString(o, "platform");
  if (const auto* v = o.if_contains("allow_annotation_downgrade")) {
    if (!v->is_bool()) return MakeError("sandshim config: allow_annotation_downgrade must be true or false", EINVAL);
    c.allow_annotation_downgrade = v->get_bool();
  }
  c.cache_dir = bundle::GetString(o, "cache_dir", c.cache_dir.string());
  c.audit_dir = bundle::GetString(o, "audit_dir", c.audit_dir.string());
  c.workspace_guards = bundle::GetString(o, "workspace_guards", c.workspace_guards.string());
  if (c.backend != "auto" && c.backend != "gvisor" && c.backend != "native")
    return MakeError("sandshim config: backend must be auto, gvisor or native, not \"" + c.backend + "\"", EINVAL);
  return c;
}

Result<Config> LoadConfig(const std::filesystem::path& file) {
  auto text = fs::ReadFile(file);
  if (!text) return Config{};
  auto c = ParseConfig(*text);
  if (!c) return c.error().Wrap(file.string());
  return c;
}

}  // namespace sandshim::runtime
