#include "shim/session/egress/secrets.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <set>

#include "shim/core/forget_env.h"
#include "shim/core/fs.h"
#include "shim/core/unique_fd.h"
#include "shim/net/domain_rules.h"
#include "shim/net/secret_book.h"
#include "shim/net/secret_control.h"
#include "shim/net/session_ca.h"

namespace sandshim::session {

namespace stdfs = std::filesystem;

net::SecretRuleSpec RuleSpec(const bundle::SecretSpec& s, const std::string& placeholder, const std::string& context) {
  return {.name = s.name, .hosts = s.hosts, .header = s.header, .placeholder = placeholder, .context = context,
          .paths = s.paths, .methods = s.methods, .schemes = s.schemes};
}

static Status CheckHosts(const bundle::SecretSpec& s, const net::DomainRules& egress) {
  TRY_CTX(net::CheckSecretScope(RuleSpec(s, "", "")), "secret " + s.name);
  for (const auto& h : s.hosts) {
    TRY_CTX(net::CheckSecretHost(h), "secret " + s.name);
    auto rule = TRY(net::ParseDomainRule(h));
    if (rule.subdomains) continue;  // *.x.com: some name below may be allowed; nothing to prove here
    if (!egress.Decide(rule.host, rule.port ? rule.port : 443).allowed)
      return MakeError("secret " + s.name + ": host \"" + h +
                           "\" can never match: the session's egress rules do not allow it (add --allow-domain)",
                       EINVAL);
  }
  return Ok();
}

Status CheckSecrets(const bundle::SessionProfile& p, const RelayPolicy& policy) {
  if (p.secrets.empty() && p.secret_sources.empty()) return Ok();
  if (p.network != "proxy")
    return MakeError("secrets (--secret) need --network proxy: the egress proxy is what puts their values into requests",
                     EINVAL);
  std::vector<std::string> allow = p.allow_domains, deny = p.deny_domains;
  if (policy) {
    auto extra = policy->EffectiveAllow();
    allow.insert(allow.end(), extra.begin(), extra.end());
    deny.insert(deny.end(), policy->blocked_domains.begin(), policy->blocked_domains.end());
  }
  auto egress = TRY(net::DomainRules::Make(allow, deny));
  std::set<std::string> names;
  for (const auto& s : p.secrets) {
    if (!names.insert(s.name).second) return MakeError("secret " + s.name + " is declared twice", EINVAL);
    if (p.env.contains(s.name)) return MakeError("secret " + s.name + " is also given with --env", EINVAL);
    if (s.hosts.empty()) return MakeError("secret " + s.name + ": no hosts", EINVAL);
    TRY(CheckHosts(s, egress));
  }
  std::set<std::string> sourced;
  for (const auto& src : p.secret_sources) {
    if (!names.contains(src.name))
      return MakeError(std::string(bundle::SourceFlag(src.kind)) + ": unknown secret " + src.name +
                           " (declare it with --secret " + src.name + ":host=...)",
                       EINVAL);
    if (!sourced.insert(src.name).second) return MakeError("secret " + src.name + " has two value sources", EINVAL);
  }
  for (const auto& n : names)
    if (!sourced.contains(n))
      return MakeError("secret " + n + " has no value: give --secret-file, --secret-fd or --secret-env " + n + "=...", EINVAL);
  if (!p.secret_trust_bundle.empty() && ::access(p.secret_trust_bundle.c_str(), R_OK) != 0)
    return ErrnoError("--secret-trust-bundle " + p.secret_trust_bundle);
  return Ok();
}

static Result<std::string> ReadAll(int fd, const std::string& what) {
  std::string out;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      net::Wipe(out.data(), out.size());
      return ErrnoError(what);
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > net::kMaxSecretBytes + 2) {
      net::Wipe(out.data(), out.size());
      net::Wipe(buf, sizeof buf);
      return MakeError(what + ": longer than " + std::to_string(net::kMaxSecretBytes) + " bytes", EINVAL);
    }
    if (out.capacity() < net::kMaxSecretBytes + 2) out.reserve(net::kMaxSecretBytes + 2);  // never reallocated: one copy to wipe
    out.append(buf, static_cast<size_t>(n));
  }
  net::Wipe(buf, sizeof buf);
  return out;
}

