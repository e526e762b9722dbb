// `session secret set|rm`: one secret's value to (or out of) the running relay of a session.
#include <boost/json.hpp>

#include "shim/core/fs.h"
#include "shim/net/secret_book.h"
#include "shim/net/secret_control.h"
#include "shim/session/audit.h"
#include "shim/session/network.h"
#include "shim/session/secrets.h"
#include "shim/session/sessions.h"

namespace sandshim::session {

Status Sessions::SendToRelay(const std::string& ref, const std::string& name, const net::SecretBytes* value) {
  auto id = TRY(Resolve(ref));
  auto lock = TRY(store_.Lock(id));  // not while a stop, start or delete changes the relay
  auto r = TRY(ReadRecord(id));
  SecretPaths paths(Dir(id));
  auto text = fs::ReadFile(paths.rules);
  if (!text) return MakeError("session " + id + " has no secrets (declare them at create with --secret)", ENOENT);
  auto rules = TRY(net::ParseSecretRules(*text));
  if (std::ranges::none_of(rules, [&](const auto& s) { return s.name == name; }))
    return MakeError("session " + id + " has no secret " + name, ENOENT);
  if (!RelayAlive(NetworkPaths(Dir(id)))) return MakeError("session " + id + " is stopped: start it first", ESRCH);
  TRY(value ? net::SendSecret(paths.socket, name, value->View()) : net::RemoveSecret(paths.socket, name));
  (void)AppendAudit(r.audit, value ? "secret-set" : "secret-rm", {{"session", id}, {"secret", name}});
  return Ok();
}

Status Sessions::SetSecret(const std::string& ref, const std::string& name, const net::SecretBytes& value) {
  return SendToRelay(ref, name, &value);
}

Status Sessions::RemoveSecret(const std::string& ref, const std::string& name) { return SendToRelay(ref, name, nullptr); }

}  // namespace sandshim::session
