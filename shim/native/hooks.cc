#include "shim/native/hooks.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace sandshim::native {
namespace {

Status RunHook(const boost::json::object& h, const std::string& state) {
  std::string path = bundle::GetString(h, "path");
  auto args = bundle::GetStrings(h, "args");
  auto env = bundle::GetStrings(h, "env");
  if (args.empty()) args.push_back(path);
  int timeout = 0;
  if (auto it = h.find("timeout"); it != h.end() && it->value().is_number()) timeout = it->value().to_number<int>();
  int in[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return ErrnoError("pipe");
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork hook");
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::execve(path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in[0]);
  (void)!::write(in[1], state.data(), state.size());
  ::close(in[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout > 0 ? timeout : 120);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return MakeError("hook " + path + " timed out", ETIMEDOUT);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return MakeError("hook " + path + " failed: status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)), EIO);
  return Ok();
}

}  // namespace

Status RunHooks(const bundle::Spec& spec, std::string_view kind, const std::string& state_json) {
  const auto* hooks = bundle::GetObject(spec.doc, "hooks");
  const auto* list = hooks ? bundle::GetArray(*hooks, kind) : nullptr;
  if (!list) return Ok();
  for (const auto& h : *list)
    if (h.is_object()) TRY_CTX(RunHook(h.get_object(), state_json), std::string(kind) + " hook");
  return Ok();
}

}  // namespace sandshim::native
