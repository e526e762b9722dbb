#include "shim/net/session_ca.h"

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "shim/net/domain_rules.h"

namespace sandshim::net {

namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;
using Bio = std::unique_ptr<BIO, Free>;

Error SslError(const std::string& what) {
  char buf[256] = "unknown error";
  if (unsigned long e = ERR_get_error()) ERR_error_string_n(e, buf, sizeof buf);
  ERR_clear_error();
  return MakeError(what + ": " + buf, EIO);
}

Result<Key> NewEcKey() {
  Key k(EVP_EC_gen("P-256"));
  if (!k) return SslError("EC key");
  return k;
}

std::string KeyPem(EVP_PKEY* k) {
  Bio b(BIO_new(BIO_s_mem()));
  if (!b || !PEM_write_bio_PrivateKey(b.get(), k, nullptr, nullptr, 0, nullptr, nullptr)) return "";
  char* data = nullptr;
  long n = BIO_get_mem_data(b.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

std::string CertPem(X509* c) {
  Bio b(BIO_new(BIO_s_mem()));
  if (!b || !PEM_write_bio_X509(b.get(), c)) return "";
  char* data = nullptr;
  long n = BIO_get_mem_data(b.get(), &data);
  return std::string(data, static_cast<size_t>(n));
}

Status AddExt(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (!ext) return SslError("certificate extension " + value);
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (!ok) return SslError("add extension");
  return Ok();
}

// A certificate for subject key `key`, named cn, signed by signer (itself when issuer is null).
Result<Cert> NewCert(EVP_PKEY* key, const std::string& cn, X509* issuer, EVP_PKEY* signer, long days) {
  Cert c(X509_new());
  if (!c) return SslError("X509_new");
  X509_set_version(c.get(), 2);
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return SslError("serial");
  serial[0] &= 0x7f;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(c.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(c.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(c.get()), days * 86400);
  X509_set_pubkey(c.get(), key);
  X509_NAME* name = X509_get_subject_name(c.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(c.get(), issuer ? X509_get_subject_name(issuer) : name);
  X509* iss = issuer ? issuer : c.get();
  if (!issuer) {
    TRY(AddExt(c.get(), iss, NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
    TRY(AddExt(c.get(), iss, NID_key_usage, "critical,keyCertSign,cRLSign"));
    TRY(AddExt(c.get(), iss, NID_subject_key_identifier, "hash"));
  } else {
    TRY(AddExt(c.get(), iss, NID_basic_constraints, "critical,CA:FALSE"));
    TRY(AddExt(c.get(), iss, NID_key_usage, "critical,digitalSignature"));
    TRY(AddExt(c.get(), iss, NID_ext_key_usage, "serverAuth"));
    TRY(AddExt(c.get(), iss, NID_subject_key_identifier, "hash"));
    TRY(AddExt(c.get(), iss, NID_authority_key_identifier, "keyid:always"));
    TRY(AddExt(c.get(), iss, NID_subject_alt_name, (IsIpLiteral(cn) ? "IP:" : "DNS:") + cn));
  }
  if (!X509_sign(c.get(), signer, EVP_sha256())) return SslError("sign certificate");
  return c;
}

}  // namespace

struct LeafMinter::Keys {
  Key ca_key, leaf_key;
  Cert ca_cert;
};

LeafMinter::LeafMinter() = default;
LeafMinter::~LeafMinter() = default;
LeafMinter::LeafMinter(LeafMinter&&) noexcept = default;
LeafMinter& LeafMinter::operator=(LeafMinter&&) noexcept = default;

Result<CaPem> MakeSessionCa(std::string_view session) {
  auto key = TRY(NewEcKey());
  auto cert = TRY(NewCert(key.get(), "sandshim session " + std::string(session) + " CA", nullptr, key.get(), 3650));
  CaPem pem{KeyPem(key.get()), CertPem(cert.get())};
  if (pem.key.empty() || pem.cert.empty()) return SslError("session CA: PEM");
  return pem;
}

Result<LeafMinter> LeafMinter::Load(std::string_view key_pem, std::string_view cert_pem) {
  LeafMinter m;
  m.keys_ = std::make_unique<Keys>();
  Bio kb(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  m.keys_->ca_key.reset(PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr));
  if (!m.keys_->ca_key) return SslError("session CA key");
  Bio cb(BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())));
  m.keys_->ca_cert.reset(PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr));
  if (!m.keys_->ca_cert) return SslError("session CA certificate");
  if (X509_check_private_key(m.keys_->ca_cert.get(), m.keys_->ca_key.get()) != 1)
    return SslError("session CA: key and certificate do not match");
  // One key for every leaf: minting a host then costs one signature, not a key generation.
  m.keys_->leaf_key = TRY(NewEcKey());
  return m;
}

Result<std::shared_ptr<boost::asio::ssl::context>> LeafMinter::ContextFor(const std::string& host) {
  if (auto it = cache_.find(host); it != cache_.end()) return it->second;
  auto leaf = TRY(NewCert(keys_->leaf_key.get(), host, keys_->ca_cert.get(), keys_->ca_key.get(), 30));
  auto ctx = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_server);
  SSL_CTX* raw = ctx->native_handle();
  SSL_CTX_set_min_proto_version(raw, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate(raw, leaf.get()) != 1) return SslError("leaf certificate");
  if (SSL_CTX_use_PrivateKey(raw, keys_->leaf_key.get()) != 1) return SslError("leaf key");
  // The chain the client checks: leaf, then our CA (which it trusts through its bundle).
  X509_up_ref(keys_->ca_cert.get());
  SSL_CTX_add_extra_chain_cert(raw, keys_->ca_cert.get());
  cache_.emplace(host, ctx);
  return ctx;
}

}  // namespace sandshim::net
