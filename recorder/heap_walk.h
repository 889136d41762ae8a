// Heap walks: tagging the objects that exist when recording begins, and the reference snapshot
// (references between objects, and GC roots) after a GC.
#pragma once

#include <cstdint>

namespace memcity::agent {

class Recorder;

// Gives every object allocated before recording began an id and an allocation event
// (site unknown, thread unknown). Classes must be tagged already.
void tagExistingObjects(Recorder& recorder);

// Follows every reference from the GC roots and writes them as the snapshot of GC `gc`:
// references grouped by object as the VM reports them, weak/soft/phantom referents marked,
// roots with their details. Objects met untagged are given ids and allocation events.
void walkHeap(Recorder& recorder, uint32_t gc);

}  // namespace memcity::agent
