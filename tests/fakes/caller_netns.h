// CallerNetns: a runsc::ControlNetnsKeeper for unit tests over the fake runsc, which binds no
// control socket. It makes no namespace: every runsc verb and the probe run in the test's own
// namespace (the empty path NetnsScope enters nothing for), so the gVisor backend and the
// session layer above it run without CAP_SYS_ADMIN. What the real namespace guards (the
// abstract socket of a real sandbox) is the integration suites' (real runsc, as root).
#pragma once

#include "shim/runsc/control_netns.h"

namespace sandshim::testing {

class CallerNetns final : public runsc::ControlNetnsKeeper {
 public:
  std::filesystem::path SharedFor(const std::filesystem::path&) const override { return {}; }
  Status Hold(const std::filesystem::path&, const std::string&, const std::string&) override { return Ok(); }
  Status Release(const std::filesystem::path&, const std::string&) override { return Ok(); }
  Result<std::filesystem::path> MakePrivate(const std::filesystem::path&) override { return std::filesystem::path(); }
  Status RemovePrivate(const std::filesystem::path&) override { return Ok(); }
};

}  // namespace sandshim::testing
