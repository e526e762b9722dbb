// The runsc this runtime uses, probed at most once per process and shared by everyone who
// needs its verdict: backend selection (usable?) and the gVisor backend (which platform new
// sandboxes get, which control protocol they speak). Nothing depends on who asks first.
#pragma once

#include <optional>

#include "shim/runsc/probe.h"
#include "shim/runtime/config.h"

namespace sandshim::runtime {

class ProbedRunsc {
 public:
  explicit ProbedRunsc(const Config& c, runsc::ControlNetnsKeeper& netns = runsc::SystemControlNetns())
      : runsc_(c.runsc), cache_dir_(c.cache_dir), forced_(c.platform), netns_(netns) {}
  // The first call probes (runsc::Probe keeps its verdict on disk for the next process).
  const runsc::ProbeResult& Get() {
    if (!result_) result_ = runsc::Probe(runsc_, cache_dir_, forced_, netns_);
    return *result_;
  }

 private:
  std::string runsc_;
  std::filesystem::path cache_dir_;
  std::string forced_;
  runsc::ControlNetnsKeeper& netns_;
  std::optional<runsc::ProbeResult> result_;
};

}  // namespace sandshim::runtime
