// `session exec [flags] ID -- CMD...`: run a command in a session. Its stdout and stderr
// stay apart, stdin is passed through, and its exit status is ours (128+n for a signal,
// 124 when --timeout ended it).
#include <algorithm>
#include <iostream>
#include <iterator>

#include "bundle/process.h"
#include "bundle/session_profile.h"
#include "bundle/session_spec.h"
#include "shim/cli/env_arg.h"
#include "shim/core/utf8.h"
#include "shim/cli/session_common.h"

namespace sandshim::cli {

struct SessionExecArgs {
  bundle::ExecOverrides o;
  std::string timeout;
  bool shell = false, json = false, keep = false;
  std::string context;
  std::vector<std::string> env_files;
};

// The policy's answer: its JSON line on stdout (inside --json's document), a line for
// people on stderr; the status says denied or ask.
static int PrintRefusal(const session::RunnerOutcome& out, bool json) {
  auto line = boost::json::parse(out.refusal).as_object();
  if (json) PrintJson(boost::json::object{{"exit", out.status}, {"policy", line}});
  else std::cout << out.refusal << "\n";
  std::string what = line["decision"] == "deny" ? "denied by " + std::string(line["rule"].as_string())
                                                : "needs approval " + std::string(line["approval"].as_string());
  std::cerr << "session exec: " << what << ": " << std::string(line["command"].as_string()) << "\n";
  return out.status;
}

// A JSON string must be UTF-8, and a command may write any bytes: output that is not UTF-8
// goes as text with U+FFFD for the bytes that are not, and exactly as NAME_base64.
static void PutOutput(boost::json::object& doc, const std::string& name, const std::string& bytes) {
  if (ValidUtf8(bytes)) {
    doc[name] = bytes;
    return;
  }
  doc[name] = LossyUtf8(bytes);
  doc[name + "_base64"] = Base64(bytes);
}

// The verb's flags, on the verb and on the parser of flags written after the id.
static void AddExecOptions(CLI::App* sub, SessionExecArgs& args) {
  auto* a = &args;
  sub->add_option("--cwd", a->o.cwd, "working directory (default: the workspace)");
  sub->add_option("-e,--env", a->o.env, "KEY=VALUE, or KEY: its value from sandshim's environment (for secrets; repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--env-file", a->env_files, "file of KEY=VALUE lines, kept off argv (repeatable)")->allow_extra_args(false);
  sub->add_option("-u,--user", a->o.user, "uid[:gid]");
  sub->add_option("--context", a->context, "the credential context to run in (default: the default context)");
  sub->add_flag("--keep", a->keep,
                "with --context NAME: what the command starts may outlive it (by default a named context's exec ends "
                "everything it started when it ends)");
  sub->add_option("--timeout", a->timeout, "end the command and everything it started after this long (exit 124), e.g. 30s");
  sub->add_flag("--shell", a->shell,
                "persistent shell: run the arguments as one sh script; cd and export carry into the next --shell exec");
  sub->add_flag("-t,--tty", a->o.tty, "give the command a terminal");
  sub->add_flag("--json", a->json, "capture the output and print {exit, stdout, stderr, ...} as one JSON document");
}

// `session exec ID --timeout 5s -- CMD`: flags after the id, up to a `--`, are this verb's,
// as a user (or a program appending flags) writes them; without a `--` everything after the
// id is the command (`session exec ID ls -l`), as before. rest starts after the id.
static Status TakeFlagsAfterId(std::vector<std::string>& rest, SessionExecArgs& a) {
  auto dashes = std::find(rest.begin(), rest.end(), "--");
  if (rest.empty() || dashes == rest.end() || rest.front() == "--" || rest.front()[0] != '-') return Ok();
  CLI::App flags{"session exec"};
  AddExecOptions(&flags, a);
  std::vector<std::string> words(std::make_reverse_iterator(dashes), rest.rend());  // CLI11 wants them reversed
  try {
    flags.parse(words);
  } catch (const CLI::ParseError& e) {
    return MakeError("session exec: " + std::string(e.what()), EINVAL);
  }
  rest.erase(rest.begin(), dashes);
  return Ok();
}

void RegisterSessionExec(Verbs& v, CLI::App* parent) {
  auto a = std::make_shared<SessionExecArgs>();
  auto self = std::make_shared<CLI::App*>(nullptr);
  auto* sub = v.Add("exec", "run a command in a session", [&v, a, self] {
    auto rest = (*self)->remaining();
    if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
    if (rest.size() < 2) return ExitWith(Status(MakeError("session exec: usage: session exec ID -- CMD [ARG...]", EINVAL)));
    std::string id = rest.front();
    rest.erase(rest.begin());
    if (auto s = TakeFlagsAfterId(rest, *a); !s) return ExitWith(s);
    if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
    if (rest.empty()) return ExitWith(Status(MakeError("session exec: usage: session exec ID -- CMD [ARG...]", EINVAL)));
    session::SessionExec e;
    e.overrides = a->o;
    e.overrides.args = std::move(rest);
    // --env-file before --env (a later key wins).
    auto from_files = bundle::ReadEnvFiles(a->env_files);
    if (!from_files) return ExitWith(Status(from_files.error().Wrap("session exec")));
    std::vector<std::string> lines;
    for (const auto& [k, v] : *from_files) lines.push_back(k + "=" + v);
    e.overrides.env.insert(e.overrides.env.begin(), lines.begin(), lines.end());
    for (auto& kv : e.overrides.env) {
      auto r = ResolveEnvArg(kv);
      if (!r) return ExitWith(Status(r.error().Wrap("session exec")));
      kv = std::move(*r);
    }
    e.shell = a->shell;
    e.context = a->context;
    e.keep = a->keep;
    if (a->json) e.capture_limit = 16 << 20;
    if (!a->timeout.empty()) {
      auto t = bundle::ParseDuration(a->timeout);
      if (!t) return ExitWith(Status(t.error().Wrap("session exec --timeout")));
      e.timeout = *t;
    }
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto target = s->ForExec(id);
    if (!target) return ExitWith(Status(target.error().Wrap("session exec " + id)));
    // Before the command starts: the native backend runs from a sealed copy of sandshim.
    runtime::EnsureSealedFor(runtime::TraitsOf(target->backend));
    auto out = s->Exec(*target, e);
    if (!out) return ExitWith(Status(out.error().Wrap("session exec " + id)));
    if (!out->refusal.empty()) return PrintRefusal(*out, a->json);  // #19: nothing ran
    if (a->json) {
      boost::json::object doc{{"exit", out->status},
                              {"timed_out", out->timed_out},
                              {"duration_ms", out->duration.count()},
                              {"bytes_out", out->bytes_out},
                              {"bytes_err", out->bytes_err}};
      PutOutput(doc, "stdout", out->out);
      PutOutput(doc, "stderr", out->err);
      PrintJson(doc);
    }
    return out->status;
  }, parent);
  AddExecOptions(sub, *a);
  sub->prefix_command();
  *self = sub;
}

}  // namespace sandshim::cli
