// The session layer's pure parts and its exec runner (a real fork, no sandbox, no root).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <functional>

#include "shim/core/process_tree.h"
#include "shim/runsc/runsc_cli.h"
#include "shim/session/exec/exec_runner.h"
#include "shim/session/store/metrics.h"
#include "shim/session/store/record.h"
#include "shim/session/exec/shell_state.h"

using namespace sandshim;
using namespace sandshim::session;

TEST_CASE("process tree: the exec's process and its descendants, never init, no cycles") {
  // 1 init; 13 the exec (parent 0 in gVisor); 14, 15 its children; 16 a grandchild; 20 another exec.
  std::vector<proc::ProcEntry> t{{1, 0}, {2, 1}, {13, 0}, {14, 13}, {15, 13}, {16, 15}, {20, 0}, {21, 20}};
  auto sub = proc::Subtree(t, 13, 1);
  std::sort(sub.begin(), sub.end());
  CHECK(sub == std::vector<pid_t>{13, 14, 15, 16});
  // Native: the root is our runner (not in the container's table); a child of init is spared.
  std::vector<proc::ProcEntry> n{{500, 400}, {501, 500}, {600, 1}, {1, 0}};
  CHECK(proc::Subtree(n, 400, 1) == std::vector<pid_t>{500, 501});
  CHECK(proc::Subtree(n, 1, 1) == std::vector<pid_t>{600});  // init itself never, even as root
  std::vector<proc::ProcEntry> cyc{{5, 6}, {6, 5}};
  CHECK(proc::Subtree(cyc, 5, 1).size() == 2);
}

TEST_CASE("runsc ps table: pid and parent of every row") {
  auto rows = runsc::ParsePsTable(
      "UID       PID       PPID      C         TTY       STIME     TIME      CMD\n"
      "1000      1         0         0         ?         14:38     0s        sh\n"
      "1000      13        0         0         ?         14:38     10ms      sh\n"
      "1000      14        13        0         ?         14:38     10ms      sleep\n");
  REQUIRE(rows.size() == 3);
  CHECK(rows[2] == std::pair<pid_t, pid_t>{14, 13});
  CHECK(runsc::ParsePsTable("").empty());
  CHECK(runsc::KillPidArgv({"runsc", "/r", {}}, "sshim-x", 14, 9) ==
        std::vector<std::string>{"runsc", "--root=/r", "kill", "--pid=14", "sshim-x", "9"});
}

TEST_CASE("session record round-trips through JSON") {
  SessionRecord r;
  r.id = "s1";
  r.name = "agent-7";
  r.backend = "native";
  r.state = SessionState::kStopped;
  r.network = NetworkMode::kProxy;
  r.layer = LayerKind::kGvisorOverlay;
  r.execs = 3;
  r.exec_failures = 1;
  r.exec_seconds = 2.5;
  r.profile = {{"env_keys", boost::json::array{"A"}}};
  auto back = RecordFromJson(RecordToJson(r));
  REQUIRE(back.ok());
  CHECK(back->name == "agent-7");
  CHECK(back->state == SessionState::kStopped);
  CHECK(back->network == NetworkMode::kProxy);
  CHECK(back->layer == LayerKind::kGvisorOverlay);
  CHECK(RecordToJson(r).at("layer") == "gvisor-overlay");  // the names session.json always held
  CHECK(back->execs == 3);
  CHECK(back->exec_failures == 1);
  CHECK(back->exec_seconds == 2.5);
  CHECK_FALSE(RecordFromJson(boost::json::parse("[]")).ok());
  CHECK_FALSE(RecordFromJson(boost::json::parse("{}")).ok());
}

TEST_CASE("session record: a mistyped or unknown field is an error naming it, not a default") {
  auto error = [](const char* text) {
    auto r = RecordFromJson(boost::json::parse(text));
    return r.ok() ? std::string("(read)") : r.error().msg;
  };
  // Before: a negative counter read as 0, a string as 0, an unknown state as itself.
  CHECK(error(R"({"id":"s","execs":-1})") == "session.json: execs: must not be negative");
  CHECK(error(R"({"id":"s","id_base":"100000"})") == "session.json: id_base: not a number");
  CHECK(error(R"({"id":"s","state":"frozen"})") == "session.json: state: unknown value \"frozen\"");
  CHECK(error(R"({"id":"s","network":"bridge"})") == "session.json: network: unknown value \"bridge\"");
  CHECK(error(R"({"id":"s","relay_args":[1]})") == "session.json: relay_args[0]: not a string");
  // Records written before a field existed still read, with its default.
  auto old = RecordFromJson(boost::json::parse(R"({"id":"s","backend":"native"})"));
  REQUIRE(old.ok());
  CHECK(old->state == SessionState::kRunning);
  CHECK(old->network == NetworkMode::kNone);
  CHECK(old->layer == LayerKind::kNone);
}

