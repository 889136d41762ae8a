// Session's private part shared by its files (session*.cpp): what the workers hand over.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "explore/session.h"

namespace memcity::explore {

// What the workers hand over; update() adopts it on the window's thread.
struct Session::Pending {
    std::mutex mutex;
    // Series.
    uint64_t series_request = 0;
    std::shared_ptr<const TreeSeries> series;
    std::shared_ptr<const ClassifierChain> chain;
    std::optional<std::string> series_error;
    // Inspection.
    std::optional<Inspection> inspection;
    std::optional<std::pair<uint64_t, std::string>> inspection_error;
    // Table sizes.
    std::optional<std::pair<uint32_t, std::map<uint32_t, GroupSizes>>> sizes;  // (gc, sizes)
};

}  // namespace memcity::explore
