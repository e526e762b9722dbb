#include "shim/cli/backends.h"

#include "shim/gvisor/gvisor_backend.h"
#include "shim/native/native_backend.h"

namespace sandshim::cli {

runtime::BackendFactory Backends(runsc::ControlNetnsKeeper& netns) {
  return [&netns](const runtime::Options& o) {
    std::vector<std::unique_ptr<runtime::Backend>> out;
    out.push_back(std::make_unique<runtime::GvisorBackend>(o.root, o.config, o.runsc_flags, o.debug, netns));
    out.push_back(std::make_unique<runtime::NativeBackend>(o.root));
    return out;
  };
}

}  // namespace sandshim::cli
