#include "trace/trace_format.h"

namespace memcity::format {

std::string_view eventKindName(uint32_t kind) {
    switch (static_cast<EventKind>(kind)) {
        case EventKind::kAlloc: return "alloc";
        case EventKind::kAllocArray: return "alloc-array";
        case EventKind::kDeaths: return "deaths";
        case EventKind::kGcStart: return "gc-start";
        case EventKind::kGcEnd: return "gc-end";
        case EventKind::kThread: return "thread";
        case EventKind::kThreadStart: return "thread-start";
        case EventKind::kThreadEnd: return "thread-end";
        case EventKind::kMove: return "move";
        case EventKind::kExtension: return "extension";
    }
    return "unknown";
}

std::string_view gcKindName(uint32_t kind) {
    switch (static_cast<GcKind>(kind)) {
        case GcKind::kUnknown: return "unknown";
        case GcKind::kMinor: return "young";
        case GcKind::kMajor: return "full";
        case GcKind::kConcurrent: return "concurrent";
    }
    return "unknown";
}

std::string_view builtinRootKindName(uint32_t kind) {
    switch (static_cast<RootKind>(kind)) {
        case RootKind::kJniGlobal: return "JNI global";
        case RootKind::kSystemClass: return "system class";
        case RootKind::kMonitor: return "monitor";
        case RootKind::kStackLocal: return "stack local";
        case RootKind::kJniLocal: return "JNI local";
        case RootKind::kThread: return "thread";
        case RootKind::kOther: return "other";
        case RootKind::kStaticField: return "static field";
        case RootKind::kBuiltinCount: break;
    }
    return "unknown root kind";
}

}  // namespace memcity::format
