// What a session exec is run with and what comes of it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace sandshim::session {

struct RunnerOptions {
  std::chrono::milliseconds timeout{0};  // 0: none
  // After the child exits, how long output still in flight (from its background
  // processes) is copied before we stop waiting for the pipes to close.
  std::chrono::milliseconds drain{200};
  // Keep the output (up to this many bytes per stream) instead of copying it to ours:
  // for `--json`, where the caller prints one document.
  size_t capture_limit = 0;
};

struct RunnerOutcome {
  int status = 0;  // exit code, 128 + signal, or 124 after the deadline
  bool timed_out = false;
  uint64_t bytes_out = 0, bytes_err = 0;
  std::string out, err;  // with capture_limit
  std::chrono::milliseconds duration{0};
  // #19: nothing ran because the command policy refused it (status kPolicyDenied or
  // kPolicyAsk): the one JSON line saying why.
  std::string refusal;
};

}  // namespace sandshim::session
