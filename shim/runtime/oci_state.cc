#include "shim/runtime/oci_state.h"

#include "bundle/spec.h"

namespace sandshim::runtime {

boost::json::object OciState(const ContainerRecord& r) {
  boost::json::object ann;
  for (const auto& [k, v] : r.annotations) ann[k] = v;
  // Which isolation the container really got is part of its state, not a log detail.
  // The backend it got (auto may have fallen back), over whatever the spec asked for.
  if (!r.backend.empty()) ann["dev.sandshim.backend"] = r.backend;
  const auto& g = GvisorOf(r.backend_data);
  for (auto [key, v] : {std::pair{"platform", &g.platform}, std::pair{"network", &g.network}})
    if (!v->empty()) ann[std::string("dev.sandshim.runsc.") + key] = *v;
  bool stopped = r.status == ContainerStatus::kStopped;
  return {{"ociVersion", kOciVersion},
          {"id", r.id},
          {"pid", stopped ? 0 : r.init.pid},
          {"status", StatusName(r.status)},
          {"bundle", r.bundle.string()},
          {"rootfs", r.rootfs.string()},
          {"created", r.created},
          {"owner", ""},
          {"annotations", std::move(ann)}};
}

}  // namespace sandshim::runtime
