#include "shim/native/hooks.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace sandshim::native {

std::vector<Hook> HooksOf(const boost::json::object& spec_doc, std::string_view kind) {
  std::vector<Hook> out;
  const auto* hooks = bundle::GetObject(spec_doc, "hooks");
  const auto* list = hooks ? bundle::GetArray(*hooks, kind) : nullptr;
  if (!list) return out;
  for (const auto& v : *list) {
    if (!v.is_object()) continue;
    const auto& h = v.get_object();
    Hook hook{bundle::GetString(h, "path"), bundle::GetStrings(h, "args"), bundle::GetStrings(h, "env"), 0};
    if (hook.args.empty()) hook.args.push_back(hook.path);
    if (auto it = h.find("timeout"); it != h.end() && it->value().is_number()) hook.timeout = it->value().to_number<int>();
    out.push_back(std::move(hook));
  }
  return out;
}

Status RunHook(const Hook& h, const std::string& state) {
  int in[2];
  if (::pipe2(in, O_CLOEXEC) != 0) return ErrnoError("pipe");
  std::vector<char*> argv, envp;
  for (const auto& a : h.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : h.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork hook");
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::execve(h.path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in[0]);
  (void)!::write(in[1], state.data(), state.size());
  ::close(in[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(h.timeout > 0 ? h.timeout : 120);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return MakeError("hook " + h.path + " timed out", ETIMEDOUT);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return MakeError("hook " + h.path + " failed: status " +
                         std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)),
                     EIO);
  return Ok();
}

Status RunHooks(const std::vector<Hook>& hooks, std::string_view kind, const std::string& state_json) {
  for (const auto& h : hooks) TRY_CTX(RunHook(h, state_json), std::string(kind) + " hook");
  return Ok();
}

std::vector<std::string> RunHooksWarn(const std::vector<Hook>& hooks, std::string_view kind, const std::string& state_json) {
  std::vector<std::string> failed;
  for (const auto& h : hooks)
    if (auto s = RunHook(h, state_json); !s) failed.push_back(std::string(kind) + " hook: " + s.error().msg);
  return failed;
}

Status RunHooks(const bundle::Spec& spec, std::string_view kind, const std::string& state_json) {
  return RunHooks(HooksOf(spec.doc, kind), kind, state_json);
}

std::string StateWith(const std::string& base_state, std::string_view status, pid_t pid) {
  boost::json::object o;
  boost::system::error_code ec;
  auto v = boost::json::parse(base_state, ec);
  if (!ec && v.is_object()) o = std::move(v.as_object());
  o["status"] = status;
  o["pid"] = pid;
  return boost::json::serialize(o);
}

}  // namespace sandshim::native
