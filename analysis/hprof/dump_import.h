// The importer's inside (hprof_import.h is its outside): what the reader's pass keeps of a dump
// (Dump), and one dump's import into the trace (DumpImport), whose parts live in
// dump_layout.cpp (the objects in address order, the object model, the classes' sizes) and
// dump_write.cpp (the types, threads, objects, GC, addresses and snapshot written).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "hprof/hotspot_layout.h"
#include "hprof/hprof_import.h"
#include "hprof/hprof_reader.h"
#include "trace/trace_writer.h"
#include "util/parallel.h"
#include "util/progress.h"

namespace memcity::hprof {
namespace detail {

constexpr uint32_t kNone = ~uint32_t{0};
// The most the objects' addresses may add to the layout model's size of a class: what a model
// can miss is @Contended padding and injected fields (a gap beyond is free space, not the class).
constexpr uint64_t kMaxCorrection = 1024;
using TraceRoot = memcity::Root;  // (hprof::Root is a dump's)

// Where a sub-record's parts begin, from its tag's offset: an INSTANCE DUMP's values (tag, id,
// stack serial, class id, length), an OBJECT ARRAY DUMP's elements (tag, id, stack serial,
// length, class id), a PRIMITIVE ARRAY DUMP's elements (tag, id, stack serial, length, type).
inline uint64_t instanceValuesAt(uint64_t record, uint32_t ids) {
    return record + 1 + ids + 4 + ids + 4;
}
inline uint64_t objectElementsAt(uint64_t record, uint32_t ids) {
    return record + 1 + ids + 4 + 4 + ids;
}
inline uint64_t primitiveElementsAt(uint64_t record, uint32_t ids) {
    return record + 1 + ids + 4 + 4 + 1;
}

inline uint64_t alignUp(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}

inline uint64_t be(const uint8_t* p, uint32_t n) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; ++i)
        v = v << 8 | p[i];
    return v;
}

// Runs fn(from, to, half) over [0, n) in two halves, the second on a thread of its own: the
// import's passes over every object of a big dump, while the other core has nothing to do.
template <typename Fn>
void inTwoHalves(size_t n, Fn&& fn) {
    if (n < (size_t{1} << 16)) {  // (not worth a thread)
        fn(size_t{0}, n / 2, 0);
        fn(n / 2, n, 1);
        return;
    }
    runParts(2, [&](size_t half) { half == 0 ? fn(size_t{0}, n / 2, 0) : fn(n / 2, n, 1); });
}

// "java/lang/String" or "[I" (a dump's internal names) as Java names them.
// A hidden class's suffix ("Foo$$Lambda+0x0000000800c0c000" in a dump) as JVMTI names it
// (".0x..."), so a dump and a recording name it alike.
std::string javaNameOfInternal(std::string_view internal);

// The internal name of a primitive array type's class ("[I" for int).
std::string_view primitiveArrayName(uint8_t type);

// kUnlisted: a java.lang.Class the dump references but does not list (its size in `length`).
enum class ObjKind : uint8_t { kInstance, kObjectArray, kPrimitiveArray, kMirror, kUnlisted };

// One object of a dump; where() is its sub-record's offset (a mirror: its class's index). 24
// bytes (the offset and the kind share a word): a gigabyte's dump has twenty million of them,
// and every pass of the import reads them all.
struct Obj {
    uint64_t address = 0;
    uint64_t where_kind = 0;  // where << 8 | kind
    uint32_t cls = 0;
    uint32_t length = 0;

    Obj() = default;
    Obj(uint64_t a, uint64_t where, uint32_t c, uint32_t n, ObjKind k)
        : address(a), where_kind(where << 8 | static_cast<uint8_t>(k)), cls(c), length(n) {}
    uint64_t where() const { return where_kind >> 8; }
    ObjKind kind() const { return static_cast<ObjKind>(where_kind & 0xff); }
};
static_assert(sizeof(Obj) == 24);

