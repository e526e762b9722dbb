#include "shim/core/signals.h"

#include <signal.h>

#include <cctype>
#include <charconv>
#include <string>

namespace sandshim {
namespace {

struct Named {
  const char* name;
  int number;
};

constexpr Named kSignals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},     {"QUIT", SIGQUIT}, {"ILL", SIGILL},     {"TRAP", SIGTRAP},
    {"ABRT", SIGABRT}, {"IOT", SIGIOT},     {"BUS", SIGBUS},   {"FPE", SIGFPE},     {"KILL", SIGKILL},
    {"USR1", SIGUSR1}, {"SEGV", SIGSEGV},   {"USR2", SIGUSR2}, {"PIPE", SIGPIPE},   {"ALRM", SIGALRM},
    {"TERM", SIGTERM}, {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN},   {"TTOU", SIGTTOU}, {"URG", SIGURG},     {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"IO", SIGIO},
    {"POLL", SIGPOLL}, {"PWR", SIGPWR},     {"SYS", SIGSYS}};

}  // namespace

Result<int> ParseSignal(std::string_view s) {
  auto bad = [&] { return MakeError("invalid signal \"" + std::string(s) + "\"", EINVAL); };
  if (s.empty()) return bad();
  if (std::isdigit(static_cast<unsigned char>(s[0]))) {
    int n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || p != s.data() + s.size() || n <= 0 || n > SIGRTMAX) return bad();
    return n;
  }
  std::string up;
  for (char c : s) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (up.rfind("SIG", 0) == 0) up = up.substr(3);
  for (const auto& n : kSignals)
    if (up == n.name) return n.number;
  return bad();
}

}  // namespace sandshim
