// `session secret set ID NAME --from-file P | --from-fd N | --from-env VAR` and
// `session secret rm ID NAME`: rotate one secret of a running session (docs/SECRETS.md).
// The value never comes from argv.
#include "shim/cli/session_common.h"
#include "shim/session/egress/secrets.h"

namespace sandshim::cli {

namespace {

struct SecretArgs {
  std::string ref, name, file, env, context;
  int fd = -1;
};

Result<bundle::SecretSource> Source(const SecretArgs& a) {
  int given = !a.file.empty() + !a.env.empty() + (a.fd >= 0);
  if (given != 1) return MakeError("give exactly one of --from-file, --from-fd, --from-env (never the value itself)", EINVAL);
  if (!a.file.empty()) return bundle::SecretSource{a.name, bundle::SecretSourceKind::kFile, a.file};
  if (!a.env.empty()) return bundle::SecretSource{a.name, bundle::SecretSourceKind::kEnv, a.env};
  return bundle::SecretSource{a.name, bundle::SecretSourceKind::kFd, std::to_string(a.fd)};
}

}  // namespace

void RegisterSessionSecret(Verbs& v, CLI::App* parent) {
  CLI::App* secret = parent->add_subcommand("secret", "rotate a running session's secrets (set a new value, or rm it)");
  secret->require_subcommand(1);
  auto a = std::make_shared<SecretArgs>();
  auto* set = v.Add("set", "give a declared secret a new value, used from the next request on", [&v, a] {
    auto src = Source(*a);
    if (!src) return ExitWith(Status(src.error().Wrap("session secret set")));
    auto value = session::ReadSecretValue(*src);
    if (!value) return ExitWith(Status(value.error().Wrap("session secret set")));
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto st = s->SetSecret(a->ref, a->name, *value, a->context);
    return ExitWith(st ? st : Status(st.error().Wrap("session secret set " + a->ref)));
  }, secret);
  set->add_option("session", a->ref, "session id or name")->required();
  set->add_option("name", a->name, "the secret's name (as declared with --secret)")->required();
  set->add_option("--from-file", a->file, "read the value from this file");
  set->add_option("--from-fd", a->fd, "read the value from this inherited descriptor (to its end)");
  set->add_option("--from-env", a->env, "take the value from this variable of sandshim's environment");
  set->add_option("--context", a->context, "a credential context's own secret (session context create --secret)");
  auto* rm = v.Add("rm", "drop a secret's value: requests carrying its placeholder are refused until set again", [&v, a] {
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto st = s->RemoveSecret(a->ref, a->name, a->context);
    return ExitWith(st ? st : Status(st.error().Wrap("session secret rm " + a->ref)));
  }, secret);
  rm->add_option("session", a->ref, "session id or name")->required();
  rm->add_option("name", a->name, "the secret's name")->required();
  rm->add_option("--context", a->context, "a credential context's own secret");
}

}  // namespace sandshim::cli
