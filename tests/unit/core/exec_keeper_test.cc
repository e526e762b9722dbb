#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "shim/core/exec_keeper.h"

using namespace std::chrono_literals;
namespace stdfs = std::filesystem;

namespace {

// A command the keeper waits for through a pipe (the test writes its wait status there) and
// signals by appending the number to a file (opened per call: the keeper keeps no other fd).
class FakeCommand : public sandshim::proc::Running {
 public:
  FakeCommand(int wait_fd, stdfs::path log) : wait_fd_(wait_fd), log_(std::move(log)) {}
  pid_t Pid() const override { return 4242; }
  int WaitFd() const override { return wait_fd_; }
  sandshim::Result<int> Reap() override {
    int ws = 0;
    if (::read(wait_fd_, &ws, sizeof ws) != sizeof ws) return sandshim::MakeError("no status", EIO);
    return ws;
  }
  sandshim::Status Signal(int sig) override {
    std::ofstream(log_, std::ios::app) << sig << "\n";
    return sandshim::Ok();
  }

 private:
  int wait_fd_;
  stdfs::path log_;
};

std::string Slurp(const stdfs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool WaitFor(const stdfs::path& p, const std::string& text) {
  for (int i = 0; i < 200; ++i) {
    if (Slurp(p).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

TEST_CASE("exec_keeper: forwards signals, exits with the command's code, SIGKILL goes on") {
  char tmpl[] = "/tmp/keeper-XXXXXX";
  REQUIRE(::mkdtemp(tmpl));
  stdfs::path dir = tmpl, log = dir / "signals";

  SUBCASE("a caught signal reaches the command; the command's exit 3 is the keeper's") {
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    auto pid = sandshim::proc::StartExecKeeper(std::make_unique<FakeCommand>(p[0], log));
    ::close(p[0]);
    REQUIRE(pid.ok());
    REQUIRE(::kill(*pid, SIGUSR1) == 0);  // at once: the caller may (CI: ctr task kill --exec-id)
    CHECK(WaitFor(log, std::to_string(SIGUSR1) + "\n"));
    int ws = 3 << 8;  // exited 3
    REQUIRE(::write(p[1], &ws, sizeof ws) == sizeof ws);
    int status = 0;
    REQUIRE(::waitpid(*pid, &status, 0) == *pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 3);  // not 128+USR1: the signal did not end the keeper
    CHECK(Slurp(log).find(std::to_string(SIGKILL) + "\n") == std::string::npos);  // ended normally
    ::close(p[1]);
  }
  SUBCASE("SIGKILL of the keeper: the guardian kills the command") {
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    auto pid = sandshim::proc::StartExecKeeper(std::make_unique<FakeCommand>(p[0], log));
    ::close(p[0]);
    REQUIRE(pid.ok());
    std::this_thread::sleep_for(100ms);
    REQUIRE(::kill(*pid, SIGKILL) == 0);
    int status = 0;
    REQUIRE(::waitpid(*pid, &status, 0) == *pid);
    CHECK(WIFSIGNALED(status));
    CHECK(WaitFor(log, std::to_string(SIGKILL) + "\n"));
    ::close(p[1]);
  }
  SUBCASE("the command's end unanswered (the sandbox gone): 137") {
    int p[2];
    REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
    auto pid = sandshim::proc::StartExecKeeper(std::make_unique<FakeCommand>(p[0], log));
    ::close(p[0]);
    REQUIRE(pid.ok());
    ::close(p[1]);  // EOF: Reap fails
    int status = 0;
    REQUIRE(::waitpid(*pid, &status, 0) == *pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + SIGKILL);
  }
  stdfs::remove_all(dir);
}
