// Can this runsc checkpoint a running sandbox and restore it into one that keeps running?
// Found by doing it, never from a version string: Debian 13's runsc (2024) does, Debian 12's
// (2022) restores into a container that stops at once. A sleeping probe sandbox (the host's /
// read-only, the platform the main probe found, the writable layer sessions use) is created,
// started, checkpointed, deleted, restored detached, and must still be running a second later.
// Asked only by what needs it (session pause, doctor); cached like the main probe, per binary
// identity and platform, in <cache_dir>/runsc-checkpoint-<hash>.json.
#pragma once

#include <filesystem>
#include <string>

#include "shim/runsc/control_netns.h"
#include "shim/runsc/probe.h"

namespace sandshim::runsc {

struct CheckpointVerdict {
  bool works = false;
  std::string why;  // when it does not: the step that failed and runsc's words
};

// p: the main probe's verdict (binary, platform, flags); it must be usable.
CheckpointVerdict ProbeCheckpoint(const ProbeResult& p, const std::filesystem::path& cache_dir,
                                  ControlNetnsKeeper& netns = SystemControlNetns());

}  // namespace sandshim::runsc
