// What a command runs on behalf of its caller: `env FOO=1 rm`, `timeout 5 rm`, `xargs rm`,
// `sh -c 'rm'`, `eval 'rm'`, `find -exec rm`, `sudo rm`... A policy that judged only the
// first word would allow `nice rm -rf /` under shell(nice:*) or miss `sh -c 'curl x'`, so the
// judge unwraps recursively and judges what is inside too.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shim/policy/assignments.h"
#include "shim/policy/shell_parse.h"

namespace sandshim::policy {

// The name a command word runs: "/usr/bin/rm" -> "rm". A path outside the system's bin
// directories (./grep, /workspace/bin/git) may be anything: it is never allowed by name.
struct CommandName {
  std::string name;
  bool system = true;  // a bare name, or a path in /bin, /usr/bin, /usr/local/bin, /sbin, ...
};
CommandName NameOf(const Word& w);

struct Inner {
  enum class Kind { kArgv, kScript };
  Kind kind = Kind::kArgv;
  std::vector<Word> argv;          // kArgv: the command run
  Word script;                     // kScript: shell text run (sh -c, eval)
  std::vector<Word> assignments;   // env NAME=VALUE
  // Transparent wrappers (env, nice, timeout, xargs...) need no rule of their own; the rest
  // (sudo, find -exec) must be allowed themselves as well as what they run.
  bool transparent = true;
  std::string uncertain;           // non-empty: what it runs cannot be known
};

// What `argv` (whose argv[0] is called `name`) runs in turn; empty for an ordinary command.
std::vector<Inner> InnerCommands(std::string_view name, const std::vector<Word>& argv);

// Shell builtins that only change the shell's own state or print: allowed unless denied.
bool IsInertBuiltin(std::string_view name);

}  // namespace sandshim::policy