struct ClassInfo {
    uint64_t class_id = 0, super_id = 0, loader_id = 0, signers_id = 0, protection_domain_id = 0;
    std::string internal;  // "java/lang/String"
    bool dumped = false;   // a CLASS DUMP was read
    bool unused = false;   // merged into another: no type of its own
    uint32_t super = kNone;
    std::vector<ClassField> fields;
    std::vector<StaticField> statics;
    // Computed.
    uint64_t value_bytes = 0;  // of an instance's values in the dump: this class's fields and its supers'
    uint64_t layout_size = 0;  // the layout model's instance size
    uint64_t base_layout_size = 0;  // the same without `extra`
    uint64_t extra = 0;             // bytes the addresses say the model lacks
    uint64_t size = 0;              // the size given to its instances
    bool laid_out = false;
    std::unique_ptr<FieldLayout> layout;
    uint64_t instances = 0, gaps = 0, exact = 0, min_gap = ~uint64_t{0};
    uint8_t strength = 0;  // of its referent field (a java.lang.ref.Reference)
    uint32_t type = 0;     // trace type id
    std::vector<uint32_t> field_symbols, static_symbols;
    struct RefSlot {
        uint32_t at;     // byte offset in the values
        uint32_t owner;  // the class that declares the field
        uint32_t field;  // its index in the owner's fields
        uint8_t strength;
    };
    // Every reference field of the chain; only for a class with an instance whose values hold
    // them all (what else could read them), so the slots of all classes together are bounded by
    // the dump's bytes, not by its classes times their chains' fields.
    std::vector<RefSlot> refs;
};

// Names and symbols that stay the same from one dump to the next.
struct Symbols {
    uint32_t next_type = 0, next_field = 0, next_thread = 0, next_method = 0, next_string = 0;
    std::map<std::string, uint32_t> types;    // key: name, occurrence and fields
    std::map<std::string, uint32_t> threads;  // key: name and occurrence
    std::map<std::string, uint32_t> methods;
    std::map<uint32_t, std::vector<uint32_t>> type_fields, type_statics;
    std::map<uint32_t, uint64_t> type_size;
    uint32_t cause = 0;
};

}  // namespace detail

struct Importer::State {
    std::string path, producer;
    std::unique_ptr<TraceWriter> writer;
    detail::Symbols symbols;
    uint32_t gc = 0;
    uint64_t next_id = 1;
    uint64_t first_timestamp_ms = 0;
    int64_t last_end_ns = 0;                    // the last dump's GC's end
    std::vector<uint64_t> previous_ids;         // the objects of the last dump: they die at the next
    Progress progress;                          // Importer::onProgress; stage: an ImportStep
    uint64_t split_bytes = uint64_t{64} << 20;  // a dump this big is read on two threads
    std::optional<G1Grid> g1;                   // Importer::placeInG1Regions
    bool g1_collected = false;
    // Whether to go on.
    bool step(ImportStep s, double fraction) {
        return progress.report({.fraction = fraction, .stage = static_cast<uint32_t>(s)});
    }
};

namespace detail {

// Everything pass one keeps of a dump.
struct Dump final : Visitor {
    Header head;
    // Called with the header, before any record; and every so many objects with the offset of
    // the object's record (for progress).
    std::function<Status(const Header&)> on_header;
    std::function<bool(uint64_t offset)> on_objects;  // false: cancel the read
    Status header_status;
    bool stop = false;
    std::unordered_map<uint64_t, std::string_view> strings;
    std::unordered_map<uint64_t, uint64_t> class_names;    // class id -> name id
    std::unordered_map<uint32_t, uint64_t> class_serials;  // class serial -> name id
    std::unordered_map<uint64_t, uint32_t> class_index;    // class id -> index in classes
    std::vector<ClassInfo> classes;
    std::unordered_map<uint64_t, StackFrame> frames;
    std::unordered_map<uint32_t, StackTrace> traces;
    std::vector<Obj> objects;
    std::vector<Root> roots;
    uint32_t primitive_classes[12] = {kNone, kNone, kNone, kNone, kNone, kNone,
                                      kNone, kNone, kNone, kNone, kNone, kNone};

    uint32_t classOf(uint64_t class_id) {
        // (A dump lists many objects of one class in a row: the last one's is asked first.)
        if (class_id == last_class_id && last_class != kNone) return last_class;
        auto [it, added] = class_index.try_emplace(class_id, static_cast<uint32_t>(classes.size()));
        if (added) {
            classes.emplace_back();
            classes.back().class_id = class_id;
        }
        last_class_id = class_id;
        last_class = it->second;
        return it->second;
    }
    uint64_t last_class_id = 0;
    uint32_t last_class = kNone;
    std::string_view stringOf(uint64_t id) const {
        auto it = strings.find(id);
        return it == strings.end() ? std::string_view{} : it->second;
    }

