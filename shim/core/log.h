// Logging in runc's contract. With --log FILE, every message goes to FILE as runc writes it:
// --log-format json gives {"level","msg","time"} lines (containerd reads the last "error" one
// and shows its msg to the docker user), text gives logrus-style key=value lines. Warnings and
// errors also go to stderr as one plain line (only errors when a --log file is given, since
// stderr may be the container's). spdlog does the plumbing.
#pragma once

#include <string>
#include <string_view>

namespace sandshim::log {

enum class Format { kText, kJson };

struct Options {
  std::string file;  // empty: no log file
  Format format = Format::kText;
  bool debug = false;
  bool quiet_stderr = false;  // tests and `state` callers may not want stderr noise
};

// Parses "text" / "json"; false on anything else.
bool ParseFormat(std::string_view s, Format* out);
void Init(const Options& o);
void Debug(std::string_view msg);
void Info(std::string_view msg);
void Warn(std::string_view msg);
void Error(std::string_view msg);

// Formats one log line (pure; unit-tested). level is "debug", "info", "warning" or "error".
std::string FormatLine(Format f, std::string_view level, std::string_view msg, std::string_view time);
// Current UTC time in RFC 3339 with nanoseconds (Go's time.Time parses it).
std::string NowRfc3339();
// ts (CLOCK_REALTIME) in the same form: UTC, nanoseconds, fixed width (so such times sort as text).
std::string Rfc3339(const struct timespec& ts);

}  // namespace sandshim::log
