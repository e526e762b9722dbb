#include "shim/core/log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>
#include <time.h>

#include <boost/json.hpp>
#include <cstdio>
#include <memory>
#include <mutex>

namespace sandshim::log {
namespace {

std::string_view LevelName(spdlog::level::level_enum l) {
  switch (l) {
    case spdlog::level::trace:
    case spdlog::level::debug: return "debug";
    case spdlog::level::info: return "info";
    case spdlog::level::warn: return "warning";
    default: return "error";
  }
}

// Writes runc-format lines to the --log file, opened in append mode: the shim reuses one
// file for every call on a container.
class RuncFileSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  RuncFileSink(FILE* f, Format fmt) : f_(f), fmt_(fmt) {}
  ~RuncFileSink() override { std::fclose(f_); }

 protected:
  void sink_it_(const spdlog::details::log_msg& m) override {
    std::string line = FormatLine(fmt_, LevelName(m.level),
                                  std::string_view(m.payload.data(), m.payload.size()), NowRfc3339());
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), f_);
    std::fflush(f_);
  }
  void flush_() override { std::fflush(f_); }

 private:
  FILE* f_;
  Format fmt_;
};

// One plain line per message on stderr: "sandshim: <msg>".
class StderrSink : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& m) override {
    std::string line = "sandshim: ";
    if (m.level == spdlog::level::warn) line += "warning: ";
    line.append(m.payload.data(), m.payload.size());
    line += '\n';
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

std::shared_ptr<spdlog::logger>& Logger() {
  static std::shared_ptr<spdlog::logger> logger;
  return logger;
}

void Emit(spdlog::level::level_enum l, std::string_view msg) {
  if (!Logger()) Init(Options{});
  Logger()->log(l, "{}", msg);
}

}  // namespace

bool ParseFormat(std::string_view s, Format* out) {
  if (s == "text") *out = Format::kText;
  else if (s == "json") *out = Format::kJson;
  else return false;
  return true;
}

std::string NowRfc3339() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return Rfc3339(ts);
}

std::string Rfc3339(const struct timespec& ts) {
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char buf[64];
  size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  snprintf(buf + n, sizeof buf - n, ".%09ldZ", ts.tv_nsec);
  return buf;
}

std::string FormatLine(Format f, std::string_view level, std::string_view msg, std::string_view time) {
  if (f == Format::kJson) {
    boost::json::object o;
    o["level"] = level;
    o["msg"] = msg;
    o["time"] = time;
    return boost::json::serialize(o);
  }
  // logrus text format, as runc writes it: time="…" level=error msg="…"
  std::string quoted = boost::json::serialize(boost::json::string(msg));
  return "time=\"" + std::string(time) + "\" level=" + std::string(level) + " msg=" + quoted;
}

void Init(const Options& o) {
  std::vector<spdlog::sink_ptr> sinks;
  if (!o.quiet_stderr) {
    // Under containerd our stderr during create is the container's own stderr: with a
    // --log file, only errors go to stderr; everything else goes to the file.
    auto err = std::make_shared<StderrSink>();
    if (!o.file.empty()) err->set_level(spdlog::level::err);
    else err->set_level(o.debug ? spdlog::level::debug : spdlog::level::warn);
    sinks.push_back(err);
  }
  if (!o.file.empty()) {
    if (FILE* f = std::fopen(o.file.c_str(), "ae")) {
      auto file = std::make_shared<RuncFileSink>(f, o.format);
      file->set_level(o.debug ? spdlog::level::debug : spdlog::level::info);
      sinks.push_back(file);
    }
  }
  auto logger = std::make_shared<spdlog::logger>("sandshim", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::debug);
  Logger() = logger;
}

void Debug(std::string_view msg) { Emit(spdlog::level::debug, msg); }
void Info(std::string_view msg) { Emit(spdlog::level::info, msg); }
void Warn(std::string_view msg) { Emit(spdlog::level::warn, msg); }
void Error(std::string_view msg) { Emit(spdlog::level::err, msg); }

}  // namespace sandshim::log
