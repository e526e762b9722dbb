// Which variable assignments the policy lets through without asking (#33, polred2 F2, F11).
// A variable can move a program's configuration (XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL,
// OPENSSL_CONF, PIP_CONFIG_FILE), its options (TAR_OPTIONS, MAKEFLAGS), the programs it runs
// (PAGER, SSH_ASKPASS, RUSTC_WRAPPER, CC) or the code a shell or the loader runs (BASH_ENV,
// LD_PRELOAD): hundreds of names, read by every tool its own way. A list of the bad ones was
// always one name short, so this is the list of the good ones: names known to be read by no
// system program as a path, a program, options or code. Any other assignment asks, whether it
// is a prefix (`NAME=V cmd`), `env NAME=V`, `export`/`readonly`/`local`/`read NAME`, the
// exec's own environment (`session exec -e NAME=V`), or a name the persistent shell would
// carry into the next exec. Pure code.
#pragma once

#include <string_view>

namespace sandshim::policy {

// bash evaluates an indexed array's subscript as arithmetic, and a name in it recursively,
// with the $( ) that name's value holds: x='b[$(id)]'; printf -v 'a[x]' 1 runs id with no $
// in sight (polred r4 R2). True when `kv` (NAME, NAME=V, NAME[K]=V) has no subscript or one of
// digits only (or @ and *, the whole array); an assignment with any other is not inert.
bool LiteralSubscript(std::string_view kv);
// `kv` is NAME=VALUE (NAME+=VALUE and NAME[KEY]=VALUE too); `value_known`: false when the
// value is known only at run time (then only names inert whatever their value pass).
bool IsInertAssignment(std::string_view kv, bool value_known = true);
// The opposite, as the judge and the persistent shell ask it.
inline bool IsDangerousAssignment(std::string_view kv) { return !IsInertAssignment(kv); }

}  // namespace sandshim::policy
