#include "synth/sim_heap.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "trace/extensions.h"

namespace memcity::synth {
namespace {

uint32_t fieldBytes(FieldKind k) {
    switch (k) {
        case FieldKind::kBool:
        case FieldKind::kByte: return 1;
        case FieldKind::kChar:
        case FieldKind::kShort: return 2;
        case FieldKind::kRef:
        case FieldKind::kWeakRef:
        case FieldKind::kInt:
        case FieldKind::kFloat: return 4;
        case FieldKind::kLong:
        case FieldKind::kDouble: return 8;
    }
    return 4;
}

uint64_t align8(uint64_t v) {
    return (v + 7) & ~uint64_t{7};
}

constexpr uint32_t kObjectHeader = 12;
constexpr uint32_t kArrayHeader = 16;

}  // namespace

SimHeap::SimHeap(TraceWriter& out, const SimOptions& options)
    : out_(out), options_(options), sampler_(options.sampling_seed * 0xd1b54a32d192ed03ull) {
    types_.resize(1);
    // java.lang.Object and java.lang.Thread exist in every program.
    uint32_t object = defineClass("java.lang.Object", {});
    (void)object;
    thread_type_ = defineClass("java.lang.Thread",
                               {{"name", "java.lang.String", FieldKind::kRef},
                                {"tid", "long", FieldKind::kLong},
                                {"priority", "int", FieldKind::kInt},
                                {"daemon", "boolean", FieldKind::kBool},
                                {"threadLocals", "java.lang.ThreadLocal$ThreadLocalMap", FieldKind::kRef}});
    uint32_t init = defineMethod("java.lang.Thread", "<init>", "(Ljava/lang/String;)V", "Thread.java");
    thread_site_ = site({{init, 398}});
    out_.defineString(++next_string_, "Allocation Failure");
    out_.defineString(++next_string_, "System.gc()");
    // Serial's layout: eden, two survivors of an eighth of it, the old space from the next MiB
    // up, committed a MiB at a time as it grows.
    const uint64_t eden = (options_.young_bytes + 7) / 8 * 8, survivor = (eden / 8 + 7) / 8 * 8;
    const uint64_t mib = 1u << 20;
    spaces_[kEden] = {options_.heap_base, options_.heap_base, options_.heap_base + eden};
    spaces_[kSurvivor0] = {spaces_[kEden].end, spaces_[kEden].end, spaces_[kEden].end + survivor};
    spaces_[kSurvivor1] = {spaces_[kSurvivor0].end, spaces_[kSurvivor0].end,
                           spaces_[kSurvivor0].end + survivor};
    const uint64_t old = (spaces_[kSurvivor1].end + mib - 1) / mib * mib;
    spaces_[kOld] = {old, old, old + 4 * mib};
    const char* names[kSpaces] = {"Eden Space", "Survivor Space 0", "Survivor Space 1", "Tenured Gen"};
    for (int i = 0; i < kSpaces; ++i)
        out_.defineSpace(static_cast<uint32_t>(i + 1), names[i], spaces_[i].bottom,
                         spaces_[i].end - spaces_[i].bottom);
}

uint64_t SimHeap::place(Space space, uint64_t size) {
    SpaceData& s = spaces_[space];
    const uint64_t at = s.top;
    s.top += size;
    // The old space is committed as it grows; the young spaces never overflow (see alloc).
    if (space == kOld && s.top > s.end) s.end = (s.top + (1u << 20) - 1) / (1u << 20) * (1u << 20);
    return at;
}

uint32_t SimHeap::defineClass(std::string_view name, std::initializer_list<FieldSpec> fields,
                              uint32_t super_type) {
    uint32_t id = nextSymbol(next_type_);
    types_.resize(size_t{id} + 1);
    TypeData t;
    uint32_t bytes = 0;
    if (super_type != 0) {
        const TypeData& s = types_[super_type];
        t.ref_fields = s.ref_fields;
        t.weak = s.weak;
        t.ref_names = s.ref_names;
        bytes = s.instance_size - kObjectHeader;  // approximate: the super's padding is kept
    }
    for (const FieldSpec& f : fields) {
        bytes += fieldBytes(f.kind);
        bool ref = f.kind == FieldKind::kRef || f.kind == FieldKind::kWeakRef;
        uint32_t field_id = nextSymbol(next_field_);
        out_.defineField(field_id, id, f.name, f.type_name, ref ? format::kFieldReference : 0);
        if (ref) {
            t.ref_fields.push_back(field_id);
            t.weak.push_back(f.kind == FieldKind::kWeakRef);
            t.ref_names.emplace_back(f.name);
        }
    }
    t.instance_size = static_cast<uint32_t>(std::max<uint64_t>(16, align8(kObjectHeader + bytes)));
    types_[id] = t;
    TypeDef def;
    def.name = name;
    def.kind = format::TypeKind::kInstance;
    def.super_type = super_type;
    def.instance_size = t.instance_size;
    out_.defineType(id, def);
    return id;
}

uint32_t SimHeap::defineArray(std::string_view name, FieldKind element, uint32_t element_type) {
    uint32_t id = nextSymbol(next_type_);
    types_.resize(size_t{id} + 1);
    TypeData t;
    t.is_array = true;
    t.ref_elements = element == FieldKind::kRef;
    t.element_size = fieldBytes(element);
    types_[id] = t;
    TypeDef def;
    def.name = name;
    def.kind = t.ref_elements ? format::TypeKind::kReferenceArray : format::TypeKind::kPrimitiveArray;
    def.array_header = kArrayHeader;
    def.element_size = t.element_size;
    def.element_type = element_type;
    out_.defineType(id, def);
    return id;
}

uint32_t SimHeap::defineMethod(std::string_view class_name, std::string_view name, std::string_view signature,
                               std::string_view source_file) {
    uint32_t id = nextSymbol(next_method_);
    out_.defineMethod(id, class_name, name, signature, source_file);
    return id;
}

uint32_t SimHeap::site(std::span<const FrameSpec> frames) {
    std::vector<std::pair<uint32_t, int32_t>> key;
    key.reserve(frames.size());
    for (const FrameSpec& f : frames)
        key.emplace_back(f.method, f.line);
    auto it = sites_.find(key);
    if (it != sites_.end()) return it->second;
    std::vector<Frame> f;
    for (const FrameSpec& s : frames)
        f.push_back({s.method, s.line});
    uint32_t id = nextSymbol(next_site_);
    out_.defineSite(id, f);
    sites_.emplace(std::move(key), id);
    return id;
}

uint32_t SimHeap::defineString(std::string_view s) {
    uint32_t id = nextSymbol(next_string_);
    out_.defineString(id, s);
    return id;
}

uint32_t SimHeap::startThread(std::string_view name, bool daemon) {
    uint32_t id = nextSymbol(next_thread_);
    // Its object is the next one allocated (unknown in a sampled trace, which may leave it out).
    out_.defineThread(id, name, daemon ? format::kThreadDaemon : 0,
                      options_.sampling_interval ? 0 : next_id_);
    uint32_t creator = thread_ == 0 ? id : thread_;
    uint32_t saved = thread_;
    thread_ = creator;
    Ref obj = alloc(thread_type_, thread_site_);
    thread_ = saved == 0 ? id : saved;
    threads_.push_back({id, obj, true});
    out_.threadStart({id, clock_});
    return id;
}

void SimHeap::endThread(uint32_t thread) {
    for (ThreadData& t : threads_) {
        if (t.id == thread && t.running) {
            t.running = false;
            clearLocals(thread);
            out_.threadEnd({thread, clock_});
        }
    }
}

uint64_t SimHeap::arraySize(uint32_t type, uint64_t length) const {
    return align8(kArrayHeader + length * types_[type].element_size);
}

uint32_t SimHeap::refSlot(uint32_t type, std::string_view field) const {
    const TypeData& t = types_[type];
    for (size_t i = t.ref_names.size(); i-- > 0;)
        if (t.ref_names[i] == field) return static_cast<uint32_t>(i);
    throw std::logic_error("no reference field " + std::string(field));
}

Ref SimHeap::newObject(uint32_t type, uint32_t site, uint32_t nrefs, uint32_t length, uint64_t size,
                       bool array) {
    Ref r;
    if (!free_slots_.empty()) {
        r = free_slots_.back();
        free_slots_.pop_back();
    } else {
        r = static_cast<Ref>(objects_.size());
        objects_.emplace_back();
    }
    Object& o = objects_[r];
    o.recorded = options_.sampling_interval == 0 || sampleNext(size);
    // Every object takes the id the exact twin gives it (a sampled trace's ids have gaps), so
    // that a sample is the same object in both.
    o.id = next_id_++;
    o.type = type;
    o.nrefs = nrefs;
    o.refs = static_cast<uint32_t>(refs_.size());
    o.length = length;
    o.size = size;
    o.birth_gc = static_cast<uint32_t>(gcs_.size());
    o.used = true;
    o.age = 0;
    // Into eden, or where it would not fit (or fill more than half of it) into the old space.
    const SpaceData& eden = spaces_[kEden];
    o.address = size <= (eden.end - eden.bottom) / 2 && eden.top + size <= eden.end ? place(kEden, size)
                                                                                    : place(kOld, size);
    refs_.resize(refs_.size() + nrefs, kNull);

    if (o.recorded) {
        AllocEvent e;
        e.id = o.id;
        e.type = type;
        e.site = site;
        e.thread = thread_;
        e.length = array ? length : kNoLength;
        e.time_ns = clock_;
        out_.alloc(e);
    }
    clock_ += options_.alloc_ns + static_cast<int64_t>(size) * options_.alloc_ns_per_kb / 1024;
    young_allocated_ += size;
    bytes_since_gc_ += size;
    ++live_objects_;
    live_bytes_ += size;
    return r;
}

Ref SimHeap::alloc(uint32_t type, uint32_t site) {
    const TypeData& t = types_[type];
    return newObject(type, site, static_cast<uint32_t>(t.ref_fields.size()), 0, t.instance_size, false);
}

Ref SimHeap::allocArray(uint32_t type, uint32_t site, uint32_t length) {
    const TypeData& t = types_[type];
    return newObject(type, site, t.ref_elements ? length : 0, length, arraySize(type, length), true);
}

void SimHeap::set(Ref obj, uint32_t slot, Ref value) {
    const Object& o = objects_[obj];
    if (slot >= o.nrefs) throw std::logic_error("reference slot out of range");
    refs_[o.refs + slot] = value;
}

Ref SimHeap::get(Ref obj, uint32_t slot) const {
    const Object& o = objects_[obj];
    if (slot >= o.nrefs) throw std::logic_error("reference slot out of range");
    return refs_[o.refs + slot];
}

uint32_t SimHeap::defineStatic(uint32_t owner, std::string_view name, std::string_view type_name, Ref value) {
    uint32_t field_id = nextSymbol(next_field_);
    out_.defineField(field_id, owner, name, type_name, format::kFieldStatic | format::kFieldReference);
    statics_.push_back({owner, field_id, value});
    return static_cast<uint32_t>(statics_.size() - 1);
}

void SimHeap::setStatic(uint32_t handle, Ref value) {
    statics_.at(handle).value = value;
}

void SimHeap::setLocal(uint32_t thread, uint32_t method, uint32_t slot, uint32_t depth, Ref value) {
    for (size_t i = 0; i < locals_.size(); ++i) {
        Local& l = locals_[i];
        if (l.thread == thread && l.slot == slot && l.depth == depth) {
            if (value == kNull) {
                locals_.erase(locals_.begin() + static_cast<ptrdiff_t>(i));
            } else {
                l.method = method;
                l.value = value;
            }
            return;
        }
    }
    if (value != kNull) locals_.push_back({thread, method, slot, depth, value});
}

void SimHeap::clearLocals(uint32_t thread) {
    std::erase_if(locals_, [&](const Local& l) { return l.thread == thread; });
}

void SimHeap::safepoint() {
    if (young_allocated_ >= options_.young_bytes) collect(false);
}

uint32_t SimHeap::gc() {
    collect(true);
    return static_cast<uint32_t>(gcs_.size() - 1);
}

void SimHeap::mark() {
    marks_.assign(objects_.size(), 0);
    std::vector<Ref> stack;
    auto push = [&](Ref r) {
        if (r == kNull || marks_[r]) return;
        marks_[r] = 1;
        stack.push_back(r);
    };
    for (const Static& s : statics_)
        push(s.value);
    for (const Local& l : locals_)
        push(l.value);
    for (const ThreadData& t : threads_)
        if (t.running) push(t.object);
    while (!stack.empty()) {
        Ref r = stack.back();
        stack.pop_back();
        const Object& o = objects_[r];
        const TypeData& t = types_[o.type];
        for (uint32_t i = 0; i < o.nrefs; ++i) {
            if (!t.is_array && t.weak[i]) continue;  // weak referents are not traced
            push(refs_[o.refs + i]);
        }
    }
}

void SimHeap::collect(bool explicit_gc) {
    const auto g = static_cast<uint32_t>(gcs_.size());
    SimGcInfo info;
    info.index = g;
    info.explicit_gc = explicit_gc;
    info.start_ns = clock_;
    GcStartEvent start;
    start.gc = g;
    start.kind = static_cast<uint8_t>(explicit_gc ? format::GcKind::kMajor : format::GcKind::kMinor);
    start.cause = explicit_gc ? 2 : 1;
    start.time_ns = clock_;
    out_.gcStart(start);

    mark();
    std::vector<uint64_t> dead;
    uint64_t copied = 0;
    std::vector<uint32_t> new_refs;
    new_refs.reserve(refs_.size());
    for (Ref r = 0; r < objects_.size(); ++r) {
        Object& o = objects_[r];
        if (!o.used) continue;
        if (!marks_[r]) {
            if (o.recorded) dead.push_back(o.id);
            info.freed_objects++;
            info.freed_bytes += o.size;
            o.used = false;
            free_slots_.push_back(r);
            continue;
        }
        if (o.birth_gc == g) copied += o.size;
        info.live_objects++;
        info.live_bytes += o.size;
    }
    // Clear weak referents that died, and compact the reference slots of the survivors.
    for (Ref r = 0; r < objects_.size(); ++r) {
        Object& o = objects_[r];
        if (!o.used) continue;
        auto begin = static_cast<uint32_t>(new_refs.size());
        const TypeData& t = types_[o.type];
        for (uint32_t i = 0; i < o.nrefs; ++i) {
            Ref v = refs_[o.refs + i];
            if (v != kNull && !t.is_array && t.weak[i] && !marks_[v]) v = kNull;
            new_refs.push_back(v);
        }
        o.refs = begin;
    }
    refs_ = std::move(new_refs);
    moveObjects(explicit_gc);
    // Free slots are reused lowest first, which keeps the table dense.
    std::sort(free_slots_.begin(), free_slots_.end(), std::greater<>());

    int64_t pause = options_.pause_base_ns +
                    static_cast<int64_t>(copied) * options_.pause_ns_per_kb_copied / 1024 +
                    static_cast<int64_t>(info.live_bytes) * options_.pause_ns_per_kb_live / 1024;
    clock_ += pause;
    info.end_ns = clock_;

    GcEndEvent end;
    end.gc = g;
    end.time_ns = clock_;
    end.next_object_id = next_id_;
    end.heap_used_before = vm_live_after_ + bytes_since_gc_;
    end.heap_used_after = info.live_bytes;
    end.heap_committed = std::max<uint64_t>(2 * info.live_bytes, 4 * options_.young_bytes);
    end.pause_ns = static_cast<uint64_t>(pause);
    out_.gcEnd(end);
    std::sort(dead.begin(), dead.end());
    out_.deaths(g, dead);
    const bool sampled = options_.sampling_interval != 0;
    if (sampled && explicit_gc) writeCensus(g);
    const bool snapshot = options_.refs_every != 0 && (explicit_gc || g % options_.refs_every == 0);
    // Addresses at every fourth snapshot GC and every explicit one: they cost about as much as
    // the snapshot itself. (Not in a sampled trace, whose heap is only the samples.)
    writeLayout(g, !sampled && snapshot && (explicit_gc || g % (4 * std::max(options_.refs_every, 1u)) == 0));
    if (snapshot) writeSnapshot(g);

    vm_live_after_ = info.live_bytes;
    live_objects_ = info.live_objects;
    live_bytes_ = info.live_bytes;
    young_allocated_ = 0;
    bytes_since_gc_ = 0;
    gcs_.push_back(info);
}

bool SimHeap::sampleNext(uint64_t size) {
    uint64_t z = (sampler_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    const double uniform = static_cast<double>(z >> 11) * 0x1.0p-53;
    return uniform <
           -std::expm1(-static_cast<double>(size) / static_cast<double>(options_.sampling_interval));
}

void SimHeap::writeCensus(uint32_t gc) {
    std::map<uint32_t, CensusType> by_type;
    for (const Object& o : objects_) {
        if (!o.used) continue;
        CensusType& t = by_type[o.type];
        t.type = o.type;
        (o.recorded ? t.objects : t.untracked_objects) += 1;
        (o.recorded ? t.bytes : t.untracked_bytes) += o.size;
    }
    GcCensusEvent e;
    e.gc = gc;
    for (const auto& [type, t] : by_type)
        e.types.push_back(t);
    e.newer_by_address = true;  // nothing is allocated between a simulated GC and its census
    out_.extension(static_cast<uint32_t>(format::ExtensionKind::kGcCensus), encodeGcCensus(e));
}

void SimHeap::moveObjects(bool full) {
    // The survivors to move, in address order: the young ones (or, in a full GC, all).
    std::vector<std::pair<uint64_t, Ref>> moving;
    const uint64_t young_end = spaces_[kSurvivor1].end;
    for (Ref r = 0; r < objects_.size(); ++r)
        if (objects_[r].used && (full || objects_[r].address < young_end))
            moving.emplace_back(objects_[r].address, r);
    std::sort(moving.begin(), moving.end());
    for (SpaceData& space : spaces_)
        space.top_before = space.top;
    const Space to = from_ == kSurvivor0 ? kSurvivor1 : kSurvivor0;
    spaces_[kEden].top = spaces_[kEden].bottom;
    spaces_[to].top = spaces_[to].bottom;
    if (full) {
        // Sliding compaction: the young spaces lie below the old one, so the old objects go
        // first, then the young ones, each group in address order.
        std::stable_partition(moving.begin(), moving.end(),
                              [&](const auto& m) { return m.first >= spaces_[kOld].bottom; });
        spaces_[kOld].top = spaces_[kOld].bottom;
        spaces_[from_].top = spaces_[from_].bottom;
        for (const auto& [address, r] : moving) {
            objects_[r].address = place(kOld, objects_[r].size);
            objects_[r].age = kTenureAge;
        }
        return;
    }
    for (const auto& [address, r] : moving) {
        Object& o = objects_[r];
        const bool fits = spaces_[to].top + o.size <= spaces_[to].end;
        o.address = ++o.age >= kTenureAge || !fits ? place(kOld, o.size) : place(to, o.size);
    }
    spaces_[from_].top = spaces_[from_].bottom;
    from_ = to;
}

void SimHeap::writeLayout(uint32_t gc, bool addresses) {
    GcSpacesEvent e;
    e.gc = gc;
    const SpaceKind kinds[kSpaces] = {SpaceKind::kEden, SpaceKind::kSurvivor, SpaceKind::kSurvivor,
                                      SpaceKind::kOld};
    for (int i = 0; i < kSpaces; ++i)
        e.spaces.push_back({static_cast<uint32_t>(i + 1), kinds[i], spaces_[i].bottom, spaces_[i].top,
                            spaces_[i].end, std::min(spaces_[i].top_before, spaces_[i].end)});
    out_.gcSpaces(e);
    if (!addresses) return;
    std::vector<ObjectAddress> placed;
    for (const Object& o : objects_)
        if (o.used) placed.push_back({o.id, o.address});
    std::sort(placed.begin(), placed.end(),
              [](const ObjectAddress& a, const ObjectAddress& b) { return a.id < b.id; });
    out_.addresses(gc, placed);
}

void SimHeap::writeSnapshot(uint32_t gc) {
    out_.beginSnapshot(gc);
    // Every live object is reachable (a collection keeps nothing else). A sampled trace's snapshot
    // names each by its sample's id, or, left out, by a fresh one above every sample's (as the
    // agent's walk does; here from a range of their own, so that the ids of later objects stay
    // the exact twin's), and lists those as its unsampled objects.
    std::vector<uint64_t> id_of(objects_.size(), 0);
    for (Ref r = 0; r < objects_.size(); ++r) {
        const Object& o = objects_[r];
        if (!o.used) continue;
        if (o.recorded) {
            id_of[r] = o.id;
            continue;
        }
        id_of[r] = next_snapshot_id_++;
        AllocEvent e;
        e.id = id_of[r];
        e.type = o.type;
        if (types_[o.type].is_array) e.length = o.length;
        e.size = o.size;
        out_.snapshotUnsampled(e);
    }
    std::vector<std::pair<uint64_t, Ref>> order;
    for (Ref r = 0; r < objects_.size(); ++r)
        if (objects_[r].used && objects_[r].nrefs > 0) order.emplace_back(id_of[r], r);
    std::sort(order.begin(), order.end());
    std::vector<Edge> edges;
    for (const auto& [id, r] : order) {
        const Object& o = objects_[r];
        const TypeData& t = types_[o.type];
        edges.clear();
        for (uint32_t i = 0; i < o.nrefs; ++i) {
            Ref v = refs_[o.refs + i];
            if (v == kNull) continue;
            Edge e;
            e.target = id_of[v];
            e.field = t.is_array ? 0 : t.ref_fields[i];
            e.strength = static_cast<uint8_t>(!t.is_array && t.weak[i] ? format::RefStrength::kWeak
                                                                       : format::RefStrength::kStrong);
            edges.push_back(e);
        }
        if (!edges.empty()) out_.snapshotObject(id, edges);
    }
    using format::RootKind;
    for (const Static& s : statics_)
        if (s.value != kNull)
            out_.snapshotRoot(Root::make(static_cast<uint32_t>(RootKind::kStaticField), id_of[s.value],
                                         {s.owner, s.field}));
    for (const Local& l : locals_)
        out_.snapshotRoot(Root::make(static_cast<uint32_t>(RootKind::kStackLocal), id_of[l.value],
                                     {l.thread, l.method, l.slot, l.depth}));
    for (const ThreadData& t : threads_)
        if (t.running)
            out_.snapshotRoot(Root::make(static_cast<uint32_t>(RootKind::kThread), id_of[t.object], {t.id}));
    out_.endSnapshot();
}

void SimHeap::finish() {
    for (ThreadData& t : threads_)
        if (t.running) endThread(t.id);
}

}  // namespace memcity::synth
