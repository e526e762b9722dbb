#include "shim/net/request_gate.h"

namespace sandshim::net {

static Verdict Refuse(int status, std::string decision, std::string rule, std::string reason) {
  Verdict v;
  v.status = status;
  v.decision = std::move(decision);
  v.rule = std::move(rule);
  v.reason = std::move(reason);
  return v;
}

// The part both transports share: the body's framing, then the secrets.
static Verdict Forward(const RequestHead& head, Verdict v, bool tls, const Asker& who, const SecretBook* secrets) {
  auto body = PlainBodyLength(head.transfer_encoding, head.content_length.has_value(), head.content_length.value_or(0));
  if (!body) return Refuse(411, "error", "transfer-encoding", body.error().msg);
  v.body = *body;
  auto headers = ForwardedHeaders(head.headers);
  if (!headers) return Refuse(400, "deny", "connection-header", headers.error().msg);
  v.headers = std::move(*headers);
  if (!secrets) return v;
  SecretRequest req{.host = v.target.host, .port = v.target.port, .tls = tls, .method = head.method,
                    .target = v.target.origin_form, .context = who.context};
  auto inj = secrets->Apply(req, v.headers);
  if (inj.refused) return Refuse(403, "deny", inj.rule, inj.reason);
  v.injected = std::move(inj.injected);
  return v;
}

Verdict GateProxyRequest(const RequestHead& head, const Asker& who, const SecretBook* secrets) {
  Verdict v;
  v.connect = head.method == "CONNECT";
  auto t = v.connect ? ParseConnectTarget(head.target) : ParseAbsoluteTarget(head.target);
  if (!t) return Refuse(400, "error", "malformed", t.error().msg);
  v.target = std::move(*t);
  auto d = who.rules->Decide(v.target.host, v.target.port);
  if (!d.allowed) {
    auto r = Refuse(403, "deny", d.rule, d.reason);
    r.target = v.target;
    return r;
  }
  v.rule = d.rule;
  v.reason = d.reason;
  if (v.connect) {
    v.intercept = secrets && secrets->Intercepts(v.target.host, v.target.port);
    return v;
  }
  auto out = Forward(head, v, /*tls=*/false, who, secrets);
  out.target = v.target;
  return out;
}

Verdict GateTlsRequest(const RequestHead& head, const Target& to, const Asker& who, const SecretBook* secrets) {
  // Only a path: the host is the one the CONNECT named and the certificate was checked for.
  // An absolute form ("GET http://elsewhere/ ...") wins over Host at the origin (RFC 9112
  // 3.2.2), so a shared front end would route the injected values to the site it names.
  if (head.target.empty() || head.target.front() != '/') {
    auto r = Refuse(400, "deny", "request-target",
                    "inside " + Authority(to.host, to.port) + " the request target must be a path, not '" +
                        head.target.substr(0, 100) + "'");
    r.target = to;
    return r;
  }
  Verdict v;
  v.target = to;
  v.target.origin_form = head.target;
  if (who.rules) {
    auto d = who.rules->Decide(to.host, to.port);
    if (!d.allowed) return Refuse(403, "deny", d.rule, d.reason);
    v.rule = d.rule;
  }
  auto out = Forward(head, v, /*tls=*/true, who, secrets);
  out.target = v.target;
  return out;
}

}  // namespace sandshim::net
