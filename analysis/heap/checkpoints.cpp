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
    uint64_t size;        // positions
    uint64_t runs;
    uint64_t long_lengths;
    uint64_t explicit_sizes;
    uint64_t sorted_end;
    uint64_t tombstones;
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

Status CheckpointStore::put(const void* data, size_t size) {
    if (!tried_file_) {
        tried_file_ = true;
        fd_ = ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd_ < 0) {
            std::string pattern = dir_ + "/memcity-checkpoints-XXXXXX";
            fd_ = ::mkstemp(pattern.data());
            if (fd_ >= 0) ::unlink(pattern.c_str());
        }
    }
    if (fd_ < 0) {
        const auto* p = static_cast<const uint8_t*>(data);
        memory_.insert(memory_.end(), p, p + size);
        end_ += size;
        return {};
    }
    const auto* p = static_cast<const uint8_t*>(data);
    while (size > 0) {
        ssize_t n = ::pwrite(fd_, p, size, static_cast<off_t>(end_));
        if (n < 0) {
            if (errno == EINTR) continue;
            return Error{"cannot write checkpoints to " + dir_ + ": " + std::strerror(errno)};
        }
        p += n;
        size -= static_cast<size_t>(n);
        end_ += static_cast<uint64_t>(n);
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
            return Error{"cannot read checkpoints back from " + dir_ + (n < 0 ? ": " + std::string(std::strerror(errno)) : "")};
        }
        p += n;
        size -= static_cast<size_t>(n);
        offset += static_cast<uint64_t>(n);
    }
    return {};
}

Status CheckpointStore::save(uint32_t chunk, const ObjectStore& store, const Replayer::Scalars& scalars) {
    Header h{};
    h.magic = kCheckpointMagic;
    h.size = store.size();
    h.runs = store.ids.runs.size();
    h.long_lengths = store.long_lengths.size();
    h.explicit_sizes = store.explicit_sizes.size();
    h.sorted_end = store.sorted_end_;
    h.tombstones = store.tombstones_;
    h.scalars = scalars;
    const uint64_t start = end_;
    std::vector<uint64_t> pairs;
    pairs.reserve(2 * (h.long_lengths + h.explicit_sizes));
    for (const auto& [id, v] : store.long_lengths) pairs.insert(pairs.end(), {id, v});
    for (const auto& [id, v] : store.explicit_sizes) pairs.insert(pairs.end(), {id, v});
    for (Status s : {put(&h, sizeof h), put(store.ids.lo.data(), h.size * sizeof(uint32_t)),
                     put(store.ids.runs.data(), h.runs * sizeof(IdRun)),
                     put(store.shape.data(), h.size * sizeof(uint32_t)),
                     put(store.length16.data(), h.size * sizeof(uint16_t)),
                     put(pairs.data(), pairs.size() * sizeof(uint64_t))}) {
        if (!s) return s;
    }
    entries_.push_back({chunk, start, end_ - start});
    return {};
}

bool CheckpointStore::latestAtOrBefore(uint32_t chunk, uint32_t* checkpoint_chunk) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), chunk,
                               [](uint32_t c, const Entry& e) { return c < e.chunk; });
    if (it == entries_.begin()) return false;
    *checkpoint_chunk = (it - 1)->chunk;
    return true;
}

Status CheckpointStore::load(uint32_t checkpoint_chunk, ObjectStore* store, Replayer::Scalars* scalars) const {
    auto it = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.chunk == checkpoint_chunk; });
    if (it == entries_.end()) return Error{"no checkpoint at chunk " + std::to_string(checkpoint_chunk)};
    Header h{};
    uint64_t at = it->offset;
    if (Status s = get(at, &h, sizeof h); !s) return s;
    if (h.magic != kCheckpointMagic) return Error{"checkpoint data is damaged"};
    at += sizeof h;
    store->clear();
    store->ids.lo.resize(h.size);
    store->ids.runs.resize(h.runs);
    store->shape.resize(h.size);
    store->length16.resize(h.size);
    std::vector<uint64_t> pairs(2 * (h.long_lengths + h.explicit_sizes));
    auto read = [&](void* data, size_t size) {
        Status s = get(at, data, size);
        at += size;
        return s;
    };
    for (Status s : {read(store->ids.lo.data(), h.size * sizeof(uint32_t)),
                     read(store->ids.runs.data(), h.runs * sizeof(IdRun)),
                     read(store->shape.data(), h.size * sizeof(uint32_t)),
                     read(store->length16.data(), h.size * sizeof(uint16_t)),
                     read(pairs.data(), pairs.size() * sizeof(uint64_t))}) {
        if (!s) return s;
    }
    for (size_t i = 0; i < h.long_lengths; ++i) store->long_lengths[pairs[2 * i]] = pairs[2 * i + 1];
    for (size_t i = h.long_lengths; i < h.long_lengths + h.explicit_sizes; ++i)
        store->explicit_sizes[pairs[2 * i]] = pairs[2 * i + 1];
    store->sorted_end_ = h.sorted_end;
    store->tombstones_ = h.tombstones;
    *scalars = h.scalars;
    return {};
}

}  // namespace memcity
