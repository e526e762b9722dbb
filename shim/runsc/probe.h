// Can runsc run here, and on which platform? The answer is measured, never assumed: on this
// host --platform=kvm hangs at boot although /dev/kvm exists, while ptrace works. The probe
// boots a tiny sandbox (host / read-only, /bin/true) on each candidate with a timeout, fastest
// platform first, and caches the verdict keyed by the runsc binary's identity (path, size,
// mtime), so a runsc upgrade triggers a new probe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/result.h"
#include "shim/runsc/control_netns.h"

namespace sandshim::runsc {

struct ProbeResult {
  bool usable = false;
  std::string platform;  // first platform that booted
  std::string version;   // `runsc --version` first line
  std::string binary;    // resolved path
  std::string error;     // why runsc is not usable
  std::vector<std::string> notes;  // e.g. "kvm: timed out after 5s"
};

// Candidate order for the platforms runsc lists (pure).
std::vector<std::string> PlatformCandidates(const std::string& platforms_help, bool have_kvm);
// The cache key of a binary: "<path>:<size>:<mtime>" (empty if missing).
std::string BinaryIdentity(const std::string& path);

// Probes (or reads the cached verdict). forced_platform: skip probing others. netns makes
// the probe sandbox's private control namespace.
ProbeResult Probe(const std::string& runsc, const std::filesystem::path& cache_dir,
                  const std::string& forced_platform = "", ControlNetnsKeeper& netns = SystemControlNetns());

}  // namespace sandshim::runsc
