#include "shim/runtime/record.h"

#include "bundle/spec.h"

namespace sandshim::runtime {

namespace json = boost::json;
using bundle::GetString;

static json::object PidJson(const proc::ProcessId& p) { return {{"pid", p.pid}, {"start", p.start}}; }

static proc::ProcessId PidFromJson(const json::object& o, std::string_view key) {
  proc::ProcessId p;
  if (const auto* v = bundle::GetObject(o, key)) {
    if (auto it = v->find("pid"); it != v->end() && it->value().is_int64()) p.pid = static_cast<pid_t>(it->value().get_int64());
    if (auto it = v->find("start"); it != v->end()) {
      if (it->value().is_uint64()) p.start = it->value().get_uint64();
      else if (it->value().is_int64()) p.start = static_cast<uint64_t>(it->value().get_int64());
    }
  }
  return p;
}

json::object ToJson(const ContainerRecord& r) {
  json::object ann;
  for (const auto& [k, v] : r.annotations) ann[k] = v;
  return {{"id", r.id},
          {"backend", r.backend},
          {"bundle", r.bundle.string()},
          {"rootfs", r.rootfs.string()},
          {"status", StatusName(r.status)},
          {"init", PidJson(r.init)},
          {"owner", PidJson(r.owner)},
          {"created", r.created},
          {"annotations", std::move(ann)},
          {"backend_data", r.backend_data},
          {"durable", r.durable}};
}

Result<ContainerRecord> RecordFromJson(std::string_view text) {
  auto v = TRY(bundle::ParseJson(text, "state.json"));
  if (!v.is_object()) return MakeError("state.json: not an object", EINVAL);
  const auto& o = v.get_object();
  ContainerRecord r;
  r.id = GetString(o, "id");
  r.backend = GetString(o, "backend");
  r.bundle = GetString(o, "bundle");
  r.rootfs = GetString(o, "rootfs");
  auto st = ParseStatus(GetString(o, "status"));
  if (!st) return MakeError("state.json: bad status", EINVAL);
  r.status = *st;
  r.init = PidFromJson(o, "init");
  r.owner = PidFromJson(o, "owner");
  r.created = GetString(o, "created");
  if (const auto* a = bundle::GetObject(o, "annotations"))
    for (const auto& kv : *a)
      if (kv.value().is_string()) r.annotations[std::string(kv.key())] = std::string(kv.value().get_string());
  if (const auto* b = bundle::GetObject(o, "backend_data")) r.backend_data = *b;
  if (auto it = o.find("durable"); it != o.end() && it->value().is_bool()) r.durable = it->value().get_bool();
  return r;
}

ContainerStatus LiveStatus(const ContainerRecord& r) {
  if (r.status == ContainerStatus::kStopped) return r.status;
  if (r.status == ContainerStatus::kCreating) {
    return proc::IsAlive(r.owner) ? r.status : ContainerStatus::kStopped;
  }
  // A foreground `run` has no init pid of its own: it lives as long as its owner does.
  const proc::ProcessId& who = r.init.pid > 0 ? r.init : r.owner;
  return proc::IsAlive(who) ? r.status : ContainerStatus::kStopped;
}

}  // namespace sandshim::runtime
