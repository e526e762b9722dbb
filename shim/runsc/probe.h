// Can runsc run here, on which platform, and what can it do? The answer is measured, never
// assumed and never read off a version string: on this host --platform=kvm hangs at boot
// although /dev/kvm exists, while ptrace works (2022) and systrap (2024). The probe boots a
// tiny sandbox (host / read-only, /bin/true) on each candidate with a timeout, fastest
// platform first; on the one that boots, asks a sandbox's control server for an exec
// (control_probe.h); lists the global flags the binary takes. The verdict is cached keyed by
// the runsc binary's identity (path, size, mtime), so a runsc upgrade triggers a new probe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
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
  std::string control;             // the control server its sandboxes have (control.h); empty: none
  std::vector<std::string> flags;  // names of the global flags it takes (`runsc flags`)
  int64_t sandbox_uid = -1;        // host uid of its sandbox process (control_probe.h); -1: not seen
  bool HasFlag(std::string_view name) const;
};

// The flag names of `runsc flags` output (pure).
std::vector<std::string> ParseFlagNames(const std::string& text);

// Candidate order for the platforms runsc lists (pure).
std::vector<std::string> PlatformCandidates(const std::string& platforms_help, bool have_kvm);
// The cache key of a binary: "<path>:<size>:<mtime>" (empty if missing).
std::string BinaryIdentity(const std::string& path);

// Probes (or reads the cached verdict). forced_platform: skip probing others. netns makes
// the probe sandbox's private control namespace.
ProbeResult Probe(const std::string& runsc, const std::filesystem::path& cache_dir,
                  const std::string& forced_platform = "", ControlNetnsKeeper& netns = SystemControlNetns());

}  // namespace sandshim::runsc
