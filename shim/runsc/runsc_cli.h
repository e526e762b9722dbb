// Typed argv for every runsc verb sandshim uses, built by pure code (as gVisor's own
// containerd shim does in runsccmd) so the exact command lines are unit-tested. Global flags
// come first, then the verb, its options, and the id last.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sandshim::runsc {

struct Global {
  std::string binary = "runsc";
  std::filesystem::path root;      // runsc's own state, under sandshim's root
  std::vector<std::string> flags;  // policy flags: --network=…, --platform=…, --net-raw, …
  // Where every verb runs: the container's control namespace (control_netns.h); empty for
  // containers made before there was one. Not part of argv.
  std::filesystem::path netns;
};

struct CreateOpts {
  std::filesystem::path bundle;
  std::optional<std::filesystem::path> pid_file, console_socket, user_log;
};

struct ExecOpts {
  std::filesystem::path process_file;  // always --process: argv never passes through runsc's parser
  bool detach = false;
  std::optional<std::filesystem::path> pid_file, internal_pid_file, console_socket;
};

std::vector<std::string> CreateArgv(const Global& g, const CreateOpts& o, std::string_view id);
std::vector<std::string> RunArgv(const Global& g, const CreateOpts& o, std::string_view id, bool detach);
std::vector<std::string> StartArgv(const Global& g, std::string_view id);
std::vector<std::string> StateArgv(const Global& g, std::string_view id);
std::vector<std::string> KillArgv(const Global& g, std::string_view id, int signal, bool all);
// `kill --pid PID`: one process, by its pid inside the sandbox.
// (pid, ppid) rows of `runsc ps` table output (its json format lists pids only).
std::vector<std::pair<pid_t, pid_t>> ParsePsTable(std::string_view text);
std::vector<std::string> KillPidArgv(const Global& g, std::string_view id, pid_t pid, int signal);
std::vector<std::string> DeleteArgv(const Global& g, std::string_view id, bool force);
std::vector<std::string> ExecArgv(const Global& g, const ExecOpts& o, std::string_view id);
std::vector<std::string> PsArgv(const Global& g, std::string_view id, bool json);
std::vector<std::string> EventsStatsArgv(const Global& g, std::string_view id);
std::vector<std::string> PauseArgv(const Global& g, std::string_view id);
std::vector<std::string> ResumeArgv(const Global& g, std::string_view id);
// Checkpoint/restore (#35, session pause): the sandbox saved to image (and ended), then a new
// sandbox booted from it, detached, as create + start would leave it.
std::vector<std::string> CheckpointArgv(const Global& g, std::string_view id, const std::filesystem::path& image);
std::vector<std::string> RestoreArgv(const Global& g, const CreateOpts& o, std::string_view id,
                                     const std::filesystem::path& image);

}  // namespace sandshim::runsc
