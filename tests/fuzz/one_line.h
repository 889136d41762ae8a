// What every fuzz target asks of an error: a message, on one line. A breach aborts (a finding).
#pragma once

#include <cstdlib>
#include <string>

#include "util/result.h"

namespace memcity::fuzz {

inline void oneLine(const Error& e) {
    if (e.message.empty() || e.message.find('\n') != std::string::npos) std::abort();
}

// Whether `r` holds a value; an error must be one line.
template <typename T>
bool good(const Result<T>& r) {
    if (!r.ok()) oneLine(r.error());
    return r.ok();
}

}  // namespace memcity::fuzz
