// The raw heap dumps `memcity dump` asks a JVM for, before they are imported.
#pragma once

#include <sys/types.h>

#include <string>

#include "util/result.h"

namespace memcity::cli {

// Checks that `path` is the dump a JVM has just written for us and nothing else: a regular
// file (lstat: not a link, a FIFO or a directory in its place), owned by `owner` (the JVM's
// user, which memcity dump requires to be its own), with one name (not a hard link to a file
// elsewhere), and not empty. The caller makes sure that nothing was at `path` before it asked
// (a fresh private directory). Error: one line naming the path and what is wrong.
Status checkWrittenDump(const std::string& path, uid_t owner);

}  // namespace memcity::cli
