// `session context create|list|rm`: credential contexts, several principals in one session
// that share the workspace and nothing else (docs/CONTEXTS.md).
#include <iomanip>
#include <iostream>

#include "bundle/process.h"
#include "bundle/session_spec.h"
#include "shim/cli/env_arg.h"
#include "shim/cli/session_common.h"
#include "shim/session/contexts.h"

namespace sandshim::cli {
namespace {

struct ContextArgs {
  std::string session, name, user;
  std::vector<std::string> env, secrets, allow_domains, deny_domains;
  bool json = false;
};

Result<session::ContextOptions> OptionsFrom(const ContextArgs& a) {
  session::ContextOptions o{.name = a.name, .allow_domains = a.allow_domains, .deny_domains = a.deny_domains};
  for (const auto& raw : a.env) {
    auto kv = TRY(bundle::ParseEnv(TRY(ResolveEnvArg(raw))));
    o.env[kv.first] = kv.second;
  }
  if (!a.user.empty()) {
    auto [uid, gid] = TRY(bundle::ParseUser(a.user));
    o.uid = uid;
    o.gid = gid ? *gid : uid;
  }
  // TODO(secrets): --secret takes the secrets issue's form once it is in main; until then a
  // context refuses it rather than pretend to hold one.
  if (!a.secrets.empty()) return MakeError("--secret: secrets are not in this build yet", ENOTSUP);
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
  sub->add_option("-u,--user", a->user, "uid[:gid] the context's commands run as (default: the session's)");
  sub->add_option("--secret", a->secrets, "a secret held by the proxy for this context (needs the secrets feature)")
      ->allow_extra_args(false);
  sub->add_option("--allow-domain", a->allow_domains, "a domain this context may reach (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--deny-domain", a->deny_domains, "a domain this context may not reach (repeatable)")
      ->allow_extra_args(false);
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

}  // namespace

void RegisterSessionContext(Verbs& v, CLI::App* parent) {
  CLI::App* group = parent->add_subcommand("context", "credential contexts: principals sharing the workspace only");
  group->require_subcommand(1);
  AddCreate(v, group);
  AddList(v, group);
  AddRemove(v, group);
}

}  // namespace sandshim::cli
