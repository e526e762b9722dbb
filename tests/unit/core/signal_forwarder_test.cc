#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>

#include "shim/core/signal_forwarder.h"

namespace {

// In a child of ours (the test runner's mask and handlers stay as they are): TERM to itself
// before the forwarder exists, then the forwarder to `target`, then release. Returns the
// child's wait status.
int TermBeforeForwarder(bool hold, pid_t target) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGTERM, SIG_DFL);  // a fresh process's (not the test runner's crash handler)
    std::optional<sandshim::process::HeldSignals> held;
    if (hold) held.emplace();
    ::kill(::getpid(), SIGTERM);  // what a caller that knows our pid may do at once
    sandshim::process::SignalForwarder forward(target);
    if (held) held->Release();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

}  // namespace

TEST_CASE("signal forwarder: a signal held from before the forwarder is passed on, not our end") {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t target = ::fork();
  if (target == 0) {
    ::signal(SIGTERM, SIG_DFL);
    (void)!::write(ready[1], "r", 1);
    ::pause();
    ::_exit(0);
  }
  char b;
  REQUIRE(::read(ready[0], &b, 1) == 1);
  ::close(ready[0]);
  ::close(ready[1]);
  // Control: not held, TERM ends the process by its default action, the target never hears.
  int unheld = TermBeforeForwarder(false, target);
  CHECK(WIFSIGNALED(unheld));
  CHECK(WTERMSIG(unheld) == SIGTERM);
  // Held: the forwarder gets it on release and sends it on; the process goes on to exit 0.
  int held = TermBeforeForwarder(true, target);
  CHECK(WIFEXITED(held));
  CHECK(WEXITSTATUS(held) == 0);
  int status = 0;
  REQUIRE(::waitpid(target, &status, 0) == target);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
}

TEST_CASE("signal forwarder: before() is the mask a child started meanwhile sets") {
  sigset_t mask;
  sandshim::process::HeldSignals held;
  ::sigprocmask(SIG_SETMASK, nullptr, &mask);
  CHECK(sigismember(&mask, SIGTERM));
  CHECK_FALSE(sigismember(&held.before(), SIGTERM));
  held.Release();
  ::sigprocmask(SIG_SETMASK, nullptr, &mask);
  CHECK_FALSE(sigismember(&mask, SIGTERM));
}
