#include "shim/gvisor/gvisor_hooks.h"

#include "bundle/spec.h"
#include "shim/linux/hooks.h"
#include "shim/runtime/oci_state.h"

namespace sandshim::runtime {
namespace json = boost::json;

void StripRuntimeHooks(json::object& doc) {
  auto* hooks = doc.if_contains("hooks") ? doc["hooks"].if_object() : nullptr;
  if (!hooks) return;
  for (const char* kind : {"prestart", "createRuntime", "poststart", "poststop"}) hooks->erase(kind);
}

std::string HookStateOf(const ContainerRecord& rec, std::string_view status, pid_t pid) {
  auto o = OciState(rec);
  o["status"] = status;
  o["pid"] = pid;
  return json::serialize(o);
}

Status RunBundleHooks(const std::filesystem::path& bundle, std::string_view kind, const std::string& state) {
  // As the native backend: a bundle whose config is gone since create has no hooks to run.
  auto spec = bundle::LoadSpec(bundle);
  if (!spec) return Ok();
  return native::RunLifecycleHooks(*spec, kind, state);
}

}  // namespace sandshim::runtime
