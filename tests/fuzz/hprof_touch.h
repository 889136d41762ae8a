// A visitor of HPROF records for the fuzz targets: it reads every byte of every span it is
// handed (so that a span past the input is a finding) and checks an object array's span length.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>

#include "hprof/hprof_reader.h"

namespace memcity::fuzz {

struct Touch final : hprof::Visitor {
    uint32_t ids = 4;
    uint64_t sum = 0;

    void add(std::span<const uint8_t> s) {
        for (uint8_t b : s)
            sum += b;
    }
    void header(const hprof::Header& h) override { ids = h.id_size; }
    void string(uint64_t id, std::string_view s) override {
        sum += id;
        for (char c : s)
            sum += static_cast<uint8_t>(c);
    }
    void stackTrace(const hprof::StackTrace& t) override { sum += t.frame_ids.size(); }
    void classDump(const hprof::ClassDump& d) override { sum += d.fields.size() + d.statics.size(); }
    void instance(const hprof::InstanceDump& d) override { add(d.values); }
    void objectArray(const hprof::ObjectArrayDump& d) override {
        if (d.elements.size() != uint64_t{d.length} * ids) std::abort();
        for (uint32_t k = 0; k < d.length; ++k)
            sum += hprof::readId(d.elements.data() + uint64_t{k} * ids, ids);
    }
    void root(const hprof::Root& r) override { sum += r.object_id; }
};

}  // namespace memcity::fuzz