    // What a second part of the dump read (hprof::readSplit: the heap records after this one's),
    // added as if this one had read it: its classes where they are first seen, its objects and
    // roots after this one's.
    void absorb(Dump& part) {
        std::vector<uint32_t> remap(part.classes.size(), kNone);
        const auto* const primitives = std::begin(part.primitive_classes);
        const auto* const primitives_end = std::end(part.primitive_classes);
        for (uint32_t i = 0; i < part.classes.size(); ++i) {
            ClassInfo& c = part.classes[i];
            if (const auto* p = std::find(primitives, primitives_end, i); p != primitives_end) {
                remap[i] = primitiveClass(static_cast<uint8_t>(p - primitives));  // made where first seen
                continue;
            }
            remap[i] = classOf(c.class_id);
            if (!c.dumped) continue;
            ClassInfo& to = classes[remap[i]];
            to.dumped = true;
            to.super_id = c.super_id;
            to.loader_id = c.loader_id;
            to.signers_id = c.signers_id;
            to.protection_domain_id = c.protection_domain_id;
            to.fields = std::move(c.fields);
            to.statics = std::move(c.statics);
        }
        objects.reserve(objects.size() + part.objects.size());
        for (Obj o : part.objects) {
            o.cls = remap[o.cls];
            objects.push_back(o);
        }
        roots.insert(roots.end(), part.roots.begin(), part.roots.end());
    }

    uint32_t primitiveClass(uint8_t type) {
        uint32_t& cls = primitive_classes[type];
        if (cls == kNone) {
            cls = static_cast<uint32_t>(classes.size());
            classes.emplace_back();
            classes.back().internal = std::string(primitiveArrayName(type));
        }
        return cls;
    }

    void header(const Header& h) override {
        head = h;
        if (on_header) header_status = on_header(h);
        stop = stop || !header_status.ok();
    }
    void counted(uint64_t offset) {
        if (on_objects && (objects.size() & 0xffff) == 0 && !on_objects(offset)) stop = true;
    }
    bool cancelled() override { return stop; }
    void string(uint64_t id, std::string_view s) override { strings[id] = s; }
    void loadClass(const LoadClass& l) override {
        class_names[l.class_id] = l.name_id;
        class_serials[l.serial] = l.name_id;
    }
    void stackFrame(const StackFrame& f) override { frames[f.id] = f; }
    void stackTrace(const StackTrace& t) override { traces[t.serial] = t; }
    void root(const Root& r) override { roots.push_back(r); }
    void classDump(const ClassDump& d) override {
        ClassInfo& c = classes[classOf(d.class_id)];
        c.dumped = true;
        c.super_id = d.super_id;
        c.loader_id = d.loader_id;
        c.signers_id = d.signers_id;
        c.protection_domain_id = d.protection_domain_id;
        c.fields = d.fields;
        c.statics = d.statics;
    }
    void instance(const InstanceDump& d) override {
        // (An instance's length: its values' bytes.)
        objects.push_back({d.id, d.offset, classOf(d.class_id), static_cast<uint32_t>(d.values.size()),
                           ObjKind::kInstance});
        counted(d.offset);
    }
    void objectArray(const ObjectArrayDump& d) override {
        objects.push_back({d.id, d.offset, classOf(d.class_id), d.length, ObjKind::kObjectArray});
        counted(d.offset);
    }
    void primitiveArray(const PrimitiveArrayDump& d) override {
        objects.push_back({d.id, d.offset, primitiveClass(d.type), d.length, ObjKind::kPrimitiveArray});
        counted(d.offset);
    }
};

// One dump into the trace (run), after the reader's pass (Dump): the classes named and chained,
// the mirrors made objects, the objects put in address order; the reference slots of each class;
// the mirrors the dump leaves out; the object model, @Contended and the classes' sizes, from the
// layout model and the gaps between addresses; the types, fields and threads defined; every
// object allocated, the GC, the last dump's objects' deaths; the snapshot's references and roots.
class DumpImport {
public:
    DumpImport(Importer::State& st, Dump& d, std::span<const uint8_t> bytes, DumpStats& stats,
               uint64_t pause_ns)
        : st_(st), d_(d), bytes_(bytes), stats_(stats), ids_(d.head.id_size), pause_ns_(pause_ns) {}

