#include "gc_facts.h"

#include <algorithm>

#include <cstring>

#include "hotspot.h"
#include "trace/g1_regions.h"
#include "trace/heap_layout.h"
#include "trace/trace_format.h"

namespace memcity::agent {
namespace {

const void* pointerAt(const void* base, int64_t offset) {
    const void* p = nullptr;
    std::memcpy(&p, static_cast<const char*>(base) + offset, sizeof p);
    return p;
}

uint64_t wordAt(const void* base, int64_t offset) {
    uint64_t v = 0;
    std::memcpy(&v, static_cast<const char*>(base) + offset, sizeof v);
    return v;
}

// The first of several names a field had in different JDK versions.
int64_t offsetOf(const VmStructs& vm, std::initializer_list<std::pair<const char*, const char*>> names) {
    for (auto [type, field] : names)
        if (int64_t o = vm.offset(type, field); o >= 0) return o;
    return -1;
}

uint8_t kindOfCollector(const std::string& name) {
    using format::GcKind;
    auto has = [&](const char* word) { return name.find(word) != std::string::npos; };
    if (has("full") || has("major")) return static_cast<uint8_t>(GcKind::kMajor);
    if (has("young") || has("minor") || has("partial")) return static_cast<uint8_t>(GcKind::kMinor);
    if (has("concurrent")) return static_cast<uint8_t>(GcKind::kConcurrent);
    return static_cast<uint8_t>(GcKind::kUnknown);
}

}  // namespace

GcFacts::GcFacts() = default;
GcFacts::~GcFacts() = default;

std::unique_ptr<GcFacts> GcFacts::create() {
    auto f = std::unique_ptr<GcFacts>(new GcFacts());
    f->vm_ = VmStructs::load();
    if (!f->vm_) return f;
    f->perf_ = PerfCounters::open(*f->vm_);
    for (const char* gc : {"Serial", "Parallel", "G1", "Z", "Shenandoah", "Epsilon"})
        if (f->vm_->flag(std::string("Use") + gc + "GC")) f->heap_ = gc;
    if (f->perf_) {
        for (size_t i = 0; i < kMaxCollectors; ++i) {
            const std::string prefix = "sun.gc.collector." + std::to_string(i) + ".";
            f->invocations_[i] = f->perf_->number(prefix + "invocations");
            f->last_entry_[i] = f->perf_->number(prefix + "lastEntryTime");
            f->last_exit_[i] = f->perf_->number(prefix + "lastExitTime");
            if (const volatile char* name = f->perf_->text(prefix + "name")) {
                f->collectors_.resize(i + 1);
                for (const volatile char* c = name; *c; ++c)
                    f->collectors_[i] += *c;
                f->collector_kind_[i] = kindOfCollector(f->collectors_[i]);
            }
        }
        f->frequency_ = f->perf_->number("sun.os.hrt.frequency");
        f->cause_ = f->perf_->text("sun.gc.cause", &f->cause_capacity_);
        f->last_cause_ = f->perf_->text("sun.gc.lastCause", &f->last_cause_capacity_);
    }
    f->findSpaces();
    if (f->pool_sources_.empty()) f->findPerfSpaces();
    f->findRegions();
    // The young generation's spaces are eden and two survivors (one of them empty), the old
    // generation's one space: the three pools of Serial, Parallel and G1.
    if (f->perf_ && f->pool_sources_.size() == 3 && !f->pool_sources_[0].perf_used) {
        auto space = [&](int g, int sp) {
            PoolSource src;
            const std::string prefix =
                "sun.gc.generation." + std::to_string(g) + ".space." + std::to_string(sp) + ".";
            src.perf_used = f->perf_->number(prefix + "used");
            src.perf_capacity = f->perf_->number(prefix + "capacity");
            return src;
        };
        f->pool_counters_ = {{space(0, 0)}, {space(0, 1), space(0, 2)}, {space(1, 0)}};
        bool complete = true;
        for (const auto& pool : f->pool_counters_)
            for (const PoolSource& src : pool)
                complete &= src.perf_used && src.perf_capacity;
        if (!complete) f->pool_counters_.clear();
    }
    return f;
}

bool GcFacts::spaceAt(const void* root, int64_t first, int64_t second, const char* space_type,
                      PoolSource* out) const {
    const VmStructs& vm = *vm_;
    PoolSource s;
    s.root = root;
    s.path = {first, second};
    s.bottom = offsetOf(vm, {{space_type, "_bottom"}, {"Space", "_bottom"}});
    s.top = offsetOf(vm, {{space_type, "_top"}});
    s.end = offsetOf(vm, {{space_type, "_end"}, {"Space", "_end"}});
    if (!root || first < 0 || second == -1 || s.bottom < 0 || s.top < 0 || s.end < 0) return false;
    *out = s;
    return true;
}

void GcFacts::findSpaces() {
    const VmStructs& vm = *vm_;
    const void* heap = vm.address("Universe", "_collectedHeap");
    if (!heap) return;
    // Each pool is one space (the survivor pool the from-space), and the heap's spaces are the
    // pools' and the to-space.
    struct Role {
        const char* pool;  // nullptr: a space only
        SpaceKind kind;
        const void* root;
        int64_t first, second;
    };
    auto find = [&](std::initializer_list<Role> roles, const char* space_type) {
        std::vector<std::string> pools, spaces;
        std::vector<PoolSource> pool_sources, space_sources;
        std::vector<uint8_t> kinds;
        for (const Role& r : roles) {
            PoolSource s;
            if (!spaceAt(r.root, r.first, r.second, space_type, &s)) return;
            if (r.pool) pools.push_back(r.pool), pool_sources.push_back(s);
            const std::string name = r.pool ? r.pool : "Survivor Space";
            spaces.push_back(name.substr(0, 3) == "PS " ? name.substr(3) : name);
            space_sources.push_back(s);
            kinds.push_back(static_cast<uint8_t>(r.kind));
        }
        pool_names_ = std::move(pools);
        pool_sources_ = std::move(pool_sources);
        space_names_ = std::move(spaces);
        space_sources_ = std::move(space_sources);
        space_kinds_ = std::move(kinds);
    };
    if (heap_ == "Serial") {
        const int64_t young =
            offsetOf(vm, {{"SerialHeap", "_young_gen"}, {"GenCollectedHeap", "_young_gen"}});
        const int64_t old = offsetOf(vm, {{"SerialHeap", "_old_gen"}, {"GenCollectedHeap", "_old_gen"}});
        if (young < 0 || old < 0) return;
        find({{"Eden Space", SpaceKind::kEden, heap, young, vm.offset("DefNewGeneration", "_eden_space")},
              {"Survivor Space", SpaceKind::kSurvivor, heap, young,
               vm.offset("DefNewGeneration", "_from_space")},
              {nullptr, SpaceKind::kSurvivor, heap, young, vm.offset("DefNewGeneration", "_to_space")},
              {"Tenured Gen", SpaceKind::kOld, heap, old, vm.offset("TenuredGeneration", "_the_space")}},
             "ContiguousSpace");
    } else if (heap_ == "Parallel") {
        const void* young = vm.address("ParallelScavengeHeap", "_young_gen");
        const void* old = vm.address("ParallelScavengeHeap", "_old_gen");
        find({{"PS Eden Space", SpaceKind::kEden, young, vm.offset("PSYoungGen", "_eden_space"), kNoStep},
              {"PS Survivor Space", SpaceKind::kSurvivor, young, vm.offset("PSYoungGen", "_from_space"),
               kNoStep},
              {nullptr, SpaceKind::kSurvivor, young, vm.offset("PSYoungGen", "_to_space"), kNoStep},
              {"PS Old Gen", SpaceKind::kOld, old, vm.offset("PSOldGen", "_object_space"), kNoStep}},
             "MutableSpace");
    } else if (heap_ == "G1") {
        const int64_t mm =
            offsetOf(vm, {{"G1CollectedHeap", "_monitoring_support"}, {"G1CollectedHeap", "_g1mm"}});
        auto sizes = [&](const char* name, const char* used, const char* committed) {
            PoolSource s;
            s.root = heap;
            s.path = {mm, kNoStep};
            s.used = vm.offset("G1MonitoringSupport", used);
            s.committed = vm.offset("G1MonitoringSupport", committed);
            if (mm >= 0 && s.used >= 0 && s.committed >= 0) {
                pool_names_.push_back(name);
                pool_sources_.push_back(s);
            }
        };
        sizes("G1 Eden Space", "_eden_space_used", "_eden_space_committed");
        sizes("G1 Survivor Space", "_survivor_space_used", "_survivor_space_committed");
        sizes("G1 Old Gen", "_old_gen_used", "_old_gen_committed");
        if (pool_sources_.size() != 3) pool_sources_.clear(), pool_names_.clear();
    }
}

void GcFacts::findRegions() {
    if (heap_ != "G1") return;
    const VmStructs& vm = *vm_;
    const void* const* heap_ptr = static_cast<const void* const*>(vm.address("Universe", "_collectedHeap"));
    const char* heap = heap_ptr ? static_cast<const char*>(*heap_ptr) : nullptr;
    // JDK 23 renamed HeapRegion, HeapRegionManager and HeapRegionType with a G1 prefix.
    const int64_t hrm = vm.offset("G1CollectedHeap", "_hrm");
    const int64_t regions =
        offsetOf(vm, {{"G1HeapRegionManager", "_regions"}, {"HeapRegionManager", "_regions"}});
    table_base_ = vm.offset("G1HeapRegionTable", "_base");
    table_length_ = vm.offset("G1HeapRegionTable", "_length");
    region_bottom_ = offsetOf(vm, {{"G1HeapRegion", "_bottom"}, {"HeapRegion", "_bottom"}});
    region_top_ = offsetOf(vm, {{"G1HeapRegion", "_top"}, {"HeapRegion", "_top"}});
    if (!heap || hrm < 0 || regions < 0 || table_base_ < 0 || table_length_ < 0 || region_bottom_ < 0 ||
        region_top_ < 0)
        return;
    region_table_ = heap + hrm + regions;
    max_regions_ = static_cast<size_t>(wordAt(region_table_, table_length_));
    if (max_regions_ == 0 || max_regions_ > (size_t{1} << 24)) {
        region_table_ = nullptr;
        return;
    }
    // Roles: the tag's place and the JVM's own tag values (G1HeapRegionType since JDK 23).
    const int64_t type = offsetOf(vm, {{"G1HeapRegion", "_type"}, {"HeapRegion", "_type"}});
    const int64_t tag = offsetOf(vm, {{"G1HeapRegionType", "_tag"}, {"HeapRegionType", "_tag"}});
    region_end_ = offsetOf(vm, {{"G1HeapRegion", "_end"}, {"HeapRegion", "_end"}});
    const int64_t bias = vm.offset("G1HeapRegionTable", "_bias");
    const int64_t shift_by = vm.offset("G1HeapRegionTable", "_shift_by");
    auto constant = [&](const char* name) {
        const int32_t v = vm.constant(std::string("G1HeapRegionType::") + name, -1);
        return v >= 0 ? v : vm.constant(std::string("HeapRegionType::") + name, -1);
    };
    free_tag_ = constant("FreeTag");
    eden_tag_ = constant("EdenTag");
    surv_tag_ = constant("SurvTag");
    hum_start_tag_ = constant("StartsHumongousTag");
    hum_cont_tag_ = constant("ContinuesHumongousTag");
    old_mask_ = constant("OldMask");
    archive_mask_ = constant("ArchiveMask");
    const void* grain = vm.address("G1HeapRegion", "GrainBytes");
    if (!grain) grain = vm.address("HeapRegion", "GrainBytes");
    const uint64_t region_bytes = grain ? *static_cast<const size_t*>(grain) : 0;
    region_tag_ = type >= 0 && tag >= 0 ? type + tag : -1;
    if (region_tag_ < 0 || region_end_ < 0 || bias < 0 || shift_by < 0 || free_tag_ < 0 || eden_tag_ < 0 ||
        surv_tag_ < 0 || hum_start_tag_ < 0 || hum_cont_tag_ < 0 || old_mask_ <= 0)
        return;
    // The grid: region i at (bias + i) << shift, every region GrainBytes (a power of two).
    uint32_t shift = 0;
    std::memcpy(&shift, region_table_ + shift_by, sizeof shift);
    if (shift < 16 || shift > 32 || region_bytes != (uint64_t{1} << shift)) return;
    grid_ = {shift, wordAt(region_table_, bias) << shift, max_regions_};
    region_roles_ = true;
}

uint8_t GcFacts::roleOf(int32_t tag) const {
    if (tag == free_tag_) return static_cast<uint8_t>(RegionRole::kFree);
    if (tag == eden_tag_) return static_cast<uint8_t>(RegionRole::kEden);
    if (tag == surv_tag_) return static_cast<uint8_t>(RegionRole::kSurvivor);
    if (tag == hum_start_tag_) return static_cast<uint8_t>(RegionRole::kHumongousStart);
    if (tag == hum_cont_tag_) return static_cast<uint8_t>(RegionRole::kHumongousContinues);
    if (archive_mask_ > 0 && (tag & archive_mask_) != 0) return static_cast<uint8_t>(RegionRole::kArchive);
    if ((tag & old_mask_) != 0) return static_cast<uint8_t>(RegionRole::kOld);
    return static_cast<uint8_t>(RegionRole::kUnknown);
}

size_t GcFacts::readRegionRoles(uint32_t* out, size_t capacity) const {
    if (!region_roles_) return 0;
    const auto* base = reinterpret_cast<const char* const*>(wordAt(region_table_, table_base_));
    if (!base) return 0;
    const size_t n = std::min(grid_.count, capacity);
    const uint64_t size = uint64_t{1} << grid_.shift;
    for (size_t i = 0; i < n; ++i) {
        const char* region = base[i];
        if (!region) {  // never committed
            out[i] = static_cast<uint32_t>(RegionRole::kFree);
            continue;
        }
        int32_t tag = 0;
        std::memcpy(&tag, region + region_tag_, sizeof tag);
        const uint64_t bottom = wordAt(region, region_bottom_), top = wordAt(region, region_top_);
        const bool placed = bottom == grid_.first + (uint64_t{i} << grid_.shift) &&
                            wordAt(region, region_end_) == bottom + size && top >= bottom &&
                            top <= bottom + size && (top - bottom) % 8 == 0 && top - bottom <= UINT32_MAX - 7;
        out[i] = placed ? static_cast<uint32_t>(top - bottom) | roleOf(tag)
                        : static_cast<uint32_t>(RegionRole::kUnknown);
    }
    return n;
}

size_t GcFacts::readRegions(SpaceBounds* out, size_t capacity) const {
    if (!region_table_) return 0;
    const auto* base = reinterpret_cast<const char* const*>(wordAt(region_table_, table_base_));
    const size_t n =
        std::min({static_cast<size_t>(wordAt(region_table_, table_length_)), capacity, max_regions_});
    size_t count = 0;
    for (size_t i = 0; base && i < n; ++i) {
        const char* region = base[i];
        if (!region) continue;  // not committed
        out[count++] = {wordAt(region, region_bottom_), wordAt(region, region_top_), 0};
    }
    return count;
}

void GcFacts::findPerfSpaces() {
    if (!perf_) return;
    for (int g = 0; g < 4; ++g) {
        for (int s = 0; s < 4 && pool_sources_.size() < kMaxPools; ++s) {
            const std::string prefix =
                "sun.gc.generation." + std::to_string(g) + ".space." + std::to_string(s) + ".";
            PoolSource src;
            src.perf_used = perf_->number(prefix + "used");
            src.perf_capacity = perf_->number(prefix + "capacity");
            const volatile char* name = perf_->text(prefix + "name");
            const volatile char* gen = perf_->text("sun.gc.generation." + std::to_string(g) + ".name");
            if (!src.perf_used || !src.perf_capacity || !name) continue;
            std::string full;
            for (const volatile char* c = gen; c && *c; ++c)
                full += *c;
            full += full.empty() ? "" : " ";
            for (const volatile char* c = name; *c; ++c)
                full += *c;
            pool_names_.push_back(full);
            pool_sources_.push_back(src);
        }
    }
}

const void* GcFacts::PoolSource::object() const {
    // Pointers from the root: the root is the address of a pointer variable.
    const void* p = pointerAt(root, 0);
    for (int64_t step : path) {
        if (!p || step == kNoStep) break;
        p = pointerAt(p, step);
    }
    return p;
}

SpaceBounds GcFacts::PoolSource::bounds() const {
    const void* p = object();
    if (!p || bottom < 0) return {};
    const SpaceBounds b{wordAt(p, bottom), wordAt(p, top), wordAt(p, end)};
    return b.bottom <= b.top && b.top <= b.end ? b : SpaceBounds{};
}

PoolUsage GcFacts::PoolSource::read() const {
    PoolUsage u;
    if (perf_used) {
        u.used = static_cast<uint64_t>(*perf_used);
        u.committed = static_cast<uint64_t>(*perf_capacity);
        return u;
    }
    if (bottom >= 0) {
        const SpaceBounds b = bounds();
        return {b.top - b.bottom, b.end - b.bottom};
    }
    const void* p = object();
    if (p) u = {wordAt(p, used), wordAt(p, committed)};
    return u;
}

void GcFacts::sample(GcSample* out) const {
    *out = GcSample{};
    if (!vm_) return;
    out->valid = true;
    // The timer counter is made after VM init on some JVMs; HotSpot's timer on Linux counts ns.
    const double ns_per_tick = frequency_ && *frequency_ > 0 ? 1e9 / static_cast<double>(*frequency_) : 1.0;
    for (size_t i = 0; i < kMaxCollectors; ++i) {
        out->invocations[i] = invocations_[i] ? *invocations_[i] : 0;
        if (last_entry_[i] && last_exit_[i]) {
            out->last_entry_ns[i] = static_cast<int64_t>(static_cast<double>(*last_entry_[i]) * ns_per_tick);
            out->last_exit_ns[i] = static_cast<int64_t>(static_cast<double>(*last_exit_[i]) * ns_per_tick);
        }
    }
    for (size_t i = 0; i < pool_sources_.size() && i < kMaxPools; ++i)
        out->pools[i] = pool_sources_[i].read();
    for (size_t i = 0; i < space_sources_.size() && i < kMaxSpaces; ++i)
        out->spaces[i] = space_sources_[i].bounds();
    auto copy = [](const volatile char* from, size_t capacity, char* to) {
        size_t n = 0;
        for (; from && n + 1 < kCauseBytes && n < capacity && from[n]; ++n)
            to[n] = from[n];
        to[n] = 0;
    };
    copy(cause_, cause_capacity_, out->cause);
    copy(last_cause_, last_cause_capacity_, out->last_cause);
}

int64_t GcFacts::totalCollections() const {
    int64_t n = 0;
    for (const volatile int64_t* c : invocations_)
        if (c) n += *c;
    return n;
}

int64_t GcFacts::finishedCollections() const {
    int64_t n = 0;
    for (size_t i = 0; i < kMaxCollectors; ++i) {
        if (!invocations_[i]) continue;
        const int64_t count = *invocations_[i];
        const bool in_progress = last_entry_[i] && last_exit_[i] && *last_entry_[i] > *last_exit_[i];
        n += in_progress && count > 0 ? count - 1 : count;
    }
    return n;
}

bool GcFacts::lastCollection(const GcSample& before, const GcSample& after, int64_t* start_ns,
                             int64_t* end_ns) {
    bool found = false;
    for (size_t i = 0; i < kMaxCollectors; ++i) {
        if (after.invocations[i] <= before.invocations[i] || after.last_exit_ns[i] == 0 ||
            after.inProgress(i))
            continue;
        if (!found || after.last_exit_ns[i] > *end_ns)
            *start_ns = after.last_entry_ns[i], *end_ns = after.last_exit_ns[i];
        found = true;
    }
    return found;
}

void GcFacts::sampleCounters(GcSample* out) const {
    sample(out);
    for (size_t i = 0; i < pool_counters_.size() && i < kMaxPools; ++i) {
        PoolUsage sum;
        for (const PoolSource& src : pool_counters_[i]) {
            const PoolUsage u = src.read();
            sum.used += u.used;
            sum.committed += u.committed;
        }
        out->pools[i] = sum;
    }
}

const char* GcFacts::causeOf(const GcSample& end) {
    if (end.cause[0] && std::strcmp(end.cause, "No GC") != 0) return end.cause;
    return end.last_cause;
}

bool GcFacts::countsWholeHeap(const GcSample& start, const GcSample& end) const {
    return stopsTheWorld() && kindOf(start, end) == static_cast<uint8_t>(format::GcKind::kMajor);
}

uint8_t GcFacts::kindOf(const GcSample& start, const GcSample& end) const {
    using format::GcKind;
    uint8_t kind = static_cast<uint8_t>(GcKind::kUnknown);
    auto rank = [](uint8_t k) {
        switch (static_cast<GcKind>(k)) {
            case GcKind::kMajor: return 3;
            case GcKind::kMinor: return 2;
            case GcKind::kConcurrent: return 1;
            default: return 0;
        }
    };
    if (!start.valid || !end.valid) return kind;
    for (size_t i = 0; i < kMaxCollectors; ++i)
        if (end.invocations[i] > start.invocations[i] && rank(collector_kind_[i]) > rank(kind))
            kind = collector_kind_[i];
    return kind;
}

}  // namespace memcity::agent
