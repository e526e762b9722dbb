// oci:DIR[:TAG] and oci-archive:FILE[:TAG]: an OCI image layout, on disk or in a tar.
#include "rootfs-builder/digest.h"
#include "rootfs-builder/extract.h"
#include "rootfs-builder/sources.h"
#include "shim/core/fs.h"

namespace sandshim::rootfs {

Result<std::string> OciIdentity(const SourceRef& r) { return TRY(ResolveTop(r.arg, r.tag)).digest; }

Result<std::string> OciArchiveIdentity(const SourceRef& r) {
  // index.json alone names the image; no need to unpack the archive to know the key.
  auto index = TRY_CTX(ReadArchiveMember(r.arg, "index.json"), "oci-archive");
  return TRY_CTX(SelectByTag(TRY(ParseIndex(index)), r.tag), "oci-archive " + r.arg).digest;
}

Status ApplyLayers(const Image& img, const std::filesystem::path& rootfs, Progress* progress) {
  size_t n = img.manifest.layers.size();
  for (size_t i = 0; i < n; ++i) {
    const Descriptor& l = img.manifest.layers[i];
    std::string what = "layer " + std::to_string(i + 1) + "/" + std::to_string(n) + " " + l.digest.substr(0, 19);
    if (progress) progress->Step("verifying " + what);
    TRY_CTX(VerifyBlob(img.Blob(l), l.digest, l.size), what);
    if (progress) progress->Step("extracting " + what);
    ExtractOptions o;
    o.whiteouts = true;
    o.progress = progress;
    o.digest = l.digest;  // verified again while read: the check and the use see the same bytes
    TRY_CTX(Extract(img.Blob(l), rootfs, o), what);
  }
  if (progress) progress->Done();
  return Ok();
}

Result<ImageConfig> BuildOci(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  Image img = TRY_CTX(OpenImage(r.arg, r.tag), "oci " + r.arg);
  TRY(ApplyLayers(img, d.rootfs, o.progress));
  return img.config;
}

Result<ImageConfig> BuildOciArchive(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  auto layout = d.work / "layout";
  TRY(fs::MkdirAll(layout, 0700));
  if (o.progress) o.progress->Step("unpacking " + r.arg);
  ExtractOptions x;
  x.whiteouts = false;  // the archive holds blobs, not a filesystem
  x.same_owner = false;
  x.progress = o.progress;
  TRY_CTX(Extract(r.arg, layout, x), "oci-archive " + r.arg);
  Image img = TRY_CTX(OpenImage(layout, r.tag), "oci-archive " + r.arg);
  TRY(ApplyLayers(img, d.rootfs, o.progress));
  return img.config;
}

Result<std::string> TarIdentity(const SourceRef& r) { return TRY_CTX(Sha256File(r.arg), "tar"); }

Result<ImageConfig> BuildTar(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  if (o.progress) o.progress->Step("extracting " + r.arg);
  ExtractOptions x;
  x.whiteouts = false;  // a plain root filesystem: ".wh." names are just names
  x.progress = o.progress;
  TRY_CTX(Extract(r.arg, d.rootfs, x), "tar " + r.arg);
  if (o.progress) o.progress->Done();
  ImageConfig c;
  c.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  c.cmd = {"/bin/sh"};
  return c;
}

}  // namespace sandshim::rootfs