    Status run();

private:
    Status prepare();
    void pickModel();
    // Calls fn(k) for class `ci` and each superclass of it that `done(k)` is false for, the
    // highest first (a class after its superclass), without recursing: a chain may be as long as
    // the dump has classes. The chains must end (prepare() cuts cycles).
    template <typename Done, typename Fn>
    void superFirst(uint32_t ci, Done&& done, Fn&& fn) {
        std::vector<uint32_t> chain;
        for (uint32_t k = ci; k != kNone && !done(k) && chain.size() <= d_.classes.size();
             k = d_.classes[k].super)
            chain.push_back(k);
        for (auto k = chain.rbegin(); k != chain.rend(); ++k)
            fn(*k);
    }
    void layOut(uint32_t ci);
    void layOutOne(uint32_t ci);  // (its superclass laid out)
    void layOutAll();
    void decideContended();
    uint8_t ownStrength(const ClassInfo& c) const;
    bool isPseudoStatic(const StaticField& f) const;
    std::vector<FieldSpec> staticFields(const ClassInfo& c) const;
    void gapStatistics();
    bool plausiblyDense(const ClassInfo& c) const;
    void sizeClasses();
    uint64_t sizeOf(const Obj& o) const;
    uint32_t elementBytes(const ClassInfo& c) const;
    void defineTypes();
    uint32_t defineType(uint32_t ci);
    void defineOneType(uint32_t ci);  // (its superclass defined)
    void defineThreads();
    // By address, with progress within laying out from `progress_from` to `progress_to` between
    // its passes (where a cancel is heard).
    void sortObjects(double progress_from, double progress_to);
    void findReferenceSlots();
    template <typename Fn>
    void forEachReference(const Obj& o, Fn&& fn) const;
    void addUnlistedMirrors();
    uint64_t idOf(uint64_t address) const { return base_ + ((address - min_address_) >> shift_); }
    // Object i's gap (in address order): the next object's address minus its own, 0 for the last.
    uint64_t gapAt(size_t i) const {
        return i + 1 < d_.objects.size() ? d_.objects[i + 1].address - d_.objects[i].address : 0;
    }
    void writeAddresses();
    void writeRegions();  // under G1, where the grid is known
    bool holds(uint64_t address) const;
    uint32_t find(uint64_t address) const;  // index in objects, or kNone
    // Progress every 2^20 objects through `step`, `done` of them so far; false: cancelled.
    bool stepEvery(ImportStep step, uint64_t done) {
        return (done & 0xfffff) != 0 ||
               st_.step(step, static_cast<double>(done) / static_cast<double>(d_.objects.size()));
    }
    void writeObjects();
    void writeSnapshot();
    uint32_t methodOf(uint64_t frame_id);
    // An instance's field by name (searched up its class chain), as its raw bits.
    bool fieldOf(const Obj& o, std::string_view name, uint64_t* value, uint8_t* type) const;
    std::string stringValue(uint64_t address) const;

    Importer::State& st_;
    Dump& d_;
    std::span<const uint8_t> bytes_;
    DumpStats& stats_;
    uint32_t ids_;
    uint64_t pause_ns_;
    ObjectModel model_;
    uint64_t min_address_ = 0, base_ = 0;
    uint32_t shift_ = 0;
    uint32_t class_class_ = kNone;  // java/lang/Class
    bool contended_ = true;         // whether the JDK pads @Contended fields (the model's table)
    uint64_t max_address_ = 0;
    int64_t time_ns_ = 0;
    std::vector<uint64_t> present_;  // a bit per alignment unit from min_address_: an object starts there
    std::vector<uint64_t> mirror_sizes_;  // per class: its mirror's size
    std::vector<uint32_t> occurrence_;    // per class: how many classes of its name came before it
    std::unordered_map<uint32_t, uint32_t> thread_of_serial_;  // HPROF thread serial -> trace thread
    std::unordered_map<uint32_t, uint32_t> thread_trace_;      // HPROF thread serial -> its stack trace
};

}  // namespace detail
}  // namespace memcity::hprof
