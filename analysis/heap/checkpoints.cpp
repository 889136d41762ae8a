#include "heap/checkpoints.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace memcity {
namespace {

constexpr uint64_t kCheckpointMagic = 0x31504b434d434d4dull;  // "MMCMCKP1"

struct Header {
    uint64_t magic;
    uint64_t size;  // positions
    uint64_t runs;
    uint64_t long_lengths;
    uint64_t explicit_sizes;
    uint64_t sorted_end;
    uint64_t tombstones;
    uint64_t first_dead;
    Replayer::Scalars scalars;
};

}  // namespace

CheckpointStore::CheckpointStore(std::string dir) : dir_(std::move(dir)) {
    if (dir_.empty()) {
        const char* t = std::getenv("TMPDIR");
        dir_ = t && *t ? t : "/tmp";
    }
}

CheckpointStore::~CheckpointStore() {
    if (fd_ >= 0) ::close(fd_);
}

void CheckpointStore::openFile() {
    if (tried_file_) return;
    tried_file_ = true;
    fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd_ < 0) {
        std::string pattern = dir_ + "/memcity-checkpoints-XXXXXX";
        fd_ = ::mkstemp(pattern.data());
        if (fd_ >= 0) ::unlink(pattern.c_str());
    }
}

Status CheckpointStore::write(const Pending& pending) {
    if (fd_ < 0) {
        // No temporary file could be made: keep the bytes in memory.
        std::memcpy(memory_.data() + pending.offset, pending.bytes.data(), pending.bytes.size());
        return {};
    }
    const uint8_t* p = pending.bytes.data();
    size_t size = pending.bytes.size();
    uint64_t offset = pending.offset;
    while (size > 0) {
        ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(offset));
        if (n < 0) {
            if (errno == EINTR) continue;
            return Error{"cannot write checkpoints to " + dir_ + ": " + std::strerror(errno)};
        }
        p += n;
        size -= static_cast<size_t>(n);
        offset += static_cast<uint64_t>(n);
    }
    return {};
}

Status CheckpointStore::get(uint64_t offset, void* data, size_t size) const {
    if (fd_ < 0) {
        std::memcpy(data, memory_.data() + offset, size);
        return {};
    }
    auto* p = static_cast<uint8_t*>(data);
    while (size > 0) {
        ssize_t n = ::pread(fd_, p, size, static_cast<off_t>(offset));
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            return Error{"cannot read checkpoints back from " + dir_ +
                         (n < 0 ? ": " + std::string(std::strerror(errno)) : "")};
        }
        p += n;
        size -= static_cast<size_t>(n);
        offset += static_cast<uint64_t>(n);
    }
    return {};
}

Status CheckpointStore::save(uint32_t chunk, ObjectStore& store, const Replayer::Scalars& scalars) {
    auto pending = prepare(chunk, store, scalars);
    if (!pending) return pending.error();
    return write(*pending);
}

