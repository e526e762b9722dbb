#include "shim/runtime/record.h"

#include "bundle/json_field.h"
#include "bundle/spec.h"

namespace sandshim::runtime {

namespace json = boost::json;

static json::object PidJson(const proc::ProcessId& p) { return {{"pid", p.pid}, {"start", p.start}}; }

static Result<proc::ProcessId> PidFromJson(const bundle::Fields& o, std::string_view key) {
  proc::ProcessId p;
  if (auto v = TRY(o.Object(key))) {
    p.pid = TRY(v->NumberOr<pid_t>("pid", 0));
    p.start = TRY(v->NumberOr<uint64_t>("start", 0));
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
          {"backend_data", BackendDataToJson(r.backend_data)},
          {"durable", r.durable}};
}

// Strict: a field of the wrong type is an error naming it ("state.json: init.pid: not a
// number"), never a default that would point a kill at pid 0.
Result<ContainerRecord> RecordFromJson(std::string_view text) {
  auto v = TRY(bundle::ParseJson(text, "state.json"));
  if (!v.is_object()) return MakeError("state.json: not an object", EINVAL);
  bundle::Fields o(v.get_object(), "state.json");
  ContainerRecord r;
  r.id = TRY(o.StringOr("id"));
  r.backend = TRY(o.StringOr("backend"));
  r.bundle = TRY(o.StringOr("bundle"));
  r.rootfs = TRY(o.StringOr("rootfs"));
  auto st = ParseStatus(TRY(o.StringOr("status")));
  if (!st) return MakeError("state.json: bad status", EINVAL);
  r.status = *st;
  r.init = TRY(PidFromJson(o, "init"));
  r.owner = TRY(PidFromJson(o, "owner"));
  r.created = TRY(o.StringOr("created"));
  if (auto a = TRY(o.Object("annotations")))
    for (const auto& kv : a->raw()) {
      if (!kv.value().is_string()) return a->Wrong(kv.key(), "not a string");
      r.annotations[std::string(kv.key())] = std::string(kv.value().get_string());
    }
  if (auto b = TRY(o.Object("backend_data"))) r.backend_data = TRY(BackendDataFromJson(r.backend, b->raw(), "state.json"));
  r.durable = TRY(o.BoolOr("durable", true));
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