Result<net::SecretBytes> ReadSecretValue(const bundle::SecretSource& s) {
  std::string who = "secret " + s.name;
  std::string raw;
  switch (s.kind) {
    case bundle::SecretSourceKind::kFile: {
      UniqueFd fd(::open(s.where.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
      if (!fd.valid()) return ErrnoError(who + ": read " + s.where);
      struct stat st;
      if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return MakeError(who + ": " + s.where + " is not a regular file", EINVAL);
      raw = TRY(ReadAll(fd.get(), who + ": read " + s.where));
      break;
    }
    case bundle::SecretSourceKind::kFd: {
      int fd = std::stoi(s.where);
      if (fd <= 2) return MakeError(who + ": fd " + s.where + " is stdio, not a secret's descriptor", EINVAL);
      if (::fcntl(fd, F_GETFD) < 0) return ErrnoError(who + ": fd " + s.where);
      auto r = ReadAll(fd, who + ": read fd " + s.where);
      ::close(fd);  // read once; no child of ours inherits it
      raw = TRY(std::move(r));
      break;
    }
    case bundle::SecretSourceKind::kEnv: {
      const char* v = ::getenv(s.where.c_str());
      if (!v) return MakeError(who + ": $" + s.where + " is not set", ENOENT);
      auto value = net::CheckedValue(s.name, v);
      proc::ForgetEnv(s.where);  // no process we start (relay, runsc) or fork (waiters) holds it
      return value;
    }
  }
  auto value = net::CheckedValue(s.name, raw);
  net::Wipe(raw.data(), raw.size());
  return value;
}

Result<SecretValues> ReadSecretValues(const std::vector<bundle::SecretSource>& sources) {
  SecretValues out;
  for (const auto& s : sources) out.emplace(s.name, TRY(ReadSecretValue(s)));
  return out;
}

std::string NewPlaceholder() {
  unsigned char b[16];
  for (size_t got = 0; got < sizeof b;) {
    ssize_t n = ::getrandom(b + got, sizeof b - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string out(bundle::kPlaceholderPrefix);
  for (unsigned char c : b) {
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

void PlanSecrets(bundle::SessionProfile& p, const stdfs::path& session_dir) {
  if (p.secrets.empty()) return;
  for (auto& s : p.secrets) {
    s.placeholder = NewPlaceholder();
    p.env[s.name] = s.placeholder;
  }
  for (const char* var : kTrustVariables) p.env.insert_or_assign(var, kSandboxTrustFile);
  p.mounts.push_back({SecretPaths(session_dir).trust.string(), kSandboxTrustFile, /*readonly=*/true});
}

// The image's bundle, its path resolved inside the rootfs (a link in the image cannot point
// the read at a host file); none is fine (the bundle is then the session CA alone).
static std::string ImageBundle(const std::string& rootfs) {
  UniqueFd root(::open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return "";
  open_how how{};
  // O_NONBLOCK: a FIFO (or a device) an image puts there must not block create (red team);
  // it is then refused as not a regular file.
  how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  UniqueFd fd(static_cast<int>(::syscall(SYS_openat2, root.get(), "etc/ssl/certs/ca-certificates.crt", &how, sizeof how)));
  struct stat st;
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (16 << 20)) return "";
  std::string out(static_cast<size_t>(st.st_size), '\0');
  ssize_t n = ::read(fd.get(), out.data(), out.size());
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

Status WriteSecretFiles(const stdfs::path& session_dir, const bundle::SessionProfile& p, const std::string& session) {
  if (p.secrets.empty()) return Ok();
  SecretPaths paths(session_dir);
  TRY(fs::MkdirAll(paths.dir, 0700));
  auto ca = TRY(net::MakeSessionCa(session));
  TRY(fs::WriteFileAtomic(paths.ca_key, ca.key, 0600));
  net::Wipe(ca.key.data(), ca.key.size());
  TRY(fs::WriteFileAtomic(paths.ca_cert, ca.cert, 0644));
  TRY(fs::WriteFileAtomic(paths.trust, ImageBundle(p.rootfs) + ca.cert, 0644));
  std::vector<net::SecretRuleSpec> rules;
  for (const auto& s : p.secrets) rules.push_back(RuleSpec(s, s.placeholder, ""));
  return fs::WriteFileAtomic(paths.rules, net::FormatSecretRules(rules), 0600);
}

std::vector<std::string> SecretRelayArgs(const stdfs::path& session_dir, const std::string& trust_bundle) {
  SecretPaths paths(session_dir);
  std::vector<std::string> a{"--secrets",        paths.rules.string(),  "--secrets-socket", paths.socket.string(),
                             "--secrets-ca-key", paths.ca_key.string(), "--secrets-ca-cert", paths.ca_cert.string()};
  if (!trust_bundle.empty()) a.insert(a.end(), {"--secrets-trust", trust_bundle});
  return a;
}

Status DeliverSecrets(const stdfs::path& session_dir, const SecretValues& values) {
  for (const auto& [name, value] : values)
    TRY_CTX(net::SendSecret(SecretPaths(session_dir).socket, name, value.View()), "secret " + name);
  return Ok();
}

}  // namespace sandshim::session
