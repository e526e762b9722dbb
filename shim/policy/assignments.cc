#include "shim/policy/assignments.h"

#include <algorithm>

namespace sandshim::policy {
namespace {

bool In(std::string_view s, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

// Read by no system program as a path, a program, options or code, whatever the value:
// switches and names of modes that test runners, build tools and terminals read.
bool InertName(std::string_view n) {
  return In(n, {"CI", "DEBUG", "VERBOSE", "QUIET", "TERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",
                "CLICOLOR_FORCE", "DEBIAN_FRONTEND", "NODE_ENV", "RAILS_ENV", "RACK_ENV", "APP_ENV", "FLASK_DEBUG", "PORT",
                "RUST_LOG", "RUST_BACKTRACE", "CARGO_TERM_COLOR", "GOOS", "GOARCH", "CGO_ENABLED", "PYTHONUNBUFFERED",
                "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8", "SOURCE_DATE_EPOCH",
                "TZ", "TIMEFORMAT", "GREP_COLOR", "GREP_COLORS", "OLDPWD", "LOG_LEVEL", "ENVIRONMENT", "FLASK_ENV",
                "NODE_NO_WARNINGS"});
}

// Locale names: a value with `/` is a path glibc reads a locale from.
bool LocaleName(std::string_view n) { return In(n, {"LANG", "LANGUAGE"}) || n.rfind("LC_", 0) == 0; }

// A name with no capital letter is the script's own (POSIX leaves lower case to
// applications; the standard tools read upper case), except those that programs do read:
// proxies (curl, pip, git), npm's and yarn's configuration, bash's history characters
// (polred2 F1), and the arrays zsh ties to PATH-like variables.
bool ScriptOwnName(std::string_view n) {
  if (n.empty() || std::any_of(n.begin(), n.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) return false;
  if (n.size() >= 6 && n.substr(n.size() - 6) == "_proxy") return false;
  if (n.rfind("npm_", 0) == 0 || n.rfind("yarn_", 0) == 0) return false;
  return !In(n, {"histchars", "path", "cdpath", "fpath", "manpath", "module_path", "mailpath", "psvar", "fignore"});
}

}  // namespace

bool LiteralSubscript(std::string_view kv) {
  auto open = kv.find('[');
  if (open == std::string_view::npos || open > kv.find('=')) return true;
  auto close = kv.find(']', open);
  if (close == std::string_view::npos || close == open + 1) return false;
  auto sub = kv.substr(open + 1, close - open - 1);
  return sub == "@" || sub == "*" || std::all_of(sub.begin(), sub.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool IsInertAssignment(std::string_view kv, bool value_known) {
  if (!LiteralSubscript(kv)) return false;
  auto eq = kv.find('=');
  auto name = kv.substr(0, std::min(eq, kv.find('[')));
  if (!name.empty() && name.back() == '+') name.remove_suffix(1);
  // NAME[KEY]=V sets an element; bash's own arrays (BASH_CMDS, BASH_ALIASES) are upper case.
  if (ScriptOwnName(name) || InertName(name)) return true;
  if (!LocaleName(name)) return false;
  auto value = eq == std::string_view::npos ? std::string_view() : kv.substr(eq + 1);
  return value_known && value.find('/') == std::string_view::npos;
}

}  // namespace sandshim::policy
