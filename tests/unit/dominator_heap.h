// The hand-made heap the dominator tests share (tests/unit/test_dominator_view.cpp and
// tests/cli/test_cli_dominators.cpp): objects 0..8 (ids = positions), sizes in bytes, 248 B in all:
//
//   static A.next -> 0 (A, 16) -> 1 (Object[4], 32) -> 3 (int[10], 56)
//                                                    -> 4 (int[2], 24)
//                    0 -> 2 (B, 24)
//                    0 -> 7 (A, 16) <- 5               7 has two owners: the super-root dominates it
//   stack local   -> 5 (B, 24) -> 6 (B, 24)
//                    8 (int[4], 32): no root reaches it
//
// Dominator tree: super-root -> 0 (retains 0..4: 5 objects, 152 B), 5 (5, 6: 48 B), 7 (16 B);
// 0 -> 1 (112 B), 2 (24 B); 1 -> 3, 4; 5 -> 6.
#pragma once

#include <string>
#include <vector>

#include "unit/trace_builder.h"

namespace memcity::testing {

// The heap at GC 0 with its snapshot, in a trace named `name`; with `unchanged_gc`, a GC 1 after
// it where nothing changed and no snapshot was taken.
inline std::string dominatorHeap(const std::string& name, bool unchanged_gc) {
    using E = std::vector<Edge>;
    TraceBuilder b(name);
    b.alloc(0).allocArray(1, 4, 4).alloc(2, 2).allocArray(3, 3, 10).allocArray(4, 3, 2);
    b.alloc(5, 2).alloc(6, 2).alloc(7).allocArray(8, 3, 4);
    b.gc(0, 9);
    b.snapshot(0,
               {{0, E{TraceBuilder::strong(1), TraceBuilder::strong(2), TraceBuilder::strong(7)}},
                {1, E{TraceBuilder::strong(3), TraceBuilder::strong(4)}},
                {5, E{TraceBuilder::strong(6), TraceBuilder::strong(7)}}},
               {TraceBuilder::staticRoot(0), Root::make(4, 5, {1, 1, 0, 0})});
    if (unchanged_gc) b.gc(1, 9);
    return b.finish();
}

}  // namespace memcity::testing
