// Names from untrusted archives end up in error messages the operator reads on a terminal
// (review L10): they are quoted with every byte outside printable ASCII, and '"' and '\',
// escaped as \xNN / \" / \\, so a name cannot move the cursor, recolour or retitle it.
#pragma once

#include <string>
#include <string_view>

namespace sandshim::rootfs {

std::string Quoted(std::string_view s);  // "a\x1b[2Jb" for a, ESC [ 2 J, b

}  // namespace sandshim::rootfs
