#include "bundle/spec.h"

#include "shim/core/fs.h"

namespace sandshim::bundle {

namespace json = boost::json;

std::string GetString(const json::object& o, std::string_view key, std::string def) {
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_string()) return def;
  return std::string(it->value().get_string());
}

bool GetBool(const json::object& o, std::string_view key, bool def) {
  auto it = o.find(key);
  if (it == o.end() || !it->value().is_bool()) return def;
  return it->value().get_bool();
}

const json::object* GetObject(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return (it != o.end() && it->value().is_object()) ? &it->value().get_object() : nullptr;
}

const json::array* GetArray(const json::object& o, std::string_view key) {
  auto it = o.find(key);
  return (it != o.end() && it->value().is_array()) ? &it->value().get_array() : nullptr;
}

std::vector<std::string> GetStrings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* a = GetArray(o, key))
    for (const auto& v : *a)
      if (v.is_string()) out.emplace_back(v.get_string());
  return out;
}

Result<json::value> ParseJson(std::string_view text, std::string_view what) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return MakeError(std::string(what) + ": invalid JSON: " + ec.message(), EINVAL);
  return v;
}

static void ReadProcess(const json::object& p, Spec& s) {
  s.has_process = true;
  s.terminal = GetBool(p, "terminal");
  s.args = GetStrings(p, "args");
  s.cwd = GetString(p, "cwd");
  if (const auto* caps = GetObject(p, "capabilities")) s.bounding_caps = GetStrings(*caps, "bounding");
}

static void ReadLinux(const json::object& l, Spec& s) {
  s.cgroups_path = GetString(l, "cgroupsPath");
  if (const auto* nss = GetArray(l, "namespaces")) {
    for (const auto& v : *nss) {
      if (!v.is_object()) continue;
      s.namespaces.push_back({GetString(v.get_object(), "type"), GetString(v.get_object(), "path")});
    }
  }
}

Result<Spec> ParseSpec(std::string_view json_text) {
  auto v = TRY(ParseJson(json_text, "config.json"));
  if (!v.is_object()) return MakeError("config.json: top level must be an object", EINVAL);
  Spec s;
  s.doc = std::move(v.get_object());
  s.oci_version = GetString(s.doc, "ociVersion");
  s.hostname = GetString(s.doc, "hostname");
  if (const auto* root = GetObject(s.doc, "root")) {
    s.root_path = GetString(*root, "path");
    s.root_readonly = GetBool(*root, "readonly");
  }
  if (const auto* p = GetObject(s.doc, "process")) ReadProcess(*p, s);
  if (const auto* l = GetObject(s.doc, "linux")) ReadLinux(*l, s);
  if (const auto* a = GetObject(s.doc, "annotations"))
    for (const auto& kv : *a)
      if (kv.value().is_string()) s.annotations[std::string(kv.key())] = std::string(kv.value().get_string());
  return s;
}

Result<Spec> LoadSpec(const std::filesystem::path& bundle_dir) {
  auto text = fs::ReadFile(bundle_dir / "config.json");
  if (!text) return text.error().Wrap("load spec");
  return ParseSpec(*text);
}

std::string Serialize(const Spec& spec) { return json::serialize(spec.doc); }

const Namespace* FindNamespace(const Spec& spec, std::string_view type) {
  for (const auto& ns : spec.namespaces)
    if (ns.type == type) return &ns;
  return nullptr;
}

std::filesystem::path RootfsPath(const Spec& spec, const std::filesystem::path& bundle_dir) {
  std::filesystem::path root(spec.root_path);
  return root.is_absolute() ? root : bundle_dir / root;
}

}  // namespace sandshim::bundle
