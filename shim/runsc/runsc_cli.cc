#include "shim/runsc/runsc_cli.h"

namespace sandshim::runsc {
namespace {

std::vector<std::string> Base(const Global& g, std::string_view verb) {
  std::vector<std::string> argv{g.binary, "--root=" + g.root.string()};
  argv.insert(argv.end(), g.flags.begin(), g.flags.end());
  argv.emplace_back(verb);
  return argv;
}

void AddPath(std::vector<std::string>& argv, std::string_view flag, const std::optional<std::filesystem::path>& p) {
  if (p) argv.push_back(std::string(flag) + "=" + p->string());
}

void AddCreateOpts(std::vector<std::string>& argv, const CreateOpts& o) {
  argv.push_back("--bundle=" + o.bundle.string());
  AddPath(argv, "--pid-file", o.pid_file);
  AddPath(argv, "--console-socket", o.console_socket);
  AddPath(argv, "--user-log", o.user_log);
}

std::vector<std::string> Simple(const Global& g, std::string_view verb, std::string_view id) {
  auto argv = Base(g, verb);
  argv.emplace_back(id);
  return argv;
}

}  // namespace

std::vector<std::string> CreateArgv(const Global& g, const CreateOpts& o, std::string_view id) {
  auto argv = Base(g, "create");
  AddCreateOpts(argv, o);
  argv.emplace_back(id);
  return argv;
}

std::vector<std::string> RunArgv(const Global& g, const CreateOpts& o, std::string_view id, bool detach) {
  auto argv = Base(g, "run");
  AddCreateOpts(argv, o);
  if (detach) argv.emplace_back("--detach");
  argv.emplace_back(id);
  return argv;
}

std::vector<std::string> StartArgv(const Global& g, std::string_view id) { return Simple(g, "start", id); }
std::vector<std::string> StateArgv(const Global& g, std::string_view id) { return Simple(g, "state", id); }
std::vector<std::string> PauseArgv(const Global& g, std::string_view id) { return Simple(g, "pause", id); }
std::vector<std::string> ResumeArgv(const Global& g, std::string_view id) { return Simple(g, "resume", id); }

std::vector<std::string> CheckpointArgv(const Global& g, std::string_view id, const std::filesystem::path& image) {
  auto argv = Base(g, "checkpoint");
  argv.push_back("--image-path=" + image.string());
  argv.emplace_back(id);
  return argv;
}

std::vector<std::string> RestoreArgv(const Global& g, const CreateOpts& o, std::string_view id,
                                     const std::filesystem::path& image) {
  auto argv = Base(g, "restore");
  AddCreateOpts(argv, o);
  argv.push_back("--image-path=" + image.string());
  argv.emplace_back("--detach");
  argv.emplace_back(id);
  return argv;
}

std::vector<std::string> KillArgv(const Global& g, std::string_view id, int signal, bool all) {
  auto argv = Base(g, "kill");
  if (all) argv.emplace_back("--all");
  argv.emplace_back(id);
  argv.push_back(std::to_string(signal));
  return argv;
}

std::vector<std::pair<pid_t, pid_t>> ParsePsTable(std::string_view text) {
  std::vector<std::pair<pid_t, pid_t>> out;
  std::istringstream lines{std::string(text)};
  std::string line;
  std::getline(lines, line);  // UID PID PPID C TTY STIME TIME CMD
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string uid;
    long pid = 0, ppid = 0;
    if (f >> uid >> pid >> ppid) out.emplace_back(static_cast<pid_t>(pid), static_cast<pid_t>(ppid));
  }
  return out;
}

std::vector<std::string> KillPidArgv(const Global& g, std::string_view id, pid_t pid, int signal) {
  auto argv = Base(g, "kill");
  argv.push_back("--pid=" + std::to_string(pid));
  argv.emplace_back(id);
  argv.push_back(std::to_string(signal));
  return argv;
}

std::vector<std::string> DeleteArgv(const Global& g, std::string_view id, bool force) {
  auto argv = Base(g, "delete");
  if (force) argv.emplace_back("--force");
  argv.emplace_back(id);
  return argv;
}

std::vector<std::string> ExecArgv(const Global& g, const ExecOpts& o, std::string_view id) {
  auto argv = Base(g, "exec");
  argv.push_back("--process=" + o.process_file.string());
  if (o.detach) argv.emplace_back("--detach");
  AddPath(argv, "--pid-file", o.pid_file);
  AddPath(argv, "--internal-pid-file", o.internal_pid_file);
  AddPath(argv, "--console-socket", o.console_socket);
  argv.emplace_back(id);
  return argv;
}

std::vector<std::string> PsArgv(const Global& g, std::string_view id, bool json) {
  auto argv = Base(g, "ps");
  if (json) argv.emplace_back("--format=json");
  argv.emplace_back(id);
  return argv;
}

std::vector<std::string> EventsStatsArgv(const Global& g, std::string_view id) {
  auto argv = Base(g, "events");
  argv.emplace_back("--stats");
  argv.emplace_back(id);
  return argv;
}

}  // namespace sandshim::runsc
