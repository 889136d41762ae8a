// Objects and their shallow bytes: what a group, a cohort of a diff or churn, or a closure holds.
// One type for them all (SeriesCounts, DiffCounts and ChurnCounts name it where they are read).
#pragma once

#include <cstdint>

namespace memcity {

struct Sizes {
    uint64_t objects = 0;
    uint64_t bytes = 0;  // shallow bytes

    Sizes& operator+=(const Sizes& o) {
        objects += o.objects;
        bytes += o.bytes;
        return *this;
    }
    bool operator==(const Sizes&) const = default;
};

}  // namespace memcity
