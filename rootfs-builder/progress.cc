#include "rootfs-builder/progress.h"

#include <unistd.h>

#include <cstdio>

namespace sandshim::rootfs {

Progress Progress::Auto(bool json) { return Progress(!json && ::isatty(STDERR_FILENO)); }

void Progress::Draw(const std::string& line) {
  // \r plus erase-to-end-of-line: the terminal shows one line that keeps changing.
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  open_ = true;
}

void Progress::Step(std::string_view what) {
  if (!enabled_) return;
  step_ = what;
  if (open_) std::fputc('\n', stderr);
  open_ = false;
  Draw(step_);
}

void Progress::Bytes(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(100) && done != total) return;
  last_ = now;
  char buf[96];
  if (total > 0)
    std::snprintf(buf, sizeof buf, "  %.1f / %.1f MB (%d%%)", done / 1e6, total / 1e6,
                  static_cast<int>(done * 100 / total));
  else
    std::snprintf(buf, sizeof buf, "  %.1f MB", done / 1e6);
  Draw(step_ + buf);
}

void Progress::Done() {
  if (!enabled_ || !open_) return;
  std::fputc('\n', stderr);
  open_ = false;
}

}  // namespace sandshim::rootfs
