#include "shim/core/signal_forwarder.h"

#include <iterator>

namespace sandshim::process {
namespace {

volatile sig_atomic_t g_forward_pid = 0;

void Forward(int sig) {
  if (g_forward_pid > 0) ::kill(g_forward_pid, sig);
}

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};
static_assert(std::size(kForwarded) == 7, "SignalForwarder::old_ holds one action per forwarded signal");

}  // namespace

sigset_t ForwardedSignals() {
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : kForwarded) sigaddset(&mask, s);
  return mask;
}

HeldSignals::HeldSignals() {
  sigset_t fwd = ForwardedSignals();
  ::sigprocmask(SIG_BLOCK, &fwd, &old_);
}

void HeldSignals::Release() {
  if (held_) ::sigprocmask(SIG_SETMASK, &old_, nullptr);
  held_ = false;
}

SignalForwarder::SignalForwarder(pid_t pid) {
  g_forward_pid = pid;
  struct sigaction sa {};
  sa.sa_handler = Forward;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &sa, &old_[i]);
}

SignalForwarder::~SignalForwarder() {
  for (size_t i = 0; i < std::size(kForwarded); ++i) ::sigaction(kForwarded[i], &old_[i], nullptr);
  g_forward_pid = 0;
}

}  // namespace sandshim::process
