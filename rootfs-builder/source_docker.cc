// docker:IMAGE: a local docker daemon's image, through `docker save` (layers + config, so
// Env/Cmd survive, unlike `docker export`). Docker 25+ saves an OCI layout, read exactly as
// oci: is; older daemons a docker archive, verified against the image id (docker_archive.h).
#include "rootfs-builder/digest.h"
#include "rootfs-builder/docker_archive.h"
#include "rootfs-builder/extract.h"
#include "rootfs-builder/sources.h"
#include "shim/core/fs.h"
#include "shim/core/process_run.h"

namespace sandshim::rootfs {

static std::vector<std::string> DockerArgv(const BuildOptions& o, std::vector<std::string> args) {
  std::vector<std::string> argv{"docker"};
  if (!o.docker_host.empty()) argv.insert(argv.end(), {"-H", o.docker_host});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

static Result<std::string> Docker(const BuildOptions& o, std::vector<std::string> args, std::string_view what) {
  process::Command c;
  c.argv = DockerArgv(o, std::move(args));
  c.timeout = std::chrono::minutes(30);
  auto out = TRY_CTX(process::Run(c), std::string(what));
  if (!out.Success()) return MakeError(std::string(what) + ": " + out.Describe(), EIO);
  return out.out;
}

Result<std::string> DockerIdentity(const SourceRef& r, const BuildOptions& o) {
  // The image id is the sha256 of its config, which names its layers' diff ids.
  auto id = TRY(Docker(o, {"image", "inspect", "--format", "{{.Id}}", "--", r.arg}, "docker image inspect " + r.arg));
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  TRY_CTX(ParseDigest(id), "docker image " + r.arg);
  return id;
}

Result<ImageConfig> BuildDocker(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  auto tar = d.work / "image.tar";
  if (o.progress) o.progress->Step("docker save " + r.arg);
  TRY(Docker(o, {"save", "-o", tar.string(), "--", r.arg}, "docker save " + r.arg));
  auto layout = d.work / "layout";
  TRY(fs::MkdirAll(layout, 0700));
  ExtractOptions x = LayoutExtract(o, d);
  x.skip_links = true;  // docker links legacy layer dirs to blobs; only index.json's names are read
  TRY_CTX(Extract(tar, layout, x), "docker save " + r.arg);
  ::unlink(tar.c_str());
  // Docker 25+ saves an OCI layout; older daemons only the docker-archive format.
  Image img = fs::Exists(layout / "index.json") ? TRY_CTX(OpenImage(layout, ""), "docker image " + r.arg)
                                                 : TRY_CTX(OpenDockerArchive(layout, d.identity), "docker image " + r.arg);
  // The key was made from the id inspect gave; the saved image must be that one (a retag in
  // between would otherwise file other content under it).
  if (d.identity != img.manifest.config.digest && d.identity != img.manifest_digest)
    return MakeError("docker image " + r.arg + " changed while saving (id " + d.identity + ")", EAGAIN);
  TRY(ApplyLayers(img, d.rootfs, RootfsExtract(o, d)));
  return img.config;
}

}  // namespace sandshim::rootfs
