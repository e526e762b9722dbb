#include "shim/runtime/backend_select.h"

#include "shim/core/self_clone.h"

namespace sandshim::runtime {
namespace {

bool Valid(const std::string& b) { return b == "auto" || b == "gvisor" || b == "native"; }

Result<BackendChoice> Demand(const std::string& b, const std::string& who, const SelectInput& in) {
  if (b == "gvisor") {
    if (!in.gvisor_usable)
      return MakeError("backend gvisor requested by " + who + " but gVisor cannot run here: " + in.gvisor_problem +
                           " (refusing to fall back)",
                       ENOTSUP);
    return BackendChoice{"gvisor", "requested by " + who, false};
  }
  if (!in.native_available) return MakeError("backend native requested by " + who + " is not available in this build", ENOTSUP);
  return BackendChoice{"native", "requested by " + who, false};
}

Result<BackendChoice> Select(const SelectInput& in) {
  const std::pair<const std::string&, std::string> sources[] = {
      {in.flag, "--backend"}, {in.config, "the config file"}, {in.annotation, std::string("annotation ") + kBackendAnnotation}};
  for (const auto& [value, who] : sources) {
    if (value.empty()) continue;
    if (!Valid(value)) return MakeError("invalid backend \"" + value + "\" from " + who + ": want auto, gvisor or native", EINVAL);
    if (value == "auto") continue;
    // An annotation asking for less isolation than auto gives is ignored unless allowed.
    bool from_annotation = &value == &in.annotation;
    if (from_annotation && value == "native" && !in.annotation_may_downgrade) {
      if (!in.gvisor_usable) break;  // auto gives native anyway, and says why
      return BackendChoice{"gvisor", "auto: gVisor works here (" + who +
                                         "=native ignored: the config does not set allow_annotation_downgrade)",
                           false};
    }
    return Demand(value, who, in);
  }
  if (in.gvisor_usable) return BackendChoice{"gvisor", "auto: gVisor works here", false};
  if (!in.gvisor_forced_platform.empty())
    return MakeError("gVisor cannot run here on the platform \"" + in.gvisor_forced_platform +
                         "\" the config forces (" + in.gvisor_problem +
                         "); refusing to fall back to the native runtime: remove \"platform\" from the config to let "
                         "sandshim probe one",
                     ENOTSUP);
  if (in.native_available)
    return BackendChoice{"native", "auto: gVisor cannot run here (" + in.gvisor_problem + "); using the native namespace runtime", true};
  return MakeError("no usable backend: gVisor cannot run here (" + in.gvisor_problem +
                       ") and the native runtime is not available in this build",
                   ENOTSUP);
}

}  // namespace

Result<BackendChoice> SelectBackend(const SelectInput& in) {
  auto choice = TRY(Select(in));
  choice.traits = TraitsOf(choice.backend);
  return choice;
}

BackendTraits TraitsOf(std::string_view backend) {
  BackendTraits t;
  if (backend == "native") {
    t.runs_sealed = true;
    t.writable_layer = "overlayfs";
    t.idmapped_sessions = true;
    t.state_dies_with_kernel = true;
  } else if (backend == "gvisor") {
    t.memory_limited_inside = true;
    t.writable_layer = "gvisor-overlay";
    t.contexts_in_sandbox = true;
    t.late_binds_need_shared_parent = true;
  }
  return t;
}

void EnsureSealedFor(const BackendTraits& t) {
  if (t.runs_sealed) EnsureSealedSelf();
}

}  // namespace sandshim::runtime
