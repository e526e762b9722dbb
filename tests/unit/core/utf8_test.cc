#include "shim/core/utf8.h"

#include <doctest/doctest.h>

using namespace sandshim;

TEST_CASE("utf8: what a JSON string may hold") {
  CHECK(ValidUtf8("plain ascii\n"));
  CHECK(ValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  CHECK(ValidUtf8(std::string("a\0b", 3)));
  CHECK_FALSE(ValidUtf8("\xFF"));
  CHECK_FALSE(ValidUtf8("\xC0\xAF"));          // overlong '/'
  CHECK_FALSE(ValidUtf8("\xED\xA0\x80"));      // a surrogate
  CHECK_FALSE(ValidUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  CHECK_FALSE(ValidUtf8("\xE2\x82"));          // cut short
  CHECK(LossyUtf8("a\xFF" "b\xE2\x82") == "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(LossyUtf8("caf\xC3\xA9") == "caf\xC3\xA9");
}

TEST_CASE("utf8: base64 as RFC 4648's test vectors") {
  CHECK(Base64("") == "");
  CHECK(Base64("f") == "Zg==");
  CHECK(Base64("fo") == "Zm8=");
  CHECK(Base64("foo") == "Zm9v");
  CHECK(Base64("foobar") == "Zm9vYmFy");
  CHECK(Base64(std::string("\0\xFF\x01", 3)) == "AP8B");
}
