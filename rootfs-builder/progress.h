// Progress for long builds (debootstrap, big layers): one self-overwriting line on stderr,
// only when stderr is a terminal and the caller did not ask for --json, so scripts and
// JSON consumers see nothing extra.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace sandshim::rootfs {

class Progress {
 public:
  // enabled: whether to draw at all; Auto() decides from isatty(2) and the --json flag.
  explicit Progress(bool enabled = false) : enabled_(enabled) {}
  static Progress Auto(bool json);
  bool enabled() const { return enabled_; }
  // A new phase: "layer 2/5 sha256:abcd…".
  void Step(std::string_view what);
  // Bytes done of total (total 0 = unknown); redrawn at most 10 times a second.
  void Bytes(uint64_t done, uint64_t total);
  // Ends the current line.
  void Done();

 private:
  void Draw(const std::string& line);
  bool enabled_;
  std::string step_;
  bool open_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace sandshim::rootfs
