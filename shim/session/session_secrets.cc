// `session secret set|rm`: one secret's value to (or out of) the running relay of a session.
#include <boost/json.hpp>

#include "shim/core/fs.h"
#include "shim/net/secret_book.h"
#include "shim/net/secret_control.h"
#include "shim/session/store/audit.h"
#include "shim/session/egress/network.h"
#include "shim/session/egress/secrets.h"
#include "shim/session/sessions.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

Status Sessions::SendToRelay(const std::string& ref, const std::string& name, const net::SecretBytes* value,
                             const std::string& context) {
  auto id = TRY(Resolve(ref));
  auto lock = TRY(store_.Lock(id));  // not while a stop, start or delete changes the relay
  auto r = TRY(ReadRecord(id));
  SecretPaths paths(Dir(id));
  // A context's secrets: declared in contexts/NAME/secrets.json; its relay is the session's,
  // or (native, proxy mode) its own, with its own socket.
  ContextLayout cdir(SessionLayout(Dir(id)).context(context));
  std::filesystem::path rules_file = context.empty() ? paths.rules : cdir.secrets();
  bool own_relay = !context.empty() && fs::Exists(cdir.socket());
  std::filesystem::path socket = own_relay ? cdir.socket() : paths.socket;
  std::string who = context.empty() ? "session " + id : "context " + context + " of session " + id;
  if (!context.empty() && (context.find('/') != std::string::npos || !fs::Exists(cdir.record())))
    return MakeError("session " + id + " has no context " + context, ENOENT);
  auto text = fs::ReadFile(rules_file);
  if (!text) return MakeError(who + " has no secrets (declare them at create with --secret)", ENOENT);
  auto rules = TRY(net::ParseSecretRules(*text));
  if (std::ranges::none_of(rules, [&](const auto& s) { return s.name == name; }))
    return MakeError(who + " has no secret " + name, ENOENT);
  if (!RelayAlive(own_relay ? NetworkPaths(cdir.dir()) : NetworkPaths(Dir(id))))
    return MakeError("session " + id + " is stopped: start it first", ESRCH);
  std::string qualified = net::QualifiedName(context, name);
  TRY(value ? net::SendSecret(socket, qualified, value->View()) : net::RemoveSecret(socket, qualified));
  boost::json::object fields{{"session", id}, {"secret", name}};
  if (!context.empty()) fields["context"] = context;
  (void)AppendAudit(r.audit, value ? "secret-set" : "secret-rm", fields);
  return Ok();
}

Status Sessions::SetSecret(const std::string& ref, const std::string& name, const net::SecretBytes& value,
                           const std::string& context) {
  return SendToRelay(ref, name, &value, context);
}

Status Sessions::RemoveSecret(const std::string& ref, const std::string& name, const std::string& context) {
  return SendToRelay(ref, name, nullptr, context);
}

}  // namespace sandshim::session
