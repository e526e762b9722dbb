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

static Status ReadProcessInto(const Fields& p, Spec& s) {
  s.process = TRY(ReadProcess(p));
  return Ok();
}

static Result<Mount> ReadMount(const Fields& m) {
  return Mount{TRY(m.StringOr("destination")), TRY(m.StringOr("type")), TRY(m.StringOr("source")),
               TRY(m.Strings("options"))};
}

static Result<std::vector<IdMapping>> ReadIdMappings(const Fields& l, std::string_view key) {
  std::vector<IdMapping> out;
  for (const auto& m : TRY(l.Objects(key)))
    out.push_back({TRY(m.NumberOr<uint32_t>("containerID", 0)), TRY(m.NumberOr<uint32_t>("hostID", 0)),
                   TRY(m.NumberOr<uint32_t>("size", 0))});
  return out;
}

static Result<Device> ReadDevice(const Fields& d) {
  Device out;
  out.path = TRY(d.StringOr("path"));
  out.type = TRY(d.StringOr("type", "c"));
  out.major = TRY(d.NumberOr<int64_t>("major", 0));
  out.minor = TRY(d.NumberOr<int64_t>("minor", 0));
  out.file_mode = TRY(d.NumberOr<uint32_t>("fileMode", 0666));
  out.uid = TRY(d.NumberOr<uint32_t>("uid", 0));
  out.gid = TRY(d.NumberOr<uint32_t>("gid", 0));
  return out;
}

static Result<Resources> ReadResources(const Fields& r) {
  Resources out;
  if (auto m = TRY(r.Object("memory"))) {
    out.memory_limit = TRY(m->Number<int64_t>("limit"));
    out.memory_reservation = TRY(m->Number<int64_t>("reservation"));
    out.memory_swap = TRY(m->Number<int64_t>("swap"));
  }
  if (auto c = TRY(r.Object("cpu"))) {
    out.cpu_shares = TRY(c->Number<uint64_t>("shares"));
    out.cpu_period = TRY(c->Number<uint64_t>("period"));
    out.cpu_quota = TRY(c->Number<int64_t>("quota"));
    out.cpuset_cpus = TRY(c->StringOr("cpus"));
    out.cpuset_mems = TRY(c->StringOr("mems"));
  }
  if (auto p = TRY(r.Object("pids"))) out.pids_limit = TRY(p->Number<int64_t>("limit"));
  return out;
}

Result<Resources> ResourcesFromJson(const boost::json::object& r, std::string doc, std::string path) {
  return ReadResources(Fields(r, std::move(doc), std::move(path)));
}

// hooks.<kind>: arrays of {path, args, env, timeout}, checked here so a mistyped hook fails
// create with its field named instead of being skipped (or run without its timeout) later.
static Status CheckHooks(const Fields& hooks) {
  for (const auto& kv : hooks.raw()) {
    for (const auto& h : TRY(hooks.Objects(kv.key()))) {
      auto path = TRY(h.String("path"));
      if (!path || path->empty()) return h.Wrong("path", "missing");
      (void)TRY(h.Strings("args"));
      (void)TRY(h.Strings("env"));
      if (auto t = TRY(h.Number<int>("timeout")); t && *t <= 0) return h.Wrong("timeout", "must be positive");
    }
  }
  return Ok();
}

static Status ReadLinux(const Fields& l, Spec& s) {
  s.cgroups_path = TRY(l.StringOr("cgroupsPath"));
  for (const auto& ns : TRY(l.Objects("namespaces")))
    s.namespaces.push_back({TRY(ns.StringOr("type")), TRY(ns.StringOr("path"))});
  s.uid_mappings = TRY(ReadIdMappings(l, "uidMappings"));
  s.gid_mappings = TRY(ReadIdMappings(l, "gidMappings"));
  s.masked_paths = TRY(l.Strings("maskedPaths"));
  s.readonly_paths = TRY(l.Strings("readonlyPaths"));
  if (auto sc = TRY(l.Object("sysctl")))
    for (const auto& kv : sc->raw()) {
      if (!kv.value().is_string()) return sc->Wrong(kv.key(), "not a string");
      s.sysctl.emplace_back(std::string(kv.key()), std::string(kv.value().get_string()));
    }
  for (const auto& d : TRY(l.Objects("devices"))) s.devices.push_back(TRY(ReadDevice(d)));
  if (auto r = TRY(l.Object("resources"))) s.resources = TRY(ReadResources(*r));
  s.rootfs_propagation = TRY(l.StringOr("rootfsPropagation"));
  if (auto sc = TRY(l.Object("seccomp"))) s.has_seccomp = true;
  return Ok();
}

Result<Spec> ParseSpec(std::string_view json_text) {
  auto v = TRY(ParseJson(json_text, "config.json"));
  if (!v.is_object()) return MakeError("config.json: top level must be an object", EINVAL);
  return SpecFromJson(std::move(v.get_object()));
}

Result<Spec> SpecFromJson(boost::json::object doc) {
  Spec s;
  s.doc = std::move(doc);
  Fields top(s.doc, "config.json");
  s.oci_version = TRY(top.StringOr("ociVersion"));
  s.hostname = TRY(top.StringOr("hostname"));
  s.domainname = TRY(top.StringOr("domainname"));
  if (auto root = TRY(top.Object("root"))) {
    s.root_path = TRY(root->StringOr("path"));
    s.root_readonly = TRY(root->BoolOr("readonly"));
  }
  if (auto p = TRY(top.Object("process"))) TRY(ReadProcessInto(*p, s));
  for (const auto& m : TRY(top.Objects("mounts"))) s.mounts.push_back(TRY(ReadMount(m)));
  if (auto l = TRY(top.Object("linux"))) TRY(ReadLinux(*l, s));
  if (auto h = TRY(top.Object("hooks"))) TRY(CheckHooks(*h));
  if (auto a = TRY(top.Object("annotations")))
    for (const auto& kv : a->raw()) {
      if (!kv.value().is_string()) return a->Wrong(kv.key(), "not a string");
      s.annotations[std::string(kv.key())] = std::string(kv.value().get_string());
    }
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
