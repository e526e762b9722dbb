#include "shim/session/store/metrics.h"

#include <ctime>
#include <map>
#include <sstream>

namespace sandshim::session {

double EpochSeconds(const std::string& t) {
  std::tm tm{};
  const char* rest = ::strptime(t.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest) return 0;
  double frac = 0;
  if (*rest == '.') {
    double scale = 0.1;
    for (++rest; *rest >= '0' && *rest <= '9'; ++rest, scale /= 10) frac += (*rest - '0') * scale;
  }
  double secs = static_cast<double>(::timegm(&tm)) + frac;
  // The zone suffix: Z, or +hh:mm / -hh:mm.
  int hh = 0, mm = 0;
  if ((*rest == '+' || *rest == '-') && std::sscanf(rest + 1, "%d:%d", &hh, &mm) == 2)
    secs -= (*rest == '+' ? 1 : -1) * (hh * 3600 + mm * 60);
  return secs;
}

static std::string Label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string PrometheusText(const std::vector<SessionSample>& samples) {
  std::ostringstream o;
  o.precision(15);
  std::map<std::pair<std::string, std::string>, int> by_state;
  for (const auto& s : samples) by_state[{s.record.status, s.record.backend}]++;
  o << "# HELP sandshim_sessions Sessions by live state and backend.\n# TYPE sandshim_sessions gauge\n";
  for (const auto& [k, n] : by_state)
    o << "sandshim_sessions{state=\"" << Label(k.first) << "\",backend=\"" << Label(k.second) << "\"} " << n << "\n";
  auto per_session = [&](const char* name, const char* type, const char* help, auto value, bool skip_negative) {
    o << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
    for (const auto& s : samples) {
      double v = value(s);
      if (skip_negative && v < 0) continue;
      o << name << "{session=\"" << Label(s.record.id) << "\",backend=\"" << Label(s.record.backend) << "\"} " << v
        << "\n";
    }
  };
  per_session("sandshim_session_execs_total", "counter", "Commands run in the session.",
              [](const SessionSample& s) { return static_cast<double>(s.record.execs); }, false);
  per_session("sandshim_session_exec_failures_total", "counter", "Commands that exited non-zero.",
              [](const SessionSample& s) { return static_cast<double>(s.record.exec_failures); }, false);
  per_session("sandshim_session_exec_timeouts_total", "counter", "Commands ended by their timeout.",
              [](const SessionSample& s) { return static_cast<double>(s.record.exec_timeouts); }, false);
  per_session("sandshim_session_exec_seconds_total", "counter", "Wall time spent in commands.",
              [](const SessionSample& s) { return s.record.exec_seconds; }, false);
  per_session("sandshim_session_workspace_bytes", "gauge", "Bytes in the session's workspace.",
              [](const SessionSample& s) { return static_cast<double>(s.workspace_bytes); }, true);
  per_session("sandshim_session_memory_bytes", "gauge", "Memory the sandbox uses.",
              [](const SessionSample& s) { return static_cast<double>(s.memory_bytes); }, true);
  per_session("sandshim_session_contexts", "gauge", "Credential contexts made in the session.",
              [](const SessionSample& s) { return static_cast<double>(s.contexts); }, true);
  per_session("sandshim_session_context_spares", "gauge", "Spare context containers ready in the session (gVisor).",
              [](const SessionSample& s) { return static_cast<double>(s.spare_contexts); }, true);
  per_session("sandshim_session_created_timestamp_seconds", "gauge", "When the session was created.",
              [](const SessionSample& s) { return EpochSeconds(s.record.created); }, false);
  per_session("sandshim_session_last_used_timestamp_seconds", "gauge", "When a command last started.",
              [](const SessionSample& s) { return EpochSeconds(s.record.last_used); }, false);
  return o.str();
}

}  // namespace sandshim::session
