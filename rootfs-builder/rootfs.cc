#include "rootfs-builder/rootfs.h"

#include <unistd.h>

#include "rootfs-builder/digest.h"
#include "rootfs-builder/sources.h"
#include "shim/core/remove_tree.h"
#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/scope_exit.h"

namespace sandshim::rootfs {

// Part of every key: bump it when a builder's output for the same input changes.
// 2: setuid/setgid bits, file caps and device nodes stripped unless --keep-privileged.
static constexpr std::string_view kBuilderVersion = "sandshim-rootfs/2";

static Result<std::string> Identity(const SourceRef& r, const BuildOptions& o) {
  switch (r.kind) {
    case SourceKind::kBusybox: return BusyboxIdentity(o);
    case SourceKind::kDebootstrap: return DebootstrapIdentity(r, o);
    case SourceKind::kDocker: return DockerIdentity(r, o);
    case SourceKind::kOci: return OciIdentity(r);
    case SourceKind::kOciArchive: return OciArchiveIdentity(r);
    case SourceKind::kTar: return TarIdentity(r);
  }
  return MakeError("unknown source kind", EINVAL);
}

// A kept-privileged build is other content than a stripped one of the same image.
static std::string KeyOf(const SourceRef& r, const std::string& identity, bool keep_privileged) {
  return Sha256Hex(std::string(kBuilderVersion) + "\n" + std::string(KindName(r.kind)) + "\n" + identity +
                   (keep_privileged ? "\nkeep-privileged" : ""));
}

Result<std::string> KeyFor(const SourceRef& ref, const BuildOptions& opts) {
  return KeyOf(ref, TRY_CTX(Identity(ref, opts), ToString(ref)), opts.keep_privileged);
}

Result<std::string> ResolveKey(const std::string& key_or_source, const BuildOptions& opts) {
  if (IsKey(key_or_source)) return key_or_source;
  return KeyFor(TRY(ParseSourceRef(key_or_source)), opts);
}

static Result<ImageConfig> Build(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  switch (r.kind) {
    case SourceKind::kBusybox: return BuildBusybox(o, d);
    case SourceKind::kDebootstrap: return BuildDebootstrap(r, o, d);
    case SourceKind::kDocker: return BuildDocker(r, o, d);
    case SourceKind::kOci: return BuildOci(r, o, d);
    case SourceKind::kOciArchive: return BuildOciArchive(r, o, d);
    case SourceKind::kTar: return BuildTar(r, o, d);
  }
  return MakeError("unknown source kind", EINVAL);
}

static BuiltRootfs Reused(const CacheEntry& e, const std::string& source) {
  return {e.key, e.rootfs, e.source.empty() ? source : e.source, e.config, true, e.keep_privileged};
}

Result<BuiltRootfs> BuildOrReuse(const std::string& source_ref, const BuildOptions& opts) {
  SourceRef ref = TRY(ParseSourceRef(source_ref));
  std::string source = ToString(ref);
  std::string identity = TRY_CTX(Identity(ref, opts), source);
  std::string key = KeyOf(ref, identity, opts.keep_privileged);
  Cache cache(opts.cache_dir);
  if (auto e = TRY(cache.Find(key))) return Reused(*e, source);
  Budget budget = opts.limits ? *opts.limits : TRY(BudgetFromEnv());

  TRY(cache.Create());
  UniqueFd lock = TRY(cache.Lock(key));
  // Whoever held the lock before us may have built it: then we are done.
  if (auto e = TRY(cache.Find(key))) return Reused(*e, source);

  auto tmp = TRY(cache.MakeTemp(key));
  ScopeExit cleanup([&] { (void)fs::RemoveTree(tmp); });
  BuildDirs dirs{tmp / "rootfs", tmp / "work", identity, &budget};
  TRY(fs::MkdirAll(dirs.rootfs, 0755));
  TRY(fs::MkdirAll(dirs.work, 0700));
  log::Debug("rootfs: building " + source + " as " + key);
  ImageConfig config = TRY_CTX(Build(ref, opts, dirs), "rootfs build " + source);
  TRY(fs::RemoveTree(dirs.work));

  CacheEntry e;
  e.key = key;
  e.source = source;
  e.created = log::NowRfc3339();
  e.config = config;
  e.keep_privileged = opts.keep_privileged;
  TRY(cache.Publish(tmp, e));
  cleanup.Dismiss();
  return BuiltRootfs{key, cache.EntryDir(key) / "rootfs", source, config, false, opts.keep_privileged};
}

}  // namespace sandshim::rootfs
