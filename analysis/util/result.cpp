#include "util/result.h"

namespace memcity {

std::string describeAt(const std::string& path, uint64_t offset, const std::string& what) {
    if (offset == kNoOffset) return path + ": " + what;
    return path + ": offset " + std::to_string(offset) + ": " + what;
}

}  // namespace memcity
