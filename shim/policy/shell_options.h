// One table of the shell options known not to change how a shell reads or runs what follows
// (#33, polred2 F1, F4): for `set`, for a shell's own command line (`bash -eu -o pipefail -c`)
// and for bash's `-O`/`shopt` names. Every other option asks, wherever it is given: history
// expansion (`set -H`, `set -o history`) rewrites later lines after the parser read them,
// keyword (`-k`) makes every NAME=V argument an assignment, stdin (`sh -o stdin -c`) reads a
// second script from stdin, allexport exports every assignment, extglob and expand_aliases
// change the grammar. The table is of the good ones: an option this code has not been told
// about asks. Turning an option off is judged by the same table plus the ones whose being off
// is the shell's default (history expansion, keyword, allexport, onecmd). Pure code.
#pragma once

#include <string_view>

namespace sandshim::policy {

// A single-letter option: `on` for -X, false for +X.
bool IsKnownShellLetter(char c, bool on);
// A `-o NAME` / `+o NAME` option.
bool IsKnownShellOptionName(std::string_view name, bool on);
// A bash `-O NAME` / `shopt -s NAME` option (`+O` / `shopt -u` turn one off).
bool IsKnownShoptName(std::string_view name, bool on);

}  // namespace sandshim::policy
