#include "shim/core/process.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sstream>
#include <thread>

#include "shim/core/process_run.h"

using namespace sandshim;
using namespace std::chrono_literals;

namespace {

// Runs spec with its stdout in a memory file; returns what it wrote and how it ended.
std::pair<std::string, process::ExitStatus> Output(process::ProcessSpec spec) {
  UniqueFd out(::memfd_create("test-out", MFD_CLOEXEC));
  spec.Dup(out.get(), 1);
  auto child = process::Spawn(spec);
  REQUIRE(child.ok());
  auto st = child->Wait();
  REQUIRE(st.ok());
  REQUIRE(st->has_value());
  std::string s(4096, '\0');
  auto n = ::pread(out.get(), s.data(), s.size(), 0);
  s.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return {s, **st};
}

// Fields of /proc/<pid>/stat after the command name: 0 = state, 1 = ppid, 2 = pgrp, 3 = session.
long StatField(const std::string& stat, int index) {
  std::istringstream in(stat.substr(stat.rfind(')') + 2));
  std::string f;
  for (int i = 0; i <= index; ++i) in >> f;
  return std::stol(f);
}

}  // namespace

TEST_CASE("process: exit codes, signals, captured output") {
  auto ok = process::Run({.argv = {"/bin/sh", "-c", "echo out; echo err >&2; exit 7"}});
  REQUIRE(ok.ok());
  CHECK(ok->status.code == 7);
  CHECK(ok->out == "out\n");
  CHECK(ok->err == "err\n");
  CHECK(ok->Describe() == "exit status 7: err");
  auto sig = process::Run({.argv = {"/bin/sh", "-c", "kill -9 $$"}});
  REQUIRE(sig.ok());
  CHECK(sig->status.signal == 9);
  CHECK(sig->Status() == 137);
  auto missing = process::Run({.argv = {"/nonexistent/binary"}});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().err_no == ENOENT);
  CHECK(process::Run({.argv = {"true"}})->Success());  // a bare name is looked up in PATH
}

TEST_CASE("process: programs on the host, by PATH then Debian's directories") {
  CHECK(process::FindOnHost("sh") != "");
  CHECK(process::FindOnHost("definitely-not-a-binary-xyz") == "");
  CHECK(process::Resolve("definitely-not-a-binary-xyz") == "definitely-not-a-binary-xyz");
  CHECK(process::FindOnHost("/bin/sh") == "/bin/sh");
}

TEST_CASE("process: a timeout kills the child, without waiting out its time") {
  auto t0 = process::Clock::now();
  auto slow = process::Run({.argv = {"sleep", "5"}, .timeout = 100ms});
  REQUIRE(slow.ok());
  CHECK(slow->timed_out);
  CHECK(slow->status.signal == SIGKILL);
  CHECK(process::Clock::now() - t0 < 2s);
}

TEST_CASE("process: Wait returns at the deadline while the child runs, Signal ends it") {
  auto child = process::Spawn({.argv = {"sleep", "5"}});
  REQUIRE(child.ok());
  auto t0 = process::Clock::now();
  auto early = child->Wait(t0 + 50ms);
  REQUIRE(early.ok());
  CHECK_FALSE(early->has_value());
  CHECK(process::Clock::now() - t0 >= 50ms);
  REQUIRE(child->Signal(SIGTERM).ok());
  auto done = child->Wait(process::Clock::now() + 5s);
  REQUIRE(done.ok());
  REQUIRE(done->has_value());
  CHECK((*done)->signal == SIGTERM);
}

TEST_CASE("process: only stdio and the asked-for fds reach the child") {
  int leaked = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC: fork+exec would hand it on
  REQUIRE(leaked >= 3);
  process::ProcessSpec spec{.argv = {"/bin/sh", "-c", "ls /proc/$$/fd"}};
  spec.Give(UniqueFd(::open("/dev/null", O_RDONLY | O_CLOEXEC)), 7);
  auto [out, st] = Output(std::move(spec));
  ::close(leaked);
  CHECK(st.Success());
  // The shell's fds, listed by a child of it (a glob in the shell would list its own dir fd).
  CHECK(out == "0\n1\n2\n7\n");
}

TEST_CASE("process: the environment is exactly the one given") {
  auto r = process::Run({.argv = {"/usr/bin/env"}, .env = std::vector<std::string>{"A=1", "B=two words"}});
  REQUIRE(r.ok());
  CHECK(r->out == "A=1\nB=two words\n");
}

TEST_CASE("process: stdin bytes, cwd, signal mask") {
  auto cat = process::Run({.argv = {"cat"}, .input = std::string("hello\n")});
  REQUIRE(cat.ok());
  CHECK(cat->out == "hello\n");
  CHECK(Output({.argv = {"/bin/pwd"}, .cwd = "/proc"}).first == "/proc\n");
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  auto [status, st] = Output({.argv = {"grep", "^SigBlk", "/proc/self/status"}, .sigmask = usr1});
  CHECK(status == "SigBlk:\t0000000000000200\n");  // bit 9: SIGUSR1 (10)
}

TEST_CASE("process: setsid makes the child a session leader") {
  auto [in_new, st1] = Output({.argv = {"/bin/sh", "-c", "echo $$; cat /proc/self/stat"}, .new_session = true});
  auto [in_ours, st2] = Output({.argv = {"/bin/sh", "-c", "echo $$; cat /proc/self/stat"}});
  long shell = std::stol(in_new.substr(0, in_new.find('\n')));
  CHECK(StatField(in_new, 3) == shell);
  CHECK(StatField(in_ours, 3) == ::getsid(0));
}

TEST_CASE("process: the parent-death signal fires when the starting thread ends") {
  std::optional<process::Child> child;
  std::thread([&] {
    auto c = process::Spawn({.argv = {"sleep", "5"}, .pdeathsig = SIGKILL});
    REQUIRE(c.ok());
    child.emplace(std::move(*c));
  }).join();
  REQUIRE(child);
  auto st = child->Wait(process::Clock::now() + 3s);
  REQUIRE(st.ok());
  REQUIRE(st->has_value());
  CHECK((*st)->signal == SIGKILL);
}

TEST_CASE("process: Reap::kAdoptedToo reaps the orphans a subreaper adopted while it waits") {
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // The shell exits at once; its background sleep is reparented to us and ends 200 ms later.
  auto start = process::Run({.argv = {"/bin/sh", "-c", "sleep 0.2 & echo $!"}});
  REQUIRE(start.ok());
  pid_t orphan = std::stoi(start->out);
  auto zombie = [&] {
    std::string stat(512, '\0');
    UniqueFd f(::open(("/proc/" + std::to_string(orphan) + "/stat").c_str(), O_RDONLY | O_CLOEXEC));
    if (!f.valid()) return false;
    stat.resize(std::max<ssize_t>(::read(f.get(), stat.data(), stat.size()), 0));
    return stat.find(") Z ") != std::string::npos;
  };
  // Waiting for another command: the orphan dies meanwhile and is reaped, not left a zombie.
  auto other = process::Run({.argv = {"sleep", "0.6"}, .reap = process::Reap::kAdoptedToo});
  REQUIRE(other.ok());
  CHECK(other->Success());
  CHECK_FALSE(zombie());
  CHECK(::kill(orphan, 0) != 0);
  // Without it, the same orphan stays a zombie until someone reaps it.
  auto again = process::Run({.argv = {"/bin/sh", "-c", "sleep 0.2 & echo $!"}});
  orphan = std::stoi(again->out);
  REQUIRE(process::Run({.argv = {"sleep", "0.6"}})->Success());
  CHECK(zombie());
  ::waitpid(orphan, nullptr, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}
