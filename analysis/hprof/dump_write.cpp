// DumpImport, its second half: the types, fields and threads defined, every object allocated,
// the GC, the last dump's objects' deaths, the addresses and the snapshot's references and roots
// written (dump_import.h).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "hprof/dump_import.h"
#include "trace/extensions.h"
#include "trace/java_names.h"

namespace memcity::hprof::detail {

uint32_t DumpImport::defineType(uint32_t ci) {
    // Its superclasses first, from the highest not defined yet.
    superFirst(
        ci, [&](uint32_t k) { return d_.classes[k].type != 0; }, [&](uint32_t k) { defineOneType(k); });
    return d_.classes[ci].type;
}

void DumpImport::defineOneType(uint32_t ci) {
    ClassInfo& c = d_.classes[ci];
    const uint32_t super_type = c.super != kNone ? d_.classes[c.super].type : 0;
    Symbols& sym = st_.symbols;
    // The same class in the next dump: its name, which of that name it is, its fields.
    std::string key = c.internal + '\n' + std::to_string(occurrence_[ci]) + '\n';
    for (const ClassField& f : c.fields)
        key += std::string(d_.stringOf(f.name_id)) + ':' + std::to_string(f.type) + ';';
    auto [it, added] = sym.types.try_emplace(key, 0);
    if (!added) {
        c.type = it->second;
        c.field_symbols = sym.type_fields[c.type];
        c.static_symbols = sym.type_statics[c.type];
        return;
    }
    c.type = it->second = ++sym.next_type;
    const std::string name = javaNameOfInternal(c.internal);
    TypeDef def;
    def.name = name;
    def.super_type = super_type;
    if (c.internal.size() > 1 && c.internal[0] == '[') {
        const bool refs = c.internal[1] == 'L' || c.internal[1] == '[';
        def.kind = refs ? format::TypeKind::kReferenceArray : format::TypeKind::kPrimitiveArray;
        def.element_size = elementBytes(c);
        def.array_header = model_.arrayHeader(def.element_size);
    } else {
        def.instance_size = static_cast<uint32_t>(c.size);
    }
    sym.type_size[c.type] = c.size;
    st_.writer->defineType(c.type, def);
    for (const ClassField& f : c.fields) {
        const bool ref = f.type == static_cast<uint8_t>(BasicType::kObject);
        const uint32_t id = ++sym.next_field;
        st_.writer->defineField(id, c.type, d_.stringOf(f.name_id), basicTypeName(f.type),
                                ref ? format::kFieldReference : 0);
        c.field_symbols.push_back(id);
    }
    for (const StaticField& f : c.statics) {
        uint32_t id = 0;
        if (!isPseudoStatic(f)) {
            const bool ref = f.type == static_cast<uint8_t>(BasicType::kObject);
            id = ++sym.next_field;
            st_.writer->defineField(
                id, c.type, d_.stringOf(f.name_id), basicTypeName(f.type),
                static_cast<uint8_t>(format::kFieldStatic | (ref ? format::kFieldReference : 0)));
        }
        c.static_symbols.push_back(id);
    }
    sym.type_fields[c.type] = c.field_symbols;
    sym.type_statics[c.type] = c.static_symbols;
}

void DumpImport::defineTypes() {
    std::unordered_map<std::string, uint32_t> seen;
    occurrence_.assign(d_.classes.size(), 0);
    for (uint32_t i = 0; i < d_.classes.size(); ++i)
        occurrence_[i] = seen[d_.classes[i].internal]++;
    for (uint32_t i = 0; i < d_.classes.size(); ++i)
        if (!d_.classes[i].unused) defineType(i);
}

void DumpImport::findReferenceSlots() {
    // Each class's strength: its own, else its superclass's (each class once, supers first).
    std::vector<uint8_t> known(d_.classes.size(), 0);
    for (uint32_t ci = 0; ci < d_.classes.size(); ++ci)
        superFirst(
            ci, [&](uint32_t k) { return known[k] != 0; },
            [&](uint32_t k) {
                ClassInfo& c = d_.classes[k];
                c.strength = ownStrength(c);
                if (c.strength == 0 && c.super != kNone) c.strength = d_.classes[c.super].strength;
                known[k] = 1;
            });
    // Which classes have an instance whose values hold all their fields (no other is read).
    std::vector<uint8_t> read(d_.classes.size(), 0);
    for (const Obj& o : d_.objects)
        if (o.kind() == ObjKind::kInstance && o.length >= d_.classes[o.cls].value_bytes) read[o.cls] = 1;
    // Each class's reference fields where its instances' values hold them: its own fields
    // first, then its superclass's, and so on up.
    for (uint32_t ci = 0; ci < d_.classes.size(); ++ci) {
        ClassInfo& c = d_.classes[ci];
        c.refs.clear();
        if (!read[ci]) continue;
        uint32_t at = 0;  // (below the values' length, a u4)
        for (uint32_t k = ci; k != kNone; k = d_.classes[k].super) {
            const ClassInfo& owner = d_.classes[k];
            const bool reference_class = owner.internal == "java/lang/ref/Reference";
            for (uint32_t f = 0; f < owner.fields.size(); ++f) {
                const ClassField& field = owner.fields[f];
                if (field.type == static_cast<uint8_t>(BasicType::kObject)) {
                    const bool referent = reference_class && d_.stringOf(field.name_id) == "referent";
                    c.refs.push_back({at, k, f, referent ? c.strength : uint8_t{0}});
                }
                at += valueSize(field.type, ids_);
            }
        }
    }
}

template <typename Fn>
void DumpImport::forEachReference(const Obj& o, Fn&& fn) const {
    const uint8_t* data = bytes_.data();
    switch (o.kind()) {
        case ObjKind::kInstance: {
            const ClassInfo& c = d_.classes[o.cls];
            const uint64_t values = instanceValuesAt(o.where(), ids_);
            // (Values shorter than the class's fields: a corrupt dump, whose slots are not read.)
            if (o.length < c.value_bytes || values + c.value_bytes > bytes_.size()) return;
            for (const ClassInfo::RefSlot& s : c.refs)
                fn(be(data + values + s.at, ids_), &s);
            return;
        }
        case ObjKind::kObjectArray: {
            const uint64_t elements = objectElementsAt(o.where(), ids_);
            if (elements + uint64_t{o.length} * ids_ > bytes_.size()) return;
            for (uint32_t i = 0; i < o.length; ++i)
                fn(be(data + elements + uint64_t{i} * ids_, ids_), nullptr);
            return;
        }
        default: return;
    }
}

void DumpImport::addUnlistedMirrors() {
    // HotSpot dumps a class's mirror only as its CLASS DUMP, and only for the classes it lists
    // (loaded ones): what else references a mirror (CDS's archived mirrors of classes not loaded
    // yet, held by an Object[] in the archived heap) points at an object the dump lacks. Those
    // are java.lang.Class objects the JVM counts: they are added as such.
    std::vector<uint64_t> absent, second;
    inTwoHalves(d_.objects.size(), [&](size_t from, size_t to, int half) {
        std::vector<uint64_t>& out = half == 0 ? absent : second;
        for (size_t i = from; i < to; ++i)
            forEachReference(d_.objects[i], [&](uint64_t target, const ClassInfo::RefSlot*) {
                if (target != 0 && !holds(target)) out.push_back(target);
            });
    });
    absent.insert(absent.end(), second.begin(), second.end());
    auto note = [&](uint64_t target) {
        if (target != 0 && !holds(target)) absent.push_back(target);
    };
    for (const ClassInfo& c : d_.classes)
        for (const StaticField& f : c.statics)
            if (f.type == static_cast<uint8_t>(BasicType::kObject)) note(f.value);
    for (const Root& r : d_.roots)
        note(r.object_id);
    if (absent.empty()) return;
    std::sort(absent.begin(), absent.end());
    absent.erase(std::unique(absent.begin(), absent.end()), absent.end());
    // Within the dump's heap, on its alignment: elsewhere the reference is dropped (a corrupt dump).
    const uint64_t unit_mask = (uint64_t{1} << shift_) - 1;
    size_t added = 0;
    for (uint64_t a : absent) {
        if (a < min_address_ || a > max_address_ || ((a - min_address_) & unit_mask) != 0) continue;
        d_.objects.push_back({a, 0, class_class_, 0, ObjKind::kUnlisted});
        ++added;
    }
    stats_.unlisted_mirrors = added;
    if (added) sortObjects(0.55, 0.7);
}

uint32_t DumpImport::find(uint64_t address) const {
    auto it = std::lower_bound(d_.objects.begin(), d_.objects.end(), address,
                               [](const Obj& o, uint64_t a) { return o.address < a; });
    return it != d_.objects.end() && it->address == address ? static_cast<uint32_t>(it - d_.objects.begin())
                                                            : kNone;
}

bool DumpImport::holds(uint64_t address) const {
    if (address < min_address_ || address > max_address_) return false;
    const uint64_t offset = address - min_address_;
    if (offset & ((uint64_t{1} << shift_) - 1)) return false;
    const uint64_t bit = offset >> shift_;
    if (!present_.empty()) return present_[bit >> 6] >> (bit & 63) & 1;
    return find(address) != kNone;
}

bool DumpImport::fieldOf(const Obj& o, std::string_view name, uint64_t* value, uint8_t* type) const {
    if (o.kind() != ObjKind::kInstance) return false;
    const uint64_t values = instanceValuesAt(o.where(), ids_);
    const uint64_t values_end = std::min<uint64_t>(values + o.length, bytes_.size());
    uint64_t at = values;
    for (uint32_t k = o.cls; k != kNone; k = d_.classes[k].super) {
        for (const ClassField& f : d_.classes[k].fields) {
            const uint32_t n = valueSize(f.type, ids_);
            if (at + n > values_end) return false;
            if (d_.stringOf(f.name_id) == name) {
                *value = be(bytes_.data() + at, n);
                *type = f.type;
                return true;
            }
            at += n;
        }
    }
    return false;
}

std::string DumpImport::stringValue(uint64_t address) const {
    const uint32_t s = find(address);
    if (s == kNone || d_.classes[d_.objects[s].cls].internal != "java/lang/String") return {};
    uint64_t value = 0, coder = 0;
    uint8_t type = 0;
    if (!fieldOf(d_.objects[s], "value", &value, &type)) return {};
    if (!fieldOf(d_.objects[s], "coder", &coder, &type)) coder = 2;  // JDK 8: a char[]
    const uint32_t a = find(value);
    if (a == kNone || d_.objects[a].kind() != ObjKind::kPrimitiveArray) return {};
    const Obj& arr = d_.objects[a];
    const uint64_t data = primitiveElementsAt(arr.where(), ids_);
    const uint32_t width = d_.classes[arr.cls].internal == "[C" ? 2 : 1;
    if (data + uint64_t{arr.length} * width > bytes_.size()) return {};
    const uint8_t* p = bytes_.data() + data;
    std::string out;
    auto put = [&](uint32_t cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | cp >> 6);
            out += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            out += static_cast<char>(0xe0 | cp >> 12);
            out += static_cast<char>(0x80 | (cp >> 6 & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
        }
    };
    if (width == 2) {  // char[]: big-endian chars
        for (uint32_t i = 0; i < arr.length && out.size() < 256; ++i)
            put(uint32_t{p[2 * i]} << 8 | p[2 * i + 1]);
    } else if (coder == 1) {  // UTF-16 in the JVM's (little-endian) order
        for (uint32_t i = 0; i + 1 < arr.length && out.size() < 256; i += 2)
            put(uint32_t{p[i + 1]} << 8 | p[i]);
    } else {  // Latin-1
        for (uint32_t i = 0; i < arr.length && out.size() < 256; ++i)
            put(p[i]);
    }
    return out;
}

uint32_t DumpImport::methodOf(uint64_t frame_id) {
    auto f = d_.frames.find(frame_id);
    if (f == d_.frames.end()) return 0;
    const StackFrame& frame = f->second;
    std::string class_name;
    if (auto c = d_.class_serials.find(frame.class_serial); c != d_.class_serials.end())
        class_name = javaNameOfInternal(d_.stringOf(c->second));
    const std::string_view name = d_.stringOf(frame.method_name_id), sig = d_.stringOf(frame.signature_id),
                           source = d_.stringOf(frame.source_file_id);
    std::string key = class_name + '\n' + std::string(name) + '\n' + std::string(sig);
    auto [it, added] = st_.symbols.methods.try_emplace(key, 0);
    if (added) {
        it->second = ++st_.symbols.next_method;
        st_.writer->defineMethod(it->second, class_name, name, sig, source);
    }
    return it->second;
}

void DumpImport::defineThreads() {
    std::unordered_map<std::string, uint32_t> seen;
    for (const Root& r : d_.roots) {
        if (r.kind != RootKind::kThreadObject || thread_of_serial_.count(r.thread_serial)) continue;
        std::string name;
        bool daemon = false;
        if (const uint32_t t = find(r.object_id); t != kNone) {
            uint64_t v = 0;
            uint8_t type = 0;
            if (fieldOf(d_.objects[t], "name", &v, &type)) name = stringValue(v);
            if (fieldOf(d_.objects[t], "daemon", &v, &type)) {
                daemon = v != 0;
            } else if (fieldOf(d_.objects[t], "holder", &v, &type)) {  // JDK 19 and later
                const uint32_t h = find(v);
                if (h != kNone && fieldOf(d_.objects[h], "daemon", &v, &type)) daemon = v != 0;
            }
        }
        if (name.empty()) name = "thread " + std::to_string(r.thread_serial);
        const std::string key = name + '\n' + std::to_string(seen[name]++);
        auto [it, added] = st_.symbols.threads.try_emplace(key, 0);
        if (added) {
            it->second = ++st_.symbols.next_thread;
            st_.writer->defineThread(it->second, name, daemon ? format::kThreadDaemon : 0,
                                     holds(r.object_id) ? idOf(r.object_id) : 0);
        }
        thread_of_serial_[r.thread_serial] = it->second;
        thread_trace_[r.thread_serial] = r.frame;
        ++stats_.threads;
    }
}

void DumpImport::writeAddresses() {
    // ADDRS, for the heap map; its addresses are multiples of the trace's alignment (8 bytes),
    // which a dump whose objects lie closer together (a corrupt one) does not have.
    if (shift_ < 3) return;
    TraceWriter& w = *st_.writer;
    std::vector<ObjectAddress> piece;
    constexpr size_t kPiece = 1u << 16;
    piece.reserve(std::min(kPiece, d_.objects.size()));
    for (const Obj& o : d_.objects) {  // in address order: ids ascending
        piece.push_back({idOf(o.address), o.address});
        if (piece.size() == kPiece) {
            w.addresses(st_.gc, piece);
            piece.clear();
        }
    }
    if (!piece.empty()) w.addresses(st_.gc, piece);
}

void DumpImport::writeRegions() {
    if (!st_.g1) return;
    DumpRegions grid(*st_.g1, st_.g1_collected);
    for (const Obj& o : d_.objects)  // in address order
        grid.add(o.address, sizeOf(o));
    auto table = grid.finish(st_.gc);
    if (!table) {
        stats_.regions_error = table.error().message;
        return;
    }
    stats_.region_counts = table->countRoles();
    st_.writer->meta("dump " + std::to_string(st_.gc) + " regions",
                     st_.g1_collected ? std::string(kRegionsAfterFullGc) : std::string(kRegionsWithoutGc));
    // The same table at the GC's start and end: a dump is one moment.
    table->after = false;
    st_.writer->gcRegions(*table);
    table->after = true;
    st_.writer->gcRegions(*table);
}

void DumpImport::writeObjects() {
    TraceWriter& w = *st_.writer;
    const int64_t time = time_ns_;
    const uint32_t class_type = d_.classes[class_class_].type;
    uint64_t done = 0;
    for (const Obj& o : d_.objects) {
        if (!stepEvery(ImportStep::kObjects, done++)) return;
        AllocEvent e;
        e.id = idOf(o.address);
        e.time_ns = time;
        const uint64_t size = sizeOf(o);
        switch (o.kind()) {
            case ObjKind::kInstance: {
                const ClassInfo& c = d_.classes[o.cls];
                e.type = c.type;
                if (st_.symbols.type_size[c.type] != size) e.size = size;
                ++stats_.instances;
                break;
            }
            case ObjKind::kMirror:
            case ObjKind::kUnlisted:
                e.type = class_type;
                e.size = size;
                ++stats_.mirrors;
                break;
            default:
                e.type = d_.classes[o.cls].type;
                e.length = o.length;
                ++stats_.arrays;
                break;
        }
        w.alloc(e);
        stats_.bytes += size;
    }
    stats_.objects = d_.objects.size();
}

void DumpImport::writeSnapshot() {
    TraceWriter& w = *st_.writer;
    w.beginSnapshot(st_.gc);
    std::vector<Edge> edges;
    std::vector<Root> roots;
    auto edgeTo = [&](uint64_t target, uint32_t field, uint8_t strength) {
        if (target == 0) return;
        if (!holds(target)) {
            ++stats_.dropped_edges;
            return;
        }
        edges.push_back({idOf(target), field, strength});
    };
    auto systemClass = [&](uint64_t target, uint32_t type) {
        if (target != 0 && holds(target))
            w.snapshotRoot(
                TraceRoot::make(static_cast<uint32_t>(format::RootKind::kSystemClass), idOf(target), {type}));
    };
    uint64_t done = 0;
    for (const Obj& o : d_.objects) {
        if (!stepEvery(ImportStep::kReferences, done++)) return;
        edges.clear();
        switch (o.kind()) {
            case ObjKind::kInstance:
            case ObjKind::kObjectArray:
                forEachReference(o, [&](uint64_t target, const ClassInfo::RefSlot* slot) {
                    if (slot)
                        edgeTo(target, d_.classes[slot->owner].field_symbols[slot->field], slot->strength);
                    else
                        edgeTo(target, 0, 0);
                });
                break;
            case ObjKind::kMirror: {
                // As the recorder sees a class: its statics are roots, and so is what its metadata
                // holds (its loader, signers, protection domain, resolved constants).
                const ClassInfo& c = d_.classes[o.cls];
                for (size_t k = 0; k < c.statics.size(); ++k) {
                    const StaticField& f = c.statics[k];
                    if (f.type != static_cast<uint8_t>(BasicType::kObject) || f.value == 0 || !holds(f.value))
                        continue;
                    if (c.static_symbols[k] == 0)
                        systemClass(f.value, c.type);
                    else
                        w.snapshotRoot(TraceRoot::make(static_cast<uint32_t>(format::RootKind::kStaticField),
                                                       idOf(f.value), {c.type, c.static_symbols[k]}));
                    ++stats_.roots;
                }
                systemClass(c.loader_id, c.type);
                systemClass(c.signers_id, c.type);
                systemClass(c.protection_domain_id, c.type);
                break;
            }
            default: break;
        }
        if (!edges.empty()) {
            w.snapshotObject(idOf(o.address), edges);
            stats_.edges += edges.size();
        }
    }
    for (const hprof::Root& r : d_.roots) {
        if (!holds(r.object_id)) continue;
        const uint64_t target = idOf(r.object_id);
        auto threadOf = [&]() -> uint64_t {
            auto t = thread_of_serial_.find(r.thread_serial);
            return t == thread_of_serial_.end() ? 0 : t->second;
        };
        TraceRoot root;
        using K = format::RootKind;
        auto kind = [](K k) { return static_cast<uint32_t>(k); };
        switch (r.kind) {
            case RootKind::kJniGlobal: root = TraceRoot::make(kind(K::kJniGlobal), target, {}); break;
            case RootKind::kJniLocal:
                root = TraceRoot::make(kind(K::kJniLocal), target, {threadOf(), r.frame});
                break;
            case RootKind::kJavaFrame: {
                uint32_t method = 0;
                if (auto t = thread_trace_.find(r.thread_serial); t != thread_trace_.end())
                    if (auto s = d_.traces.find(t->second);
                        s != d_.traces.end() && r.frame < s->second.frame_ids.size())
                        method = methodOf(s->second.frame_ids[r.frame]);
                root = TraceRoot::make(kind(K::kStackLocal), target, {threadOf(), method, 0, r.frame});
                break;
            }
            case RootKind::kStickyClass: {
                auto c = d_.class_index.find(r.object_id);
                root = TraceRoot::make(kind(K::kSystemClass), target,
                                       {c != d_.class_index.end() ? d_.classes[c->second].type : 0u});
                break;
            }
            case RootKind::kMonitorUsed: root = TraceRoot::make(kind(K::kMonitor), target, {}); break;
            case RootKind::kThreadObject:
                root = TraceRoot::make(kind(K::kThread), target, {threadOf()});
                break;
            default: root = TraceRoot::make(kind(K::kOther), target, {}); break;
        }
        w.snapshotRoot(root);
        ++stats_.roots;
    }
    w.endSnapshot();
}

Status DumpImport::run() {
    // (The fractions: roughly the time each part takes of laying out a big dump.)
    if (Status s = prepare(); !s.ok()) return s;
    if (!st_.step(ImportStep::kLayingOut, 0.55)) return {};
    layOutAll();  // (the values' layout in the dump, for the reference slots)
    findReferenceSlots();
    addUnlistedMirrors();
    if (!st_.step(ImportStep::kLayingOut, 0.7)) return {};
    pickModel();
    if (!st_.step(ImportStep::kLayingOut, 0.85)) return {};
    decideContended();
    sizeClasses();
    stats_.model = model_;
    if (!d_.objects.empty()) {
        // Where each object of this dump is: its id gives its address.
        char where[128];
        std::snprintf(where, sizeof where, "first id %llu at 0x%llx, %llu bytes per id",
                      static_cast<unsigned long long>(base_), static_cast<unsigned long long>(min_address_),
                      static_cast<unsigned long long>(uint64_t{1} << shift_));
        st_.writer->meta("dump " + std::to_string(st_.gc) + " addresses", where);
    }
    stats_.classes = d_.classes.size();
    stats_.timestamp_ms = d_.head.timestamp_ms;
    if (st_.gc == 0) st_.first_timestamp_ms = d_.head.timestamp_ms;
    time_ns_ =
        static_cast<int64_t>(d_.head.timestamp_ms - std::min(d_.head.timestamp_ms, st_.first_timestamp_ms)) *
        1'000'000;
    time_ns_ = std::max(time_ns_, st_.last_end_ns);  // (a clock step back, a pause longer than the gap)
    defineTypes();
    defineThreads();
    TraceWriter& w = *st_.writer;
    if (!st_.step(ImportStep::kObjects, 0)) return {};
    writeObjects();
    if (st_.progress.cancelled()) return {};
    GcStartEvent start;
    start.gc = st_.gc;
    start.kind = static_cast<uint8_t>(format::GcKind::kMajor);
    start.cause = st_.symbols.cause;
    start.time_ns = time_ns_;
    w.gcStart(start);
    GcEndEvent end;
    end.gc = st_.gc;
    end.time_ns = time_ns_ + static_cast<int64_t>(pause_ns_);
    end.pause_ns = pause_ns_;
    end.next_object_id = d_.objects.empty() ? base_ : idOf(max_address_) + 1;
    w.gcEnd(end);
    if (!st_.previous_ids.empty()) w.deaths(st_.gc, st_.previous_ids);
    // The heap is complete: a reader following the trace shows it now, before the addresses and
    // the references (a third of the import) are written.
    w.extension(static_cast<uint32_t>(format::ExtensionKind::kGcComplete), encodeGcComplete({st_.gc}));
    w.flush();
    if (!st_.step(ImportStep::kReferences, 0)) return {};
    writeAddresses();
    writeRegions();
    st_.previous_ids.clear();
    st_.previous_ids.reserve(d_.objects.size());
    for (const Obj& o : d_.objects)
        st_.previous_ids.push_back(idOf(o.address));
    writeSnapshot();
    st_.next_id = end.next_object_id;
    st_.last_end_ns = end.time_ns;
    return w.status();
}

}  // namespace memcity::hprof::detail
