// A session's secrets (docs/SECRETS.md), the session layer's side: checking what was
// declared, reading the values from their sources (never argv), the per-session placeholder
// and CA, what the sandbox gets instead of the values (the placeholder in NAME, the CA in
// its trust), the relay's arguments, and handing the values to the relay over its control
// socket. Values are never written anywhere: not in config.json, the record, the journal,
// the audit or a log.
//
// Files, all inside the session's private directory (removed with it by delete and gc, so
// nothing needs a journal entry of its own):
//   secrets/            0700  rules.json (0600: names, hosts, templates, placeholders),
//                             ca.key (0600), ca.crt, control.sock (0600, the relay's)
//   trust.crt           0644  the image's CA bundle plus the session CA, bound read-only over
//                             /etc/ssl/certs/ca-certificates.crt inside
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bundle/session_spec.h"
#include "shim/core/result.h"
#include "shim/net/secret_bytes.h"
#include "shim/net/secret_rules.h"
#include "shim/session/egress/network.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

struct SecretPaths {
  explicit SecretPaths(const std::filesystem::path& session_dir)
      : dir(session_dir / layout::kSecretsDir),
        rules(session_dir / layout::kSecretRules),
        socket(session_dir / layout::kSecretSocket),
        ca_key(session_dir / layout::kCaKey),
        ca_cert(session_dir / layout::kCaCert),
        trust(session_dir / layout::kTrust) {}
  std::filesystem::path dir, rules, socket, ca_key, ca_cert, trust;
};

// Where the sandbox finds its trust bundle, and the variables that point clients at it.
inline constexpr const char* kSandboxTrustFile = "/etc/ssl/certs/ca-certificates.crt";
inline constexpr const char* kTrustVariables[] = {"SSL_CERT_FILE",    "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS",
                                                  "PIP_CERT",         "GIT_SSL_CAINFO",     "CURL_CA_BUNDLE"};

using SecretValues = std::map<std::string, net::SecretBytes>;

// Before anything exists: proxy mode; names unique, not also given with --env; every host a
// pattern that can match (and an exact host allowed by the egress rules); every secret with
// exactly one source and every source for a declared secret; the trust bundle readable.
Status CheckSecrets(const bundle::SessionProfile& p, const RelayPolicy& policy);
// One value from its source: a file, an inherited descriptor (read to its end, then
// closed) or our environment (the variable is then removed from it, so no process we start
// inherits it).
Result<net::SecretBytes> ReadSecretValue(const bundle::SecretSource& s);
Result<SecretValues> ReadSecretValues(const std::vector<bundle::SecretSource>& sources);
// A fresh placeholder: "sshim-secret-" and 32 random hex digits.
std::string NewPlaceholder();
// The proxy's rule for a declared secret (its scope included).
net::SecretRuleSpec RuleSpec(const bundle::SecretSpec& s, const std::string& placeholder, const std::string& context);
// Gives every secret its placeholder, and the sandbox NAME=placeholder, the trust variables
// and the trust bundle's mount (paths under session_dir). Pure apart from the randomness.
void PlanSecrets(bundle::SessionProfile& p, const std::filesystem::path& session_dir);
// The session CA, trust.crt (the image's bundle, read inside the rootfs, plus the CA) and the rules file.
Status WriteSecretFiles(const std::filesystem::path& session_dir, const bundle::SessionProfile& p, const std::string& session);
// The relay's --secrets* arguments.
std::vector<std::string> SecretRelayArgs(const std::filesystem::path& session_dir, const std::string& trust_bundle);
// Every value to the running relay.
Status DeliverSecrets(const std::filesystem::path& session_dir, const SecretValues& values);

}  // namespace sandshim::session
