// oci:DIR[:TAG] and oci-archive:FILE[:TAG]: an OCI image layout, on disk or in a tar.
// The key comes from one read of index.json and the build from another, so each build checks
// that the image it opened is the one the key names (CheckIdentity), and every blob is read
// once through an fd and verified on those bytes: what the key names is what lands (H4).
#include <unistd.h>

#include "rootfs-builder/blob.h"
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

ExtractOptions RootfsExtract(const BuildOptions& o, const BuildDirs& d) {
  ExtractOptions x;
  x.keep_privileged = o.keep_privileged;
  x.progress = o.progress;
  x.budget = d.budget;
  return x;
}

ExtractOptions LayoutExtract(const BuildOptions& o, const BuildDirs& d) {
  ExtractOptions x;
  x.whiteouts = false;  // the archive holds blobs, not a filesystem
  x.same_owner = false;
  x.layout = true;
  x.progress = o.progress;
  x.budget = d.budget;
  return x;
}

Status CheckIdentity(const Image& img, const BuildDirs& d, const std::string& what) {
  if (img.manifest_digest == d.identity) return Ok();
  return MakeError(what + ": the image is " + img.manifest_digest + ", not " + d.identity +
                       " as when its key was computed (changed in between)",
                   EAGAIN);
}

Status ApplyLayers(const Image& img, const std::filesystem::path& rootfs, const ExtractOptions& x) {
  size_t n = img.manifest.layers.size();
  for (size_t i = 0; i < n; ++i) {
    const Descriptor& l = img.manifest.layers[i];
    std::string what = "layer " + std::to_string(i + 1) + "/" + std::to_string(n) + " " + l.digest.substr(0, 19);
    if (x.progress) x.progress->Step("verifying " + what);
    UniqueFd fd = TRY_CTX(OpenBlob(img.dir, img.BlobRel(l)), what);
    TRY_CTX(VerifyFd(fd.get(), l.digest, l.size), what);
    if (x.progress) x.progress->Step("extracting " + what);
    ExtractOptions o = x;
    o.whiteouts = true;
    o.digest = l.digest;  // verified again while read: the check and the use see the same bytes
    TRY_CTX(ExtractFd(fd.get(), what, rootfs, o), what);
  }
  if (x.progress) x.progress->Done();
  return Ok();
}

Result<ImageConfig> BuildOci(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  Image img = TRY_CTX(OpenImage(r.arg, r.tag), "oci " + r.arg);
  TRY(CheckIdentity(img, d, "oci " + r.arg));
  TRY(ApplyLayers(img, d.rootfs, RootfsExtract(o, d)));
  return img.config;
}

Result<ImageConfig> BuildOciArchive(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  auto layout = d.work / "layout";
  TRY(fs::MkdirAll(layout, 0700));
  if (o.progress) o.progress->Step("unpacking " + r.arg);
  TRY_CTX(Extract(r.arg, layout, LayoutExtract(o, d)), "oci-archive " + r.arg);
  Image img = TRY_CTX(OpenImage(layout, r.tag), "oci-archive " + r.arg);
  TRY(CheckIdentity(img, d, "oci-archive " + r.arg));
  TRY(ApplyLayers(img, d.rootfs, RootfsExtract(o, d)));
  return img.config;
}

Result<std::string> TarIdentity(const SourceRef& r) { return TRY_CTX(Sha256File(r.arg), "tar"); }

Result<ImageConfig> BuildTar(const SourceRef& r, const BuildOptions& o, const BuildDirs& d) {
  if (o.progress) o.progress->Step("extracting " + r.arg);
  ExtractOptions x = RootfsExtract(o, d);
  x.whiteouts = false;  // a plain root filesystem: ".wh." names are just names
  // The key is the sha256 of an earlier read of the file: the bytes extracted now must hash
  // to it too, or the entry is not published (the file changed in between).
  x.digest = "sha256:" + d.identity;
  TRY_CTX(Extract(r.arg, d.rootfs, x), "tar " + r.arg);
  if (o.progress) o.progress->Done();
  ImageConfig c;
  c.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  c.cmd = {"/bin/sh"};
  return c;
}

}  // namespace sandshim::rootfs
