// What the analysis fuzz targets share: the analysis pipeline on a trace (what memcity's
// report, inspect, diff, churn, series and windows commands compute), and a reader of fuzz input
// bytes that never runs out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "heap/heap_history.h"

namespace memcity::fuzz {

// Runs the analysis on `history`: suspicious windows; at one GC the classification tree with its
// members, closures (retained sizes), a group report (root paths) and the dominator tree when
// the GC has a reference snapshot; the diff, churn and tree series between GC 0 and the last.
// `choice` picks the classifier chain, the filter and the GC (its parts pick independently).
// Every failure must be a one-line error; anything else aborts (a finding).
void analyseHistory(const HeapHistory& history, uint64_t choice);

// A directory of this process's own in the temp directory (made on first use): the targets
// write their files there.
const std::string& workDirectory();

// Reads fuzz input front to back; past its end every read gives 0.
class ByteReader {
public:
    ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
    uint16_t u16() { return static_cast<uint16_t>(u8() | u8() << 8); }
    uint32_t u32() { return u16() | uint32_t{u16()} << 16; }
    bool empty() const { return at_ >= size_; }
    size_t left() const { return at_ < size_ ? size_ - at_ : 0; }

private:
    const uint8_t* data_;
    size_t size_;
    size_t at_ = 0;
};

}  // namespace memcity::fuzz
