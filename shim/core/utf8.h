// Text for JSON documents that carry a program's raw output (`session exec --json`): a JSON
// string must be UTF-8, and a program may write any bytes.
#pragma once

#include <string>
#include <string_view>

namespace sandshim {

// Whether s is well-formed UTF-8 (no overlongs, surrogates or code points past U+10FFFF).
bool ValidUtf8(std::string_view s);
// s with every byte that is not part of a well-formed sequence replaced by U+FFFD.
std::string LossyUtf8(std::string_view s);
// RFC 4648 base64 with padding.
std::string Base64(std::string_view s);

}  // namespace sandshim