TEST_CASE("metrics: Prometheus text with escaped labels and epoch timestamps") {
  CHECK(EpochSeconds("1970-01-01T00:01:00Z") == 60);
  CHECK(EpochSeconds("1970-01-01T01:00:00.5+01:00") == 0.5);
  CHECK(EpochSeconds("garbage") == 0);
  SessionSample a, b;
  a.record.id = "a";
  a.record.backend = "gvisor";
  a.record.status = "running";
  a.record.execs = 4;
  a.record.created = a.record.last_used = "1970-01-01T00:00:10Z";
  a.workspace_bytes = 100;
  b.record = a.record;
  b.record.id = "b\"x";
  b.record.status = "stopped";
  auto text = PrometheusText({a, b});
  CHECK(text.find("sandshim_sessions{state=\"running\",backend=\"gvisor\"} 1\n") != std::string::npos);
  CHECK(text.find("sandshim_sessions{state=\"stopped\",backend=\"gvisor\"} 1\n") != std::string::npos);
  CHECK(text.find("sandshim_session_execs_total{session=\"a\",backend=\"gvisor\"} 4\n") != std::string::npos);
  CHECK(text.find("session=\"b\\\"x\"") != std::string::npos);
  CHECK(text.find("sandshim_session_last_used_timestamp_seconds{session=\"a\",backend=\"gvisor\"} 10\n") != std::string::npos);
  CHECK(text.find("sandshim_session_memory_bytes{") == std::string::npos);  // unknown: not reported
  CHECK(text.find("# TYPE sandshim_session_execs_total counter") != std::string::npos);
}

TEST_CASE("persistent shell: the script is an argument, never spliced into the wrapper") {
  auto argv = ShellArgv("echo '$(rm -rf /)'", "/tmp/$(id)");
  REQUIRE(argv.size() == 6);
  CHECK(argv[0] == "/bin/sh");
  CHECK(argv[4] == "echo '$(rm -rf /)'");
  CHECK(argv[5] == "/tmp/$(id)");  // the directory too: data for cd
  CHECK(argv[2].find("rm -rf") == std::string::npos);
  CHECK(argv[2].find("$(id)") == std::string::npos);
  CHECK(argv[2].find("eval \"$1\" 3>&-") != std::string::npos);  // the script never has fd 3
  CHECK(argv[2].find(". ") == std::string::npos);                  // nothing is sourced
}

namespace {

// What a backend's StartExec does for the runner's stdio, with a function as the command: a
// host child with the three descriptors in place and no signal blocked (the runner blocks
// INT/TERM/HUP/QUIT for itself before the start).
Result<std::unique_ptr<proc::Running>> ForkCommand(const runtime::ExecStdio& s, const std::function<int()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int i = 0; i < 3; ++i)
      if (s.fds[i] != i) ::dup2(s.fds[i], i);
    for (size_t i = 0; i < s.extra.size(); ++i) ::dup2(s.extra[i], 3 + static_cast<int>(i));
    ::_exit(body());
  }
  return proc::HostChild(pid);
}

Result<RunnerOutcome> RunFn(const RunnerOptions& o, const std::function<int()>& body) {
  auto runner = TRY(ExecRunner::Pipes(o));
  return runner->Run(ForkCommand(runner->Stdio(), body));
}

// A handle that records what the runner asks of it and ends a real child when told.
class Recording : public proc::Running {
 public:
  explicit Recording(std::unique_ptr<proc::Running> inner) : inner_(std::move(inner)) {}
  pid_t Pid() const override { return inner_->Pid(); }
  int WaitFd() const override { return inner_->WaitFd(); }
  Result<int> Reap() override { return inner_->Reap(); }
  Status Signal(int sig) override {
    signals.push_back(sig);
    return inner_->Signal(sig);
  }
  Status KillTree(int sig) override {
    tree_kills.push_back(sig);
    return inner_->Signal(sig);
  }
  std::vector<int> signals, tree_kills;

 private:
  std::unique_ptr<proc::Running> inner_;
};

}  // namespace

TEST_CASE("exec runner: separate streams, counts, exit status, signals as 128+n") {
  RunnerOptions o;
  o.capture_limit = 1 << 20;
  auto r = RunFn(o, [] {
    (void)!::write(1, "hello\n", 6);
    (void)!::write(2, "oops\n", 5);
    return 7;
  });
  REQUIRE(r.ok());
  CHECK(r->status == 7);
  CHECK(r->out == "hello\n");
  CHECK(r->err == "oops\n");
  CHECK(r->bytes_out == 6);
  CHECK(r->bytes_err == 5);
  CHECK_FALSE(r->timed_out);
  auto sig = RunFn(o, [] { return ::raise(SIGTERM), 0; });
  CHECK(sig->status == 128 + SIGTERM);
}

