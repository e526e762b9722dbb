#include "shim/session/exec/shell_state.h"

#include <boost/json.hpp>

#include "shim/core/fs.h"
#include "shim/policy/assignments.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {
namespace json = boost::json;

std::vector<std::string> ShellArgv(const std::string& script, const std::string& cwd) {
  // The script is $1 and the directory $2, run with eval and cd: data, never spliced into
  // our text. `3>&-` keeps fd 3 from the script and what it starts; the shell puts it back
  // before the EXIT trap runs (after `exit` too), which reports the state there. A directory
  // that is gone leaves the shell where the exec started (as a failed `cd` does).
  std::string wrapper =
      "trap '__rc=$?; { export -p; printf \"cwd \"; pwd; } 2>/dev/null >&3; exit $__rc' EXIT\n"
      "if [ -n \"$2\" ]; then cd -- \"$2\" 2>/dev/null; fi\n"
      "eval \"$1\" 3>&-\n";
  return {"/bin/sh", "-c", wrapper, "sh", script, cwd};
}

// Names that make a shell, the dynamic loader, libc or an interpreter run code, or look
// programs up elsewhere: what an unjudged session still never carries.
static bool RunsCode(std::string_view name) {
  for (std::string_view n : {"PATH", "IFS", "ENV", "BASH_ENV", "CDPATH", "SHELLOPTS", "BASHOPTS", "PS1", "PS2", "PS3",
                             "PS4", "PROMPT_COMMAND", "HOME", "ZDOTDIR", "GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH",
                             "NLSPATH", "HOSTALIASES", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"})
    if (name == n) return true;
  for (std::string_view p : {"LD_", "BASH", "MALLOC_", "GIT_", "PYTHON", "NODE_", "PERL5", "PERLLIB", "RUBY", "LUA_INIT"})
    if (name.starts_with(p)) return true;
  return false;
}

bool IsCarried(const std::string& name, const std::string& value, const CarryRule& rule) {
  if (rule.authoritative.contains(name)) return false;
  for (std::string_view n : {"_", "PWD", "SHLVL", "PPID", "OPTIND"})  // the shell's own: it sets them itself
    if (name == n) return false;
  std::string upper;
  for (char c : name) upper += static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  if (upper.ends_with("_PROXY")) return false;  // the session's egress, in either case
  // LANG=/x.locale names a path: the value is judged with the name.
  return rule.judged ? policy::IsInertAssignment(name + "=" + value) : !RunsCode(name);
}

ShellState Carried(ShellState s, const CarryRule& rule) {
  // What execve takes: one NAME=value string of at most MAX_ARG_STRLEN (32 pages), and all of
  // them within ARG_MAX; past that the next exec could not start at all (E2BIG), and the
  // shell would stay broken. Such a variable is dropped; the ones before it stay.
  constexpr size_t kOne = 32 * 4096, kAll = 1 << 20;
  size_t total = 0;
  std::erase_if(s.env, [&](const auto& kv) {
    size_t n = kv.first.size() + kv.second.size() + 2;
    if (!IsCarried(kv.first, kv.second, rule) || n > kOne || total + n > kAll) return true;
    total += n;
    return false;
  });
  if (!s.cwd.empty() && s.cwd.front() != '/') s.cwd.clear();
  return s;
}

// Context names are letters, digits, '_', '-' and '.' (context_spec), and the exec's
// context exists by the time its state is read.
static std::filesystem::path StateFile(const std::filesystem::path& dir, const std::string& context) {
  return SessionLayout(dir).shell_state(context);
}

Result<ShellState> LoadShellState(const std::filesystem::path& session_dir, const std::string& context) {
  auto file = StateFile(session_dir, context);
  auto text = fs::ReadFile(file);
  if (!text && text.error().err_no == ENOENT) return ShellState{};
  if (!text) return text.error();
  // A value is whatever bytes the shell had, not always UTF-8; the serializer writes them as is.
  json::parse_options bytes;
  bytes.allow_invalid_utf8 = true;
  boost::system::error_code ec;
  auto v = json::parse(*text, ec, {}, bytes);
  const auto* o = ec ? nullptr : v.if_object();
  const auto* env = o ? o->if_contains("env") : nullptr;
  const auto* cwd = o ? o->if_contains("cwd") : nullptr;
  if (!env || !env->is_object() || !cwd || !cwd->is_string())
    return MakeError(file.string() + ": not a shell state", EINVAL);
  ShellState s{.env = {}, .cwd = std::string(cwd->get_string())};
  for (const auto& [k, val] : env->get_object()) {
    if (!val.is_string()) return MakeError(file.string() + ": not a shell state", EINVAL);
    s.env.emplace_back(std::string(k), std::string(val.get_string()));
  }
  return s;
}

Status SaveShellState(const std::filesystem::path& session_dir, const std::string& context, const ShellState& s) {
  json::object env;
  for (const auto& [k, v] : s.env) env[k] = v;
  return fs::WriteFileAtomic(StateFile(session_dir, context), json::serialize(json::object{{"env", std::move(env)}, {"cwd", s.cwd}}),
                             0600, /*sync=*/false);
}

}  // namespace sandshim::session
