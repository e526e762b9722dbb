// `session create --pool NAME`: claim a pre-booted member of the pool; a miss (empty pool,
// an existing workspace, ...) is created cold from the pool's profile, never an error.
#include <unistd.h>

#include <iostream>

#include "shim/cli/session_common.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/process.h"
#include "shim/runtime/backend_select.h"
#include "shim/session/pool/pool.h"

namespace sandshim::cli {

// Our binary's path. A sealed re-exec (native) runs from a handle no path names: then the
// name we were started by (argv[0], kept by the re-exec), as the shell found it.
static std::string OwnPath() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "";
  if (!exe.empty() && fs::Exists(exe)) return exe;
  auto cmdline = fs::ReadFile("/proc/self/cmdline");
  if (!cmdline || cmdline->empty()) return "";
  std::string argv0 = cmdline->substr(0, cmdline->find('\0'));
  exe = process::FindOnHost(argv0);
  return exe.empty() ? "" : std::filesystem::absolute(exe).string();
}

std::vector<std::string> SelfArgv(const GlobalOpts& g) {
  std::string exe = OwnPath();
  if (exe.empty()) return {};
  std::vector<std::string> argv{exe, "--root", g.root};
  if (!g.backend.empty()) argv.insert(argv.end(), {"--backend", g.backend});
  for (const auto& f : g.runsc_flags) argv.push_back("--runsc-flag=" + f);
  if (!g.log_file.empty()) argv.insert(argv.end(), {"--log", g.log_file, "--log-format", g.log_format});
  return argv;
}

// `sandshim [our global flags] pool fill NAME`, run by the refill in the background.
std::vector<std::string> RefillArgv(const GlobalOpts& g, const std::string& pool) {
  auto argv = SelfArgv(g);
  if (argv.empty()) return {};
  argv.insert(argv.end(), {"pool", "fill", pool});
  return argv;
}

// The pool's profile decides everything but what a claim binds.
static Status OnlyClaimFlags(const session::ProfileInputs& in) {
  auto refuse = [](bool given, const char* flag) -> Status {
    if (given) return MakeError(std::string(flag) + " comes from the pool's profile (not with --pool)", EINVAL);
    return Ok();
  };
  TRY(refuse(!in.profile_file.empty(), "--profile"));
  TRY(refuse(in.rootfs || in.image, "--rootfs/--image"));
  TRY(refuse(in.workspace_dest || in.proxy || in.hostname || in.network || in.tmp_size, "--workspace-dest/--proxy/--hostname/--network/--tmp-size"));
  TRY(refuse(in.memory || in.cpus || in.pids || in.user || in.read_only_root, "--memory/--cpus/--pids/--user/--read-only-root"));
  TRY(refuse(in.allow_private || in.egress_policy_file || !in.mounts.empty(), "--allow-private/--egress-policy/--mount"));
  return Ok();
}

int CreateFromPool(const GlobalOpts& g, const std::string& pool_name, std::string id, const std::string& name,
                   session::ProfileInputs in, const bundle::SessionProfile& secrets,
                   const std::vector<std::string>& resolve, bool json) {
  auto fail = [&](const Error& e) { return ExitWith(Status(e.Wrap("session create --pool " + pool_name))); };
  if (auto s = OnlyClaimFlags(in); !s) return fail(s.error());
  if (id.empty()) {
    auto made = NewId("s-");
    if (!made) return fail(made.error());
    id = *made;
  }
  auto opts = RuntimeOptions(g);
  if (!opts) return fail(opts.error());
  // A native cold create re-executes sandshim sealed: before the claim, not in the middle.
  if (g.backend == "native" || (g.backend.empty() && opts->config.backend == "native")) {
    runtime::EnsureSealedFor(runtime::TraitsOf("native"));
  }
  session::ClaimRequest req{.id = id, .name = name, .workspace = in.workspace.value_or("")};
  auto env = session::EnvFromInputs(in);
  if (!env) return fail(env.error());
  req.env = *env;
  req.allow_domains = in.allow_domains;
  req.deny_domains = in.deny_domains;
  req.allow_cidrs = in.allow_cidrs;
  req.resolve = resolve;
  if (in.policy_file) {
    auto text = fs::ReadFile(*in.policy_file);
    if (!text) return fail(text.error().Wrap("--policy"));
    req.command_policy_json = *text;
  }
  if (in.sources_file) {
    auto text = fs::ReadFile(*in.sources_file);
    if (!text) return fail(text.error().Wrap("--sources"));
    req.sources_json = *text;
  }
  req.secrets = secrets.secrets;
  req.secret_sources = secrets.secret_sources;
  req.secret_trust_bundle = secrets.secret_trust_bundle;
  session::Pool pool(*opts, pool_name, RefillArgv(g, pool_name));
  auto out = pool.Claim(req);
  if (!out) return fail(out.error());
  auto r = out->session ? Result<session::SessionRecord>(*out->session) : pool.CreateCold(req, in, out->miss.reason);
  if (!r) return fail(r.error());
  if (json) {
    auto o = SessionJson(*r);
    o["pool"] = {{"name", pool_name}, {"claimed", out->session.has_value()}, {"member", out->member},
                 {"miss", out->miss.reason}};
    PrintJson(o);
  } else {
    std::cout << r->id << "\t" << r->backend << "\t" << r->workspace << "\n";
  }
  return 0;
}

}  // namespace sandshim::cli