Result<CheckpointStore::Pending> CheckpointStore::prepare(uint32_t chunk, ObjectStore& store,
                                                          const Replayer::Scalars& scalars) {
    openFile();
    const uint64_t n = store.size();
    const uint64_t clean = entries_.empty() ? 0 : std::min<uint64_t>(store.cleanEnd(), n);
    Entry e;
    e.chunk = chunk;
    if (!entries_.empty()) {
        for (Segment seg : entries_.back().segments) {
            if (seg.begin >= clean) break;
            if (seg.end > clean) seg.end = clean;
            e.segments.push_back(seg);
        }
    }
    Header h{};
    h.magic = kCheckpointMagic;
    h.size = n;
    h.runs = store.ids.runs.size();
    h.long_lengths = store.long_lengths.size();
    h.explicit_sizes = store.explicit_sizes.size();
    h.sorted_end = store.sorted_end_;
    h.tombstones = store.tombstones_;
    h.first_dead = store.first_dead_;
    h.scalars = scalars;
    std::vector<uint64_t> pairs;
    pairs.reserve(2 * (h.long_lengths + h.explicit_sizes));
    for (const auto& [id, v] : store.long_lengths)
        pairs.insert(pairs.end(), {id, v});
    for (const auto& [id, v] : store.explicit_sizes)
        pairs.insert(pairs.end(), {id, v});

    Pending out;
    out.offset = end_;
    auto& b = out.bytes;
    const uint64_t k = n - clean;
    b.resize(sizeof h + h.runs * sizeof(IdRun) + pairs.size() * sizeof(uint64_t) + k * (4 + 4 + 2));
    uint8_t* p = b.data();
    auto put = [&](const void* data, size_t size) {
        if (size) std::memcpy(p, data, size);
        p += size;
    };
    put(&h, sizeof h);
    put(store.ids.runs.data(), h.runs * sizeof(IdRun));
    put(pairs.data(), pairs.size() * sizeof(uint64_t));
    Segment own{clean, n, 0, 0, 0};
    own.lo = end_ + static_cast<uint64_t>(p - b.data());
    put(store.ids.lo.data() + clean, k * sizeof(uint32_t));
    own.shape = end_ + static_cast<uint64_t>(p - b.data());
    put(store.shape.data() + clean, k * sizeof(uint32_t));
    own.length = end_ + static_cast<uint64_t>(p - b.data());
    put(store.length16.data() + clean, k * sizeof(uint16_t));
    e.meta_offset = end_;
    if (n > clean) e.segments.push_back(own);
    entries_.push_back(std::move(e));
    end_ += b.size();
    if (fd_ < 0) memory_.resize(end_);
    store.markClean();
    return out;
}

bool CheckpointStore::latestAtOrBefore(uint32_t chunk, uint32_t* checkpoint_chunk) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), chunk,
                               [](uint32_t c, const Entry& e) { return c < e.chunk; });
    if (it == entries_.begin()) return false;
    *checkpoint_chunk = (it - 1)->chunk;
    return true;
}

Status CheckpointStore::load(uint32_t checkpoint_chunk, ObjectStore* store,
                             Replayer::Scalars* scalars) const {
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const Entry& e) { return e.chunk == checkpoint_chunk; });
    if (it == entries_.end()) return Error{"no checkpoint at chunk " + std::to_string(checkpoint_chunk)};
    Header h{};
    uint64_t at = it->meta_offset;
    if (Status s = get(at, &h, sizeof h); !s) return s;
    if (h.magic != kCheckpointMagic) return Error{"checkpoint data is damaged"};
    at += sizeof h;
    store->clear();
    store->ids.lo.resize(h.size);
    store->ids.runs.resize(h.runs);
    store->shape.resize(h.size);
    store->length16.resize(h.size);
    std::vector<uint64_t> pairs(2 * (h.long_lengths + h.explicit_sizes));
    Status s = get(at, store->ids.runs.data(), h.runs * sizeof(IdRun));
    at += h.runs * sizeof(IdRun);
    if (s) s = get(at, pairs.data(), pairs.size() * sizeof(uint64_t));
    for (const Segment& seg : it->segments) {
        const uint64_t k = seg.end - seg.begin;
        if (s) s = get(seg.lo, store->ids.lo.data() + seg.begin, k * sizeof(uint32_t));
        if (s) s = get(seg.shape, store->shape.data() + seg.begin, k * sizeof(uint32_t));
        if (s) s = get(seg.length, store->length16.data() + seg.begin, k * sizeof(uint16_t));
    }
    if (!s) return s;
    for (size_t i = 0; i < h.long_lengths; ++i)
        store->long_lengths[pairs[2 * i]] = pairs[2 * i + 1];
    for (size_t i = h.long_lengths; i < h.long_lengths + h.explicit_sizes; ++i)
        store->explicit_sizes[pairs[2 * i]] = pairs[2 * i + 1];
    store->sorted_end_ = h.sorted_end;
    store->tombstones_ = h.tombstones;
    store->first_dead_ = h.first_dead;
    store->last_dead_ = h.tombstones > 0 ? SIZE_MAX : 0;
    store->recountBlocks(0);
    *scalars = h.scalars;
    return {};
}

}  // namespace memcity
