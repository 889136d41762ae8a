// Classifiers loaded from shared libraries through the C ABI of memcity_plugin.h: the
// `plugin(path=FILE,PARAM=VALUE,...)` items of a classifier chain (docs/plugins.md).
#pragma once

#include <memory>
#include <string_view>

#include "classify/classifier.h"

namespace memcity {

// True for a chain item that names a plugin: "plugin" or "plugin(...)".
bool isPluginSpec(std::string_view item);

// Loads the shared library that `item` names with path= (relative paths are taken from the
// current directory: the command line's), checks its descriptor and makes an instance with the
// item's other parameters. A library is opened once per file (its resolved path, modification
// time, size and inode) and stays open; a changed file is opened anew. A value may be quoted ("..." with \"
// and \\) to hold commas or parentheses. Errors are one line that starts with "classifier 'ITEM': " and says
// what failed: the file (cannot open, not a shared object: the dynamic loader's text), the entry symbol, the
// ABI version, the descriptor (cardinality, functions) or the plugin's own init message.
Result<std::unique_ptr<Classifier>> loadPluginClassifier(std::string_view item);

// Checks a plugin item without loading anything (for an editor, as the user types): its syntax,
// and, where `absolute_only`, that its path= is absolute. Error: one line, as loadPluginClassifier's.
Status checkPluginSpec(std::string_view item, bool absolute_only);

// How many times the loader has opened a library (dlopen) in this process.
size_t pluginLibraryLoads();

// The first breach of contract by a plugin classifier of `chain` while it classified objects
// (more keys than the capacity, none where one is due, a reserved key), or ok. The objects
// concerned are put under the group "(plugin error)"; commands that build trees check this
// afterwards and fail with the message.
Status pluginErrors(const ClassifierChain& chain);

}  // namespace memcity
