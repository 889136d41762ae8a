// tags.h: what the agent's JVMTI tags mean. Every tag the agent sets is one of these:
//   id + 1                      an object of the trace whose death ObjectFree tells
//   kWeakTagBit | id + 1        an object of the trace whose death a weak reference tells (a heap
//                               walk names it by this tag; its ObjectFree is nobody's)
//   kAliasTagBit | id + 1       stands for object `id` without being its tag (see Recorder::onAlloc)
//   kClassTagBit | index        a class's mirror, by its ClassRegistry index
//   kAgentObjectTag             an object of the agent's own, never in the trace
#pragma once

#include <jvmti.h>

#include <cstdint>

namespace memcity::agent {

inline constexpr jlong kClassTagBit = jlong{1} << 62;
inline constexpr jlong kAliasTagBit = jlong{1} << 61;
inline constexpr jlong kWeakTagBit = jlong{1} << 60;
inline constexpr uint32_t kNoClass = ~uint32_t{0};
inline constexpr uint64_t kNoObject = ~uint64_t{0};
// The class bit with no class: heap walks neither record such an object nor follow it, and its
// death is nobody's.
inline constexpr jlong kAgentObjectTag = kClassTagBit | jlong{kNoClass};

// The object id a tag names: an object tag, an alias or a walk's tag (not a class tag).
inline uint64_t objectIdOfTag(jlong tag) {
    return static_cast<uint64_t>((tag & ~(kAliasTagBit | kWeakTagBit)) - 1);
}
// A sampled snapshot names the objects that are no samples by their addresses, from here up (an
// id above every sample's: ids are counted from 0, one per sample).
inline constexpr uint64_t kUnsampledIdBase = uint64_t{1} << 48;

}  // namespace memcity::agent
