// Files named inside a tool's own program text or object names (#33, polred2 F5, F9): sed's
// `r FILE`, `R`, `w`, `W` and `s///w FILE` (and `e`, which runs a command), awk's getline,
// output redirections, pipes and system(); git's `REV:PATH`, `:PATH` and `:N:PATH` object
// names, and git commands that print whole commits or trees (`git show REV`, `git log -p`,
// `git diff --cached`), which read every tracked file from the object store. The file rules
// must see these as the reads and writes they are: the mounts see only the work tree, never
// the object store, and a sed or awk program is an operand no other model opens. What cannot
// be read exactly (a program known only at run time, from a file, or with a construct not
// modeled) is uncertain: the policy asks. Pure code.
#pragma once

#include <string_view>
#include <vector>

#include "shim/policy/file_access.h"

namespace sandshim::policy {

// sed [OPTION]... {SCRIPT | -e SCRIPT... | -f FILE...} [FILE]...: its operands and the files
// its program names.
PathsFound SedPaths(const std::vector<Word>& argv);
// awk [-F FS] [-v V=X] {PROGRAM | -f FILE} [FILE | V=X]...: the same, where the program may
// open or run nothing it names (getline, >, |, system(), @include: uncertain).
PathsFound AwkPaths(const std::vector<Word>& argv);
// git: the paths its object names read, added to `found` (the rest of git's arguments are
// judged as any command's).
void AddGitObjectReads(const std::vector<Word>& argv, PathsFound& found);

}  // namespace sandshim::policy
