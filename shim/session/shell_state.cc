#include "shim/session/shell_state.h"

namespace sandshim::session {

std::vector<std::string> ShellArgv(const std::string& script) {
  // The user's script is passed as $1 and run with eval, so it is never spliced into our
  // text. The EXIT trap saves the state even when the script calls `exit`.
  std::string d = kShellStateDir;
  std::string wrapper =
      "__d=" + d + "\n"
      "if [ -r \"$__d/env\" ]; then . \"$__d/env\"; fi\n"
      "if [ -r \"$__d/cwd\" ]; then cd \"$(cat \"$__d/cwd\")\" 2>/dev/null; fi\n"
      "__save() { __rc=$?; mkdir -p \"$__d\" && export -p > \"$__d/env.new\" && mv -f \"$__d/env.new\" \"$__d/env\" "
      "&& pwd > \"$__d/cwd\"; exit $__rc; }\n"
      "trap __save EXIT\n"
      "eval \"$1\"\n";
  return {"/bin/sh", "-c", wrapper, "sh", script};
}

}  // namespace sandshim::session
