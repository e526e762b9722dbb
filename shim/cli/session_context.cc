// `session context create|list|rm`: credential contexts, several principals in one session
// that share the workspace and nothing else (docs/CONTEXTS.md).
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "bundle/process.h"
#include "bundle/session_spec.h"
#include "shim/cli/env_arg.h"
#include "shim/cli/session_common.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/egress/secrets.h"

namespace sandshim::cli {
namespace {

struct ContextArgs {
  std::string session, name, user;
  std::vector<std::string> env, env_files, secrets, secret_files, secret_fds, secret_envs, allow_domains, deny_domains;
  bool json = false, trusted = false;
};

Result<session::ContextOptions> OptionsFrom(const ContextArgs& a) {
  session::ContextOptions o{.name = a.name, .allow_domains = a.allow_domains, .deny_domains = a.deny_domains};
  o.trusted = a.trusted;
  for (auto& [k, v] : TRY(bundle::ReadEnvFiles(a.env_files))) o.env[k] = std::move(v);  // then --env: a later key wins
  for (const auto& raw : a.env) {
    auto kv = TRY(bundle::ParseEnv(TRY(ResolveEnvArg(raw, /*forget=*/true))));
    o.env[kv.first] = kv.second;
  }
  if (!a.user.empty()) {
    auto [uid, gid] = TRY(bundle::ParseUser(a.user));
    o.uid = uid;
    o.gid = gid ? *gid : uid;
  }
  // The context's secrets: declared as for session create, each value read once from its
  // source (never argv), here, before anything is made.
  for (const auto& s : a.secrets) o.secrets.push_back(TRY(bundle::ParseSecretSpec(s)));
  std::vector<bundle::SecretSource> sources;
  using K = bundle::SecretSourceKind;
  for (auto [kind, list] : {std::pair{K::kFile, &a.secret_files}, {K::kFd, &a.secret_fds}, {K::kEnv, &a.secret_envs}})
    for (const auto& s : *list) sources.push_back(TRY(bundle::ParseSecretSource(kind, s)));
  for (const auto& src : sources) {
    if (std::ranges::none_of(o.secrets, [&](const auto& s) { return s.name == src.name; }))
      return MakeError(std::string(bundle::SourceFlag(src.kind)) + ": unknown secret " + src.name +
                           " (declare it with --secret " + src.name + ":host=...)",
                       EINVAL);
    if (o.secret_values.contains(src.name)) return MakeError("secret " + src.name + " has two value sources", EINVAL);
    o.secret_values.emplace(src.name, TRY(session::ReadSecretValue(src)));
  }
  return o;
}

boost::json::object ContextJson(const session::ContextRecord& r) {
  auto o = session::ContextToJson(r);
  o["status"] = r.status;
  return o;
}

// Runs fn with Sessions and Contexts opened for the global options.
template <typename F>
int WithContexts(const GlobalOpts& g, F fn) {
  auto opts = RuntimeOptions(g);
  if (!opts) return ExitWith(Status(opts.error()));
  session::Sessions sessions(*opts);
  session::Contexts contexts(*opts, sessions);
  auto refill = SelfArgv(g);
  if (!refill.empty()) refill.insert(refill.end(), {"session", "context", "refill"});
  contexts.SetRefillArgv(std::move(refill));
  return fn(contexts);
}

void AddCreate(Verbs& v, CLI::App* group) {
  auto a = std::make_shared<ContextArgs>();
  auto* sub = v.Add("create", "make a context in a session", [&v, a] {
    auto o = OptionsFrom(*a);
    if (!o) return ExitWith(Status(o.error().Wrap("session context create")));
    return WithContexts(v.global, [&](session::Contexts& c) {
      auto r = c.Create(a->session, *o);
      if (!r) return ExitWith(Status(r.error().Wrap("session context create " + a->session + " " + a->name)));
      if (a->json) PrintJson(ContextJson(*r));
      else std::cout << r->name << "\t" << r->container_id << "\n";
      return 0;
    });
  }, group);
  sub->add_option("session", a->session, "session id or name")->required();
  sub->add_option("name", a->name, "context name")->required();
  sub->add_option("-e,--env", a->env, "KEY=VALUE, or KEY: its value from sandshim's environment (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--env-file", a->env_files, "file of KEY=VALUE lines, kept off argv (repeatable)")->allow_extra_args(false);
  sub->add_option("-u,--user", a->user, "uid[:gid] the context's commands run as (default: the session's)");
  sub->add_option("--secret", a->secrets,
                  "NAME:host=HOST[:header=...]: a secret of this context's own; the proxy puts its value only into "
                  "this context's requests to HOST (repeatable; docs/CONTEXTS.md)")
      ->allow_extra_args(false);
  sub->add_option("--secret-file", a->secret_files, "NAME=PATH: a context secret's value from a file")
      ->allow_extra_args(false);
  sub->add_option("--secret-fd", a->secret_fds, "NAME=FD: a context secret's value from an inherited descriptor")
      ->allow_extra_args(false);
  sub->add_option("--secret-env", a->secret_envs, "NAME=VAR: a context secret's value from sandshim's environment")
      ->allow_extra_args(false);
  sub->add_option("--allow-domain", a->allow_domains, "a domain this context may reach (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--deny-domain", a->deny_domains, "a domain this context may not reach (repeatable)")
      ->allow_extra_args(false);
  sub->add_flag("--trusted", a->trusted,
                "the platform's context: its git, curl, npm treat the workspace as data (no hooks, repository "
                "commands or workspace dotfiles; docs/CONTEXTS.md)");
  sub->add_flag("--json", a->json, "print the context as JSON");
}

void AddList(Verbs& v, CLI::App* group) {
  auto a = std::make_shared<ContextArgs>();
  auto* sub = v.Add("list", "list a session's contexts", [&v, a] {
    return WithContexts(v.global, [&](session::Contexts& c) {
      auto all = c.List(a->session);
      if (!all) return ExitWith(Status(all.error().Wrap("session context list " + a->session)));
      if (a->json) {
        boost::json::array out;
        for (const auto& r : *all) out.push_back(ContextJson(r));
        PrintJson(out);
        return 0;
      }
      std::cout << std::left << std::setw(16) << "NAME" << std::setw(10) << "STATUS" << std::setw(12) << "USER"
                << "CONTAINER\n";
      for (const auto& r : *all)
        std::cout << std::setw(16) << r.name << std::setw(10) << r.status << std::setw(12)
                  << (std::to_string(r.uid) + ":" + std::to_string(r.gid)) << r.container_id << "\n";
      return 0;
    });
  }, group);
  sub->add_option("session", a->session, "session id or name")->required();
  sub->add_flag("--json", a->json, "print JSON");
}

void AddRemove(Verbs& v, CLI::App* group) {
  auto a = std::make_shared<ContextArgs>();
  auto* sub = v.Add("rm", "remove a context (its processes end)", [&v, a] {
    return WithContexts(v.global, [&](session::Contexts& c) {
      auto s = c.Remove(a->session, a->name);
      return s ? 0 : ExitWith(Status(s.error().Wrap("session context rm " + a->session + " " + a->name)));
    });
  }, group);
  sub->add_option("session", a->session, "session id or name")->required();
  sub->add_option("name", a->name, "context name")->required();
}

void AddPs(Verbs& v, CLI::App* group) {
  auto a = std::make_shared<ContextArgs>();
  auto* sub = v.Add("ps", "what runs in a context now", [&v, a] {
    return WithContexts(v.global, [&](session::Contexts& c) {
      auto t = c.Ps(a->session, a->name);
      if (!t) return ExitWith(Status(t.error().Wrap("session context ps " + a->session + " " + a->name)));
      std::cout << *t;
      return 0;
    });
  }, group);
  sub->add_option("session", a->session, "session id or name")->required();
  sub->add_option("name", a->name, "context name (default: the default context)");
}

// Internal: what a gVisor context create starts in the background (context_spare.h). Hidden
// from help; running it by hand is harmless (it makes at most the one spare).
void AddRefill(Verbs& v, CLI::App* group) {
  auto a = std::make_shared<ContextArgs>();
  auto* sub = v.Add("refill", "make the session's spare context container (internal)", [&v, a] {
    return WithContexts(v.global, [&](session::Contexts& c) {
      auto s = c.Refill(a->session);
      return s ? 0 : ExitWith(Status(s.error().Wrap("session context refill " + a->session)));
    });
  }, group);
  sub->add_option("session", a->session, "session id or name")->required();
  sub->group("");
}

}  // namespace

void RegisterSessionContext(Verbs& v, CLI::App* parent) {
  CLI::App* group = parent->add_subcommand("context", "credential contexts: principals sharing the workspace only");
  group->require_subcommand(1);
  AddCreate(v, group);
  AddList(v, group);
  AddRemove(v, group);
  AddPs(v, group);
  AddRefill(v, group);
}

}  // namespace sandshim::cli
