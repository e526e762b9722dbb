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
  // Give the command a pipe as its fd 3 and keep what it writes there (up to
  // kChannelLimit bytes) in RunnerOutcome::channel: the persistent shell's state, reported
  // over a descriptor only that exec has. Streams of pipes only (no terminal).
  bool channel = false;
};

inline constexpr size_t kChannelLimit = 1 << 20;

struct RunnerOutcome {
  int status = 0;  // exit code, 128 + signal, or 124 after the deadline
  bool timed_out = false;
  uint64_t bytes_out = 0, bytes_err = 0;
  std::string out, err;  // with capture_limit
  std::string channel;                // what the command wrote to fd 3 (RunnerOptions::channel)
  bool channel_overflow = false;      // more than kChannelLimit: channel is incomplete
  std::chrono::milliseconds duration{0};
  // #19: nothing ran because the command policy refused it (status kPolicyDenied or
  // kPolicyAsk): the one JSON line saying why.
  std::string refusal;
};

}  // namespace sandshim::session
