#include "shim/runtime/record.h"

#include "bundle/described.h"
#include "bundle/json_field.h"
#include "bundle/spec.h"

namespace sandshim::runtime {

namespace json = boost::json;

void tag_invoke(const json::value_from_tag&, json::value& v, ContainerStatus s) { v = StatusName(s); }

// A status is always recorded: an absent or unknown one is an error, not "creating".
Status ReadMember(const bundle::Fields& f, const char* key, ContainerStatus& dst) {
  auto name = TRY(f.String(key));
  if (!name) return f.Wrong(key, "missing");
  auto st = ParseStatus(*name);
  if (!st) return f.Wrong(key, "unknown status \"" + *name + "\"");
  dst = *st;
  return Ok();
}

json::object ToJson(const ContainerRecord& r) {
  auto o = bundle::WriteDescribed(r);
  o["backend_data"] = BackendDataToJson(r.backend_data);
  return o;
}

// Strict: a field of the wrong type is an error naming it ("state.json: init.pid: not a
// number"), never a default that would point a kill at pid 0.
Result<ContainerRecord> RecordFromJson(std::string_view text) {
  auto v = TRY(bundle::ParseJson(text, "state.json"));
  if (!v.is_object()) return MakeError("state.json: not an object", EINVAL);
  bundle::Fields o(v.get_object(), "state.json");
  auto r = TRY(bundle::ReadDescribed<ContainerRecord>(o));
  if (auto b = TRY(o.Object("backend_data"))) r.backend_data = TRY(BackendDataFromJson(r.backend, b->raw(), "state.json"));
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
