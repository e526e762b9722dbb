#include "shim/session/exec/resolve_profile.h"

#include <cctype>

#include "bundle/process.h"
#include "shim/core/fs.h"
#include "shim/session/exec/exec_policy.h"

namespace sandshim::session {

// HTTP_PROXY, https_proxy, NO_PROXY, ALL_PROXY… in either case.
static bool IsProxyVariable(std::string_view k) {
  std::string u(k);
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u == "HTTP_PROXY" || u == "HTTPS_PROXY" || u == "NO_PROXY" || u == "ALL_PROXY" || u == "FTP_PROXY";
}

template <class T>
static void Override(T& field, const std::optional<T>& flag) {
  if (flag) field = *flag;
}

static Status ApplyFlags(const ProfileInputs& in, bundle::SessionProfile& p) {
  Override(p.rootfs, in.rootfs);
  Override(p.workspace, in.workspace);
  Override(p.workspace_dest, in.workspace_dest);
  Override(p.proxy, in.proxy);
  Override(p.hostname, in.hostname);
  Override(p.network, in.network);
  Override(p.network_stack, in.network_stack);
  Override(p.tmp_size, in.tmp_size);
  Override(p.cpus, in.cpus);
  Override(p.pids, in.pids);
  Override(p.allow_private, in.allow_private);
  if (in.memory) p.memory_bytes = TRY(bundle::ParseBytes(*in.memory));
  if (in.read_only_root) p.writable_layer = !*in.read_only_root;
  if (in.user) {
    auto [uid, gid] = TRY(bundle::ParseUser(*in.user));
    p.uid = uid;
    p.gid = gid.value_or(uid);
  }
  for (const auto& m : in.mounts) p.mounts.push_back(TRY(bundle::ParseMount(m)));
  // Egress rules add to the profile's; a policy file replaces the profile's network_policy.
  p.allow_domains.insert(p.allow_domains.end(), in.allow_domains.begin(), in.allow_domains.end());
  p.deny_domains.insert(p.deny_domains.end(), in.deny_domains.begin(), in.deny_domains.end());
  p.allow_cidrs.insert(p.allow_cidrs.end(), in.allow_cidrs.begin(), in.allow_cidrs.end());
  if (in.egress_policy_file)
    p.egress_policy_json = TRY_CTX(fs::ReadFile(*in.egress_policy_file), "--egress-policy");
  if (in.policy_file) p.command_policy_json = TRY_CTX(fs::ReadFile(*in.policy_file), "--policy");
  if (in.sources_file) p.sources_json = TRY_CTX(fs::ReadFile(*in.sources_file), "--sources");
  return Ok();
}

// Env files in order, then --env: a later key wins.
static Status ApplyEnv(const ProfileInputs& in, bundle::SessionProfile& p) {
  for (auto& [k, v] : TRY(bundle::ReadEnvFiles(in.env_files))) p.env.insert_or_assign(k, v);
  for (const auto& kv : in.env) {
    auto [k, v] = TRY(bundle::ParseEnv(kv));
    p.env.insert_or_assign(k, v);
  }
  return Ok();
}

// The base: the given rootfs, else an image (the flag's, the profile's, or the default base)
// built once into the shared cache and reused by every session.
static Status ApplyImage(const ProfileInputs& in, const std::string& profile_image, const RootfsBuilder& build,
                         bundle::SessionProfile& p) {
  std::string image = in.image ? *in.image : profile_image;
  if (in.rootfs) image.clear();  // the command line wins over a profile's image
  if (image.empty() && p.rootfs.empty()) image = std::string(rootfs::kDefaultImage);
  if (image.empty()) return Ok();
  rootfs::BuildOptions o;
  o.cache_dir = in.rootfs_cache;
  o.progress = in.progress;
  auto built = TRY(build(image, o));
  if (in.progress) in.progress->Done();
  p.rootfs = built.rootfs.string();
  // The image's environment (PATH, language versions) under ours: profile and flags win.
  // Never its proxy variables: an image's NO_PROXY=* or HTTP_PROXY would silently steer the
  // sandbox's traffic around the proxy sandshim set (harmless in proxy mode, where the relay
  // is the only way out, but a lie in host mode).
  for (const auto& kv : built.config.env)
    if (auto e = bundle::ParseEnv(kv); e && !p.env.count(e->first) && !IsProxyVariable(e->first))
      p.env.emplace(e->first, e->second);
  return Ok();
}

Result<std::map<std::string, std::string>> EnvFromInputs(const ProfileInputs& in) {
  bundle::SessionProfile p;
  TRY(ApplyEnv(in, p));
  return p.env;
}

Result<bundle::SessionProfile> ResolveProfile(const ProfileInputs& in, const RootfsBuilder& build) {
  bundle::SessionProfile p;
  bundle::ProfileExtras extras;
  if (!in.profile_file.empty()) TRY(bundle::LoadProfileFile(in.profile_file, &p, &extras));
  TRY(ApplyFlags(in, p));
  TRY(ApplyEnv(in, p));
  TRY(ApplyImage(in, extras.image, build, p));
  if (p.workspace.empty()) return MakeError("--workspace is required", EINVAL);
  TRY(bundle::CheckProxyCredentials(p.proxy, p.network));
  TRY(ApplyCommandPolicy(p));
  return p;
}

}  // namespace sandshim::session
