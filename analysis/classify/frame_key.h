// The key the `site` and `domain` classifiers give a frame (method id in the high half, line + 1
// in the low half), and the frame back from such a key: a tree node made by those classifiers
// names its frame exactly, where its label may be shared (overloads without line numbers).
#pragma once

#include "classify/classifier.h"
#include "trace/symbols.h"

namespace memcity {

Key frameKey(const Frame& f);
Frame keyFrame(Key k);

}  // namespace memcity
