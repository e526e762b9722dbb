#include "shim/session/record.h"

#include "bundle/spec.h"

namespace sandshim::session {
namespace json = boost::json;

json::object RecordToJson(const SessionRecord& r) {
  return {{"id", r.id},
          {"name", r.name},
          {"container_id", r.container_id},
          {"backend", r.backend},
          {"workspace", r.workspace},
          {"rootfs", r.rootfs},
          {"audit", r.audit},
          {"created", r.created},
          {"last_used", r.last_used},
          {"state", r.state},
          {"layer", r.layer},
          {"profile", r.profile},
          {"network", r.network},
          {"relay_args", json::value_from(r.relay_args)},
          {"execs", r.execs},
          {"exec_failures", r.exec_failures},
          {"exec_timeouts", r.exec_timeouts},
          {"exec_seconds", r.exec_seconds},
          {"id_base", r.id_base}};
}

static uint64_t U64(const json::object& o, std::string_view k) {
  const auto* v = o.if_contains(k);
  if (v && v->is_uint64()) return v->as_uint64();
  if (v && v->is_int64() && v->as_int64() >= 0) return static_cast<uint64_t>(v->as_int64());
  return 0;
}

Result<SessionRecord> RecordFromJson(const json::value& v) {
  if (!v.is_object()) return MakeError("session record is not a JSON object", EINVAL);
  const auto& o = v.as_object();
  using bundle::GetString;
  SessionRecord r;
  r.id = GetString(o, "id");
  if (r.id.empty()) return MakeError("session record has no id", EINVAL);
  r.name = GetString(o, "name");
  r.container_id = GetString(o, "container_id");
  r.backend = GetString(o, "backend");
  r.workspace = GetString(o, "workspace");
  r.rootfs = GetString(o, "rootfs");
  r.audit = GetString(o, "audit");
  r.created = GetString(o, "created");
  r.last_used = GetString(o, "last_used");
  r.state = GetString(o, "state");
  if (r.state.empty()) r.state = "running";
  r.layer = GetString(o, "layer");
  if (const auto* p = o.if_contains("profile"); p && p->is_object()) r.profile = p->as_object();
  r.network = GetString(o, "network");
  if (r.network.empty()) r.network = "none";
  if (const auto* a = o.if_contains("relay_args"); a && a->is_array())
    for (const auto& x : a->as_array())
      if (x.is_string()) r.relay_args.emplace_back(x.as_string());
  r.id_base = U64(o, "id_base");
  r.execs = U64(o, "execs");
  r.exec_failures = U64(o, "exec_failures");
  r.exec_timeouts = U64(o, "exec_timeouts");
  if (const auto* s = o.if_contains("exec_seconds"); s && s->is_number()) r.exec_seconds = s->to_number<double>();
  return r;
}

}  // namespace sandshim::session
