#include "util/mapped_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>

namespace memcity {

namespace {

// A slot's state is (generation << 2) | status; the generation changes whenever the slot starts
// or stops guarding a range, so the handler can tell a range it read whole from one that was
// swapped while it read it.
constexpr uint64_t kFree = 0, kBusy = 1, kActive = 2;
constexpr uint64_t kStatusMask = 3, kGeneration = 4;
constexpr uint64_t kNoFault = ~uint64_t{0};

struct Slot {
    std::atomic<uint64_t> state{kFree};
    std::atomic<uintptr_t> begin{0};
    std::atomic<uintptr_t> end{0};
    std::atomic<uint64_t> fault{kNoFault};  // lowest faulting offset
};
static_assert(std::atomic<uint64_t>::is_always_lock_free && std::atomic<uintptr_t>::is_always_lock_free,
              "the SIGBUS handler reads the table without locks");

Slot g_slots[MappedGuard::kMaxGuards];
struct sigaction g_previous {};
uintptr_t g_page = 4096;
std::once_flag g_installed;

// What SIGBUS would have done without us: the previous handler, or the default action.
void passOn(int sig, siginfo_t* info, void* context) {
    const struct sigaction& p = g_previous;
    if ((p.sa_flags & SA_SIGINFO) != 0) {
        if (p.sa_sigaction != nullptr) {
            p.sa_sigaction(sig, info, context);
            return;
        }
    } else if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) {
        p.sa_handler(sig);
        return;
    } else if (p.sa_handler == SIG_IGN && info->si_code <= 0) {
        return;  // a SIGBUS sent by kill(), ignored as before (a fault cannot be ignored)
    }
    // The default action: it is taken once this handler returns (the signal sent again is
    // pending until then; a fault repeats when the read runs again).
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    ::raise(sig);
}

void onSigbus(int sig, siginfo_t* info, void* context) {
    const int saved_errno = errno;
    if (info != nullptr && info->si_code == BUS_ADRERR) {
        const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
        for (Slot& slot : g_slots) {
            const uint64_t s = slot.state.load(std::memory_order_acquire);
            if ((s & kStatusMask) != kActive) continue;
            const uintptr_t begin = slot.begin.load(std::memory_order_relaxed);
            const uintptr_t end = slot.end.load(std::memory_order_relaxed);
            if (slot.state.load(std::memory_order_acquire) != s || addr < begin || addr >= end) continue;
            const uintptr_t page = addr & ~(g_page - 1);
            void* zeros = ::mmap(reinterpret_cast<void*>(page), g_page, PROT_READ,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (zeros == MAP_FAILED) break;
            const uint64_t offset = page > begin ? page - begin : 0;
            uint64_t low = slot.fault.load(std::memory_order_relaxed);
            while (offset < low && !slot.fault.compare_exchange_weak(low, offset, std::memory_order_release,
                                                                     std::memory_order_relaxed)) {
            }
            errno = saved_errno;
            return;  // the read runs again, on zeros
        }
    }
    errno = saved_errno;
    passOn(sig, info, context);
}

void install() {
    const long page = ::sysconf(_SC_PAGESIZE);
    if (page > 0) g_page = static_cast<uintptr_t>(page);
    ::sigaction(SIGBUS, nullptr, &g_previous);
    struct sigaction sa {};
    sa.sa_sigaction = onSigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGBUS, &sa, nullptr);
}

}  // namespace

MappedGuard::MappedGuard(const void* begin, size_t size) {
    if (begin == nullptr || size == 0) return;
    std::call_once(g_installed, install);
    for (size_t i = 0; i < kMaxGuards; ++i) {
        Slot& slot = g_slots[i];
        uint64_t s = slot.state.load(std::memory_order_relaxed);
        if ((s & kStatusMask) != kFree ||
            !slot.state.compare_exchange_strong(s, s | kBusy, std::memory_order_acquire))
            continue;
        slot.begin.store(reinterpret_cast<uintptr_t>(begin), std::memory_order_relaxed);
        slot.end.store(reinterpret_cast<uintptr_t>(begin) + size, std::memory_order_relaxed);
        slot.fault.store(kNoFault, std::memory_order_relaxed);
        slot.state.store((s & ~kStatusMask) + kGeneration + kActive, std::memory_order_release);
        slot_ = static_cast<int>(i);
        return;
    }
}

MappedGuard& MappedGuard::operator=(MappedGuard&& other) noexcept {
    if (this != &other) {
        release();
        slot_ = other.slot_;
        other.slot_ = -1;
    }
    return *this;
}

std::optional<uint64_t> MappedGuard::shrankAt() const {
    if (slot_ < 0) return std::nullopt;
    const uint64_t at = g_slots[slot_].fault.load(std::memory_order_acquire);
    if (at == kNoFault) return std::nullopt;
    return at;
}

void MappedGuard::release() noexcept {
    if (slot_ < 0) return;
    Slot& slot = g_slots[slot_];
    const uint64_t s = slot.state.load(std::memory_order_relaxed) & ~kStatusMask;
    slot.state.store(s | kBusy, std::memory_order_release);
    slot.begin.store(0, std::memory_order_relaxed);
    slot.end.store(0, std::memory_order_relaxed);
    slot.state.store(s + kGeneration + kFree, std::memory_order_release);
    slot_ = -1;
}

}  // namespace memcity