TEST_CASE("exec runner: the channel on fd 3 comes back, and a background holder is not waited for") {
  RunnerOptions o;
  o.capture_limit = 1024;
  o.channel = true;
  auto t0 = std::chrono::steady_clock::now();
  auto r = RunFn(o, [] {
    std::string big(200000, 'x');  // more than a pipe holds: read while the command runs
    (void)!::write(3, big.data(), big.size());
    if (::fork() == 0) {  // keeps fd 3 (and stdout) open long after the command
      ::close(1), ::close(2);
      ::sleep(5);
      ::_exit(0);
    }
    return 3;
  });
  REQUIRE(r.ok());
  CHECK(r->status == 3);
  CHECK(r->channel.size() == 200000);
  CHECK_FALSE(r->channel_overflow);
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3));
}

TEST_CASE("exec runner: the channel stops keeping at 1 MiB and says so") {
  RunnerOptions o;
  o.channel = true;
  auto r = RunFn(o, [] {
    std::string chunk(1 << 16, 'y');
    for (int i = 0; i < 20; ++i) (void)!::write(3, chunk.data(), chunk.size());
    return 0;
  });
  REQUIRE(r.ok());
  CHECK(r->channel.size() == session::kChannelLimit);
  CHECK(r->channel_overflow);
}

TEST_CASE("exec runner: a command that is not there is 127 with its message, not our error") {
  RunnerOptions o;
  o.capture_limit = 1024;
  auto runner = ExecRunner::Pipes(o);
  REQUIRE(runner.ok());
  auto r = (*runner)->Run(MakeError("error finding executable \"nope\"", ENOENT));
  REQUIRE(r.ok());
  CHECK(r->status == 127);
  CHECK(r->err == "error finding executable \"nope\"\n");
  auto other = ExecRunner::Pipes(o);
  CHECK_FALSE((*other)->Run(MakeError("container gone", ESRCH)).ok());
}

// The deadline goes to the command's own handle (the backend knows how to end its tree), once,
// with SIGKILL; nothing goes back up to the session layer.
TEST_CASE("exec runner: the deadline ends the tree through the handle and the result is 124") {
  RunnerOptions o;
  o.capture_limit = 1024;
  o.timeout = std::chrono::milliseconds(100);
  auto runner = ExecRunner::Pipes(o);
  REQUIRE(runner.ok());
  auto child = ForkCommand((*runner)->Stdio(), [] { return ::sleep(30), 0; });
  REQUIRE(child.ok());
  auto rec = std::make_unique<Recording>(std::move(*child));
  auto* seen = rec.get();
  auto r = (*runner)->Run(std::unique_ptr<proc::Running>(std::move(rec)));
  REQUIRE(r.ok());
  CHECK(r->timed_out);
  CHECK(r->status == 124);
  CHECK(seen->tree_kills == std::vector<int>{SIGKILL});
  CHECK(r->duration < std::chrono::seconds(5));
}

TEST_CASE("exec runner: a background process holding the pipe does not hold us after the child exits") {
  RunnerOptions o;
  o.capture_limit = 1024;
  o.drain = std::chrono::milliseconds(50);
  auto r = RunFn(o, [] {
    if (::fork() == 0) {  // keeps stdout open for 3 s
      ::sleep(3);
      ::_exit(0);
    }
    return 0;
  });
  REQUIRE(r.ok());
  CHECK(r->status == 0);
  CHECK(r->duration < std::chrono::seconds(2));
}

// One algorithm ends an exec's tree on every backend: stop everything below the root (round
// after round, catching what forked meanwhile), then kill what was stopped; never init.
TEST_CASE("process tree: SignalTree stops the subtree until it stops growing, then kills it") {
  std::vector<proc::ProcEntry> table{{1, 0}, {13, 1}, {14, 13}};
  std::vector<std::pair<pid_t, int>> sent;
  int reads = 0;
  auto read = [&]() -> Result<std::vector<proc::ProcEntry>> {
    if (++reads == 2) table.push_back({15, 14});  // forked while we looked
    return table;
  };
  auto send = [&](pid_t p, int s) { sent.emplace_back(p, s); };
  CHECK(proc::SignalTree(read, send, 13, 1, SIGKILL) == 3);
  size_t stops = 0, kills = 0;
  for (auto [p, s] : sent) {
    CHECK(p != 1);
    if (s == SIGSTOP) {
      CHECK(kills == 0);
      ++stops;
    }
    if (s == SIGKILL) ++kills;
  }
  CHECK(stops == 3);
  CHECK(kills == 3);
  sent.clear();
  CHECK(proc::SignalTree(read, send, 13, 1, SIGTERM) == 3);  // one round, no stop
  CHECK(sent.size() == 3);
  CHECK(proc::SignalTree([]() -> Result<std::vector<proc::ProcEntry>> { return MakeError("no table"); }, send, 13, 1,
                         SIGKILL) == 0);
}
