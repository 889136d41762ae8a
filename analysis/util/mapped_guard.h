// MappedGuard: a file mapping that survives its file being truncated under it. A read of a page
// the file no longer has raises SIGBUS, which would end the process; for a guarded mapping a
// process-wide SIGBUS handler instead maps a page of zeros over the faulting page, records that
// the mapping lost data (and the lowest offset that faulted), and lets the read go on. Whoever
// reads through the mapping then asks shrankAt() before trusting what it read (zeros make
// checksums fail and counts wrong) and reports "<file>: truncated while being read at offset N".
//
// The handler is installed once, at the first guard; it passes a SIGBUS outside every guarded
// mapping to the handler installed before it (or ends the process as the default action would).
// The registry is a fixed table of kMaxGuards slots, lock-free, read by the handler without locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace memcity {

class MappedGuard {
public:
    static constexpr size_t kMaxGuards = 1024;

    MappedGuard() = default;
    // Guards [begin, begin + size), a mapping of a file from its offset 0 (offsets in shrankAt()
    // are the file's). With the table full the mapping is not guarded (then valid() is false
    // and a truncation ends the process with SIGBUS, as without a guard).
    MappedGuard(const void* begin, size_t size);
    MappedGuard(MappedGuard&& other) noexcept : slot_(other.slot_) { other.slot_ = -1; }
    MappedGuard& operator=(MappedGuard&& other) noexcept;
    MappedGuard(const MappedGuard&) = delete;
    MappedGuard& operator=(const MappedGuard&) = delete;
    // Unregisters the range: call it (destroy the guard) before unmapping it.
    ~MappedGuard() { release(); }

    bool valid() const { return slot_ >= 0; }
    // The lowest file offset (of a page start) whose read faulted because the file had been cut
    // short there, or nullopt when none did. Safe from any thread.
    std::optional<uint64_t> shrankAt() const;
    void release() noexcept;

private:
    int slot_ = -1;
};

}  // namespace memcity
