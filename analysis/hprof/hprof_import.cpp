#include "hprof/hprof_import.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <unordered_map>

#include "hprof/hprof_reader.h"
#include "trace/java_names.h"

namespace memcity::hprof {

namespace {

constexpr uint32_t kNone = ~uint32_t{0};
// The most the objects' addresses may add to the layout model's size of a class: what a model
// can miss is @Contended padding and injected fields (a gap beyond is free space, not the class).
constexpr uint64_t kMaxCorrection = 1024;
using TraceRoot = memcity::Root;  // (hprof::Root is a dump's)

// Where a sub-record's parts begin, from its tag's offset: an INSTANCE DUMP's values (tag, id,
// stack serial, class id, length), an OBJECT ARRAY DUMP's elements (tag, id, stack serial,
// length, class id), a PRIMITIVE ARRAY DUMP's elements (tag, id, stack serial, length, type).
uint64_t instanceValuesAt(uint64_t record, uint32_t ids) {
    return record + 1 + ids + 4 + ids + 4;
}
uint64_t objectElementsAt(uint64_t record, uint32_t ids) {
    return record + 1 + ids + 4 + 4 + ids;
}
uint64_t primitiveElementsAt(uint64_t record, uint32_t ids) {
    return record + 1 + ids + 4 + 4 + 1;
}

uint64_t alignUp(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}

uint64_t be(const uint8_t* p, uint32_t n) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; ++i)
        v = v << 8 | p[i];
    return v;
}

// "java/lang/String" or "[I" (a dump's internal names) as Java names them.
// A hidden class's suffix ("Foo$$Lambda+0x0000000800c0c000" in a dump) as JVMTI names it
// (".0x..."), so a dump and a recording name it alike.
std::string javaNameOfInternal(std::string_view internal) {
    if (!internal.empty() && internal[0] == '[') return javaName(internal);
    std::string name(internal);
    std::replace(name.begin(), name.end(), '/', '.');
    if (auto plus = name.rfind("+0x"); plus != std::string::npos) name[plus] = '.';
    return name;
}

// The internal name of a primitive array type's class ("[I" for int).
std::string_view primitiveArrayName(uint8_t type) {
    switch (static_cast<BasicType>(type)) {
        case BasicType::kBoolean: return "[Z";
        case BasicType::kChar: return "[C";
        case BasicType::kFloat: return "[F";
        case BasicType::kDouble: return "[D";
        case BasicType::kByte: return "[B";
        case BasicType::kShort: return "[S";
        case BasicType::kInt: return "[I";
        case BasicType::kLong: return "[J";
        default: return "";
    }
}

// kUnlisted: a java.lang.Class the dump references but does not list (its size in `length`).
enum class ObjKind : uint8_t { kInstance, kObjectArray, kPrimitiveArray, kMirror, kUnlisted };

// One object of a dump; `where` is its sub-record's offset (a mirror: its class's index).
struct Obj {
    uint64_t address;
    uint64_t where;
    uint32_t cls;
    uint32_t length;
    ObjKind kind;
};

struct ClassInfo {
    uint64_t class_id = 0, super_id = 0, loader_id = 0, signers_id = 0, protection_domain_id = 0;
    std::string internal;  // "java/lang/String"
    bool dumped = false;   // a CLASS DUMP was read
    bool unused = false;   // merged into another: no type of its own
    uint32_t super = kNone;
    std::vector<ClassField> fields;
    std::vector<StaticField> statics;
    // Computed.
    uint32_t value_bytes = 0;  // of an instance's values in the dump: this class's fields and its supers'
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
    std::vector<RefSlot> refs;  // every reference field of the chain
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

}  // namespace

struct Importer::State {
    std::string path, producer;
    std::unique_ptr<TraceWriter> writer;
    Symbols symbols;
    uint32_t gc = 0;
    uint64_t next_id = 1;
    uint64_t first_timestamp_ms = 0;
    int64_t last_end_ns = 0;             // the last dump's GC's end
    std::vector<uint64_t> previous_ids;  // the objects of the last dump: they die at the next
};

namespace {

// Everything pass one keeps of a dump.
struct Dump final : Visitor {
    Header head;
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
        auto [it, added] = class_index.try_emplace(class_id, static_cast<uint32_t>(classes.size()));
        if (added) {
            classes.emplace_back();
            classes.back().class_id = class_id;
        }
        return it->second;
    }
    std::string_view stringOf(uint64_t id) const {
        auto it = strings.find(id);
        return it == strings.end() ? std::string_view{} : it->second;
    }

    void header(const Header& h) override { head = h; }
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
        objects.push_back({d.id, d.offset, classOf(d.class_id), 0, ObjKind::kInstance});
    }
    void objectArray(const ObjectArrayDump& d) override {
        objects.push_back({d.id, d.offset, classOf(d.class_id), d.length, ObjKind::kObjectArray});
    }
    void primitiveArray(const PrimitiveArrayDump& d) override {
        uint32_t& cls = primitive_classes[d.type];
        if (cls == kNone) {
            cls = static_cast<uint32_t>(classes.size());
            classes.emplace_back();
            classes.back().internal = std::string(primitiveArrayName(d.type));
        }
        objects.push_back({d.id, d.offset, cls, d.length, ObjKind::kPrimitiveArray});
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
    void layOut(uint32_t ci);
    void layOutAll();
    void decideContended();
    uint8_t strengthOf(uint32_t ci) const;
    bool isPseudoStatic(const StaticField& f) const;
    std::vector<FieldSpec> staticFields(const ClassInfo& c) const;
    void gapStatistics();
    bool plausiblyDense(const ClassInfo& c) const;
    void sizeClasses();
    uint64_t sizeOf(const Obj& o) const;
    uint32_t elementBytes(const ClassInfo& c) const;
    void defineTypes();
    uint32_t defineType(uint32_t ci);
    void defineThreads();
    void sortObjects();
    void findReferenceSlots();
    template <typename Fn>
    void forEachReference(const Obj& o, Fn&& fn) const;
    void addUnlistedMirrors();
    uint64_t idOf(uint64_t address) const { return base_ + ((address - min_address_) >> shift_); }
    void writeAddresses();
    bool holds(uint64_t address) const;
    uint32_t find(uint64_t address) const;  // index in objects, or kNone
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
    std::vector<uint64_t> gap_;      // per object: the next object's address minus its own, 0 for the last
    std::vector<uint64_t> present_;  // a bit per alignment unit from min_address_: an object starts there
    std::vector<uint64_t> mirror_sizes_;  // per class: its mirror's size
    std::vector<uint32_t> occurrence_;    // per class: how many classes of its name came before it
    std::unordered_map<uint32_t, uint32_t> thread_of_serial_;  // HPROF thread serial -> trace thread
    std::unordered_map<uint32_t, uint32_t> thread_trace_;      // HPROF thread serial -> its stack trace
};

Status DumpImport::prepare() {
    // Names, superclasses, mirrors.
    for (ClassInfo& c : d_.classes) {
        if (c.internal.empty()) {
            auto n = d_.class_names.find(c.class_id);
            c.internal = n != d_.class_names.end() ? std::string(d_.stringOf(n->second)) : "";
            if (c.internal.empty()) c.internal = "unnamed class@" + std::to_string(c.class_id);
        }
    }
    for (uint32_t i = 0; i < d_.classes.size(); ++i) {
        ClassInfo& c = d_.classes[i];
        if (c.super_id) {
            auto s = d_.class_index.find(c.super_id);
            if (s != d_.class_index.end() && s->second != i) c.super = s->second;
        }
        if (c.internal == "java/lang/Class") class_class_ = i;
    }
    // A primitive array's class, where the dump also lists it by name ("[I"): one class, not two.
    std::vector<uint32_t> same(d_.classes.size(), kNone);
    bool merged = false;
    for (uint8_t type = 0; type < std::size(d_.primitive_classes); ++type) {
        const uint32_t synthetic = d_.primitive_classes[type];
        if (synthetic == kNone) continue;
        for (uint32_t i = 0; i < d_.classes.size(); ++i)
            if (i != synthetic && d_.classes[i].class_id != 0 &&
                d_.classes[i].internal == d_.classes[synthetic].internal) {
                same[synthetic] = i;
                d_.primitive_classes[type] = i;
                d_.classes[synthetic].unused = true;
                merged = true;
            }
    }
    if (merged)
        for (Obj& o : d_.objects)
            if (same[o.cls] != kNone) o.cls = same[o.cls];
    // Super chains must end: a cycle (a corrupt dump) is cut where it closes.
    for (uint32_t i = 0; i < d_.classes.size(); ++i) {
        uint32_t steps = 0;
        for (uint32_t c = i; c != kNone && d_.classes[c].super != kNone; c = d_.classes[c].super)
            if (++steps > d_.classes.size()) {
                d_.classes[c].super = kNone;
                break;
            }
    }
    for (uint32_t i = 0; i < d_.classes.size(); ++i)
        if (d_.classes[i].dumped) d_.objects.push_back({d_.classes[i].class_id, i, i, 0, ObjKind::kMirror});
    // A mirror's class is java.lang.Class.
    if (class_class_ == kNone) {
        class_class_ = static_cast<uint32_t>(d_.classes.size());
        d_.classes.emplace_back();
        d_.classes.back().internal = "java/lang/Class";
    }

    base_ = st_.next_id;
    sortObjects();
    // Ids: one per alignment unit of the address span, above the last dump's.
    if (!d_.objects.empty() && ((max_address_ - min_address_) >> shift_) >= (uint64_t{1} << 56) - base_)
        return Error{"the objects' addresses span " + std::to_string(max_address_ - min_address_) +
                     " bytes in units of " + std::to_string(uint64_t{1} << shift_) +
                     ": too wide for object ids"};
    return Status{};
}

void DumpImport::sortObjects() {
    auto& objs = d_.objects;
    // Address 0 is no object (a corrupt dump).
    objs.erase(std::remove_if(objs.begin(), objs.end(), [](const Obj& o) { return o.address == 0; }),
               objs.end());
    present_.clear();
    gap_.clear();
    if (objs.empty()) {
        min_address_ = max_address_ = 0;
        shift_ = 3;
        return;
    }
    // The span and the alignment every address shares.
    uint64_t lo = ~uint64_t{0}, hi = 0, bits = 0;
    for (const Obj& o : objs) {
        lo = std::min(lo, o.address);
        hi = std::max(hi, o.address);
    }
    for (const Obj& o : objs)
        bits |= o.address - lo;
    min_address_ = lo;
    max_address_ = hi;
    shift_ = bits ? static_cast<uint32_t>(std::countr_zero(bits)) : 3;
    // Membership of an address, by a bit per alignment unit where that is at most 64 bits per
    // object (a heap's span in its alignment units is a few times its objects); else a search.
    const uint64_t units = ((hi - lo) >> shift_) + 1;
    auto byAddress = [](const Obj& a, const Obj& b) { return a.address < b.address; };
    if (units <= 64 * uint64_t{objs.size()} + (uint64_t{1} << 20)) {
        present_.assign((units + 63) / 64, 0);
        uint64_t repeats = 0;
        for (const Obj& o : objs) {
            const uint64_t bit = (o.address - lo) >> shift_;
            uint64_t& word = present_[bit >> 6];
            repeats += word >> (bit & 63) & 1;
            word |= uint64_t{1} << (bit & 63);
        }
        if (!std::is_sorted(objs.begin(), objs.end(), byAddress)) {
            if (repeats == 0) {
                // A dump lists its spaces (regions, a dumping thread's share) one after another:
                // each object goes straight to its place, its address's rank among the bits.
                std::vector<uint64_t> rank(present_.size());
                uint64_t total = 0;
                for (size_t w = 0; w < present_.size(); ++w) {
                    rank[w] = total;
                    total += static_cast<uint64_t>(std::popcount(present_[w]));
                }
                std::vector<Obj> sorted(objs.size());
                for (const Obj& o : objs) {
                    const uint64_t bit = (o.address - lo) >> shift_;
                    const uint64_t below = present_[bit >> 6] & ((uint64_t{1} << (bit & 63)) - 1);
                    sorted[rank[bit >> 6] + static_cast<uint64_t>(std::popcount(below))] = o;
                }
                objs.swap(sorted);
            } else {
                std::sort(objs.begin(), objs.end(), byAddress);
            }
        }
    } else if (!std::is_sorted(objs.begin(), objs.end(), byAddress)) {
        std::sort(objs.begin(), objs.end(), byAddress);
    }
    // One object per address: a repeat (a corrupt dump) is dropped.
    objs.erase(std::unique(objs.begin(), objs.end(),
                           [](const Obj& a, const Obj& b) { return a.address == b.address; }),
               objs.end());
    gap_.assign(objs.size(), 0);
    for (size_t i = 0; i + 1 < objs.size(); ++i)
        gap_[i] = objs[i + 1].address - objs[i].address;
}

uint32_t DumpImport::elementBytes(const ClassInfo& c) const {
    return memcity::elementBytes(c.internal, model_.oop);
}

void DumpImport::pickModel() {
    // The arrays' sizes are exact in every model: the one the most arrays fill their gap with.
    std::span<const ObjectModel> models = objectModels();
    std::vector<uint64_t> votes(models.size(), 0);
    for (size_t i = 0; i < d_.objects.size(); ++i) {
        const Obj& o = d_.objects[i];
        if (gap_[i] == 0 || (o.kind != ObjKind::kObjectArray && o.kind != ObjKind::kPrimitiveArray)) continue;
        const std::string& name = d_.classes[o.cls].internal;
        for (size_t m = 0; m < models.size(); ++m)
            if (models[m].arraySize(o.length, memcity::elementBytes(name, models[m].oop)) == gap_[i])
                ++votes[m];
    }
    size_t best = 0;
    for (size_t m = 1; m < models.size(); ++m)
        if (votes[m] > votes[best]) best = m;
    model_ = models[best];
}

void DumpImport::layOut(uint32_t ci) {
    ClassInfo& c = d_.classes[ci];
    if (c.laid_out) return;
    c.laid_out = true;
    FieldLayout base(model_.header);
    if (c.super != kNone) {
        layOut(c.super);
        const ClassInfo& s = d_.classes[c.super];
        base = *s.layout;
    }
    std::vector<FieldSpec> fields;
    const bool contended_class = isContendedClass(c.internal);
    c.value_bytes = c.super != kNone ? d_.classes[c.super].value_bytes : 0;
    for (const ClassField& f : c.fields) {
        const bool ref = f.type == static_cast<uint8_t>(BasicType::kObject);
        fields.push_back(
            {static_cast<uint8_t>(ref ? model_.oop : valueSize(f.type, 4)), ref,
             contended_ && (contended_class || isContendedField(c.internal, d_.stringOf(f.name_id)))});
        c.value_bytes += valueSize(f.type, ids_);
    }
    for (const InjectedField& f : injectedFields(c.internal))
        fields.push_back({static_cast<uint8_t>(f.reference ? model_.oop : f.size), f.reference, false});
    c.layout = std::make_unique<FieldLayout>(base.extend(fields));
    c.base_layout_size = c.layout->instanceSize(model_.alignment);
    if (c.extra) c.layout->reserve(c.extra);
    c.layout_size = c.layout->instanceSize(model_.alignment);
}

void DumpImport::layOutAll() {
    for (ClassInfo& c : d_.classes) {
        c.laid_out = false;
        c.layout.reset();
    }
    for (uint32_t i = 0; i < d_.classes.size(); ++i)
        layOut(i);
}

void DumpImport::decideContended() {
    // Whether this JDK pads @Contended fields as the model's table says (JDK 17's Thread does,
    // later ones do not): the choice more instances of the classes it changes fill their gap with.
    std::vector<uint64_t> sizes[2];
    for (int on = 0; on < 2; ++on) {
        contended_ = on == 1;
        layOutAll();
        for (const ClassInfo& c : d_.classes)
            sizes[on].push_back(c.layout_size);
    }
    int64_t score[2] = {0, 0};  // instances whose gap is the size, less those whose gap is below it
    for (size_t i = 0; i < d_.objects.size(); ++i) {
        const Obj& o = d_.objects[i];
        if (o.kind != ObjKind::kInstance || gap_[i] == 0 || sizes[0][o.cls] == sizes[1][o.cls]) continue;
        for (int on = 0; on < 2; ++on)
            score[on] += gap_[i] == sizes[on][o.cls] ? 1 : gap_[i] < sizes[on][o.cls] ? -1 : 0;
    }
    contended_ = score[1] >= score[0];
    layOutAll();
}

uint8_t DumpImport::strengthOf(uint32_t ci) const {
    // java.lang.ref.Reference's subclasses hold their referent weakly, softly or as a phantom.
    for (uint32_t k = ci, steps = 0; k != kNone && steps <= d_.classes.size();
         k = d_.classes[k].super, ++steps) {
        const std::string& n = d_.classes[k].internal;
        if (n == "java/lang/ref/WeakReference") return static_cast<uint8_t>(format::RefStrength::kWeak);
        if (n == "java/lang/ref/SoftReference") return static_cast<uint8_t>(format::RefStrength::kSoft);
        if (n == "java/lang/ref/PhantomReference" || n == "java/lang/ref/FinalReference")
            return static_cast<uint8_t>(format::RefStrength::kPhantom);
    }
    return 0;
}

std::vector<FieldSpec> DumpImport::staticFields(const ClassInfo& c) const {
    std::vector<FieldSpec> fields;
    for (const StaticField& f : c.statics) {
        if (isPseudoStatic(f)) continue;
        const bool ref = f.type == static_cast<uint8_t>(BasicType::kObject);
        fields.push_back({static_cast<uint8_t>(ref ? model_.oop : valueSize(f.type, 4)), ref});
    }
    return fields;
}

bool DumpImport::isPseudoStatic(const StaticField& f) const {
    // The dumper's own entries among a class's statics (<resolved_references>, ...): no field.
    const std::string_view name = d_.stringOf(f.name_id);
    return !name.empty() && name[0] == '<';
}

void DumpImport::gapStatistics() {
    for (ClassInfo& c : d_.classes) {
        c.instances = c.gaps = c.exact = 0;
        c.min_gap = ~uint64_t{0};
    }
    for (size_t i = 0; i < d_.objects.size(); ++i) {
        const Obj& o = d_.objects[i];
        if (o.kind != ObjKind::kInstance) continue;
        ClassInfo& c = d_.classes[o.cls];
        ++c.instances;
        if (gap_[i] == 0) continue;
        ++c.gaps;
        c.exact += gap_[i] == c.layout_size;
        c.min_gap = std::min(c.min_gap, gap_[i]);
    }
}

bool DumpImport::plausiblyDense(const ClassInfo& c) const {
    // One instance's gap: its size, unless the next object is far (the end of a space or a
    // region): what a model can miss is two @Contended paddings and a few injected fields.
    return c.gaps == 1 && c.min_gap <= c.layout_size + 2 * kContendedPadding + 64;
}

void DumpImport::sizeClasses() {
    // What the addresses say: per class, how many instances fill their gap exactly. A gap is at
    // least its object's size. Where two instances or more have gaps and none is the model's
    // size, the model lacks what the dump does not say (fields the VM injects): the smallest gap
    // is the size, and its subclasses' fields come after what is missing (taken as a pointer's
    // worth, at the end of the class's own fields).
    gapStatistics();
    bool extended = false;
    ClassInfo& klass = d_.classes[class_class_];  // sized by its mirrors, below
    for (ClassInfo& c : d_.classes)
        if (&c != &klass && c.exact == 0 && c.min_gap > c.layout_size &&
            c.min_gap <= c.layout_size + kMaxCorrection && (c.gaps >= 2 || plausiblyDense(c))) {
            c.extra = c.min_gap - c.layout_size;
            extended = true;
        }
    if (extended) {
        layOutAll();
        gapStatistics();
    }
    auto corrected = [&](const ClassInfo& c, uint64_t evidence, std::string_view of) {
        stats_.corrections.push_back(javaNameOfInternal(c.internal) + ": " +
                                     std::to_string(c.base_layout_size) + " B by the layout model, " +
                                     std::to_string(c.size) + " B by the addresses of " +
                                     std::to_string(evidence) + " " + std::string(of));
    };
    for (ClassInfo& c : d_.classes) {
        c.size = c.layout_size;
        if (&c == &klass) continue;
        // An instance smaller than the model's size: the model is wrong, the gap is right.
        if (c.gaps > 0 && c.exact == 0 && c.min_gap >= model_.header &&
            c.min_gap <= c.layout_size + kMaxCorrection &&
            (c.gaps >= 2 || c.min_gap < c.layout_size || plausiblyDense(c)))
            c.size = c.min_gap;
        if (c.size != c.base_layout_size) corrected(c, c.gaps, c.gaps == 1 ? "instance" : "instances");
    }
    // Mirrors: java.lang.Class's own size (with the fields the VM injects into it), then the
    // class's statics. Its own size is the one the most mirrors fill their gap with.
    std::vector<std::pair<size_t, std::vector<FieldSpec>>> mirrors;  // (object, its statics)
    for (size_t i = 0; i < d_.objects.size(); ++i)
        if (d_.objects[i].kind == ObjKind::kMirror)
            mirrors.emplace_back(i, staticFields(d_.classes[d_.objects[i].cls]));
    auto mirrorSize = [&](uint64_t base, const std::vector<FieldSpec>& statics) {
        return alignUp(FieldLayout::staticsEnd(base, statics), model_.alignment);
    };
    uint64_t best_base = klass.base_layout_size, best_votes = 0;
    for (uint64_t base = klass.base_layout_size; base <= klass.base_layout_size + 64;
         base += model_.alignment) {
        uint64_t votes = 0;
        for (const auto& [i, statics] : mirrors)
            votes += gap_[i] != 0 && mirrorSize(base, statics) == gap_[i];
        if (votes > best_votes) {
            best_votes = votes;
            best_base = base;
        }
    }
    klass.size = best_base;
    if (klass.size != klass.base_layout_size) corrected(klass, best_votes, "mirrors");
    mirror_sizes_.assign(d_.classes.size(), 0);
    for (const auto& [i, statics] : mirrors) {
        uint64_t size = mirrorSize(best_base, statics);
        if (gap_[i] != 0 && gap_[i] < size) size = gap_[i];
        mirror_sizes_[d_.objects[i].cls] = size;
    }
    // A mirror the dump does not list: as long as its gap, where that is a mirror's size at most
    // (statics of 64 KiB), else java.lang.Class's own size.
    for (size_t i = 0; i < d_.objects.size(); ++i) {
        Obj& o = d_.objects[i];
        if (o.kind != ObjKind::kUnlisted) continue;
        o.length =
            static_cast<uint32_t>(gap_[i] >= best_base && gap_[i] <= (64u << 10) ? gap_[i] : best_base);
    }
}

uint64_t DumpImport::sizeOf(const Obj& o) const {
    switch (o.kind) {
        case ObjKind::kInstance: return d_.classes[o.cls].size;
        case ObjKind::kMirror: return mirror_sizes_[o.cls];
        case ObjKind::kUnlisted: return o.length;
        default: return model_.arraySize(o.length, elementBytes(d_.classes[o.cls]));
    }
}

uint32_t DumpImport::defineType(uint32_t ci) {
    ClassInfo& c = d_.classes[ci];
    if (c.type) return c.type;
    const uint32_t super_type = c.super != kNone ? defineType(c.super) : 0;
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
        return c.type;
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
    return c.type;
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
    // Each class's reference fields where its instances' values hold them: its own fields
    // first, then its superclass's, and so on up.
    for (uint32_t ci = 0; ci < d_.classes.size(); ++ci) {
        ClassInfo& c = d_.classes[ci];
        c.strength = strengthOf(ci);
        uint32_t at = 0;
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
    switch (o.kind) {
        case ObjKind::kInstance: {
            const ClassInfo& c = d_.classes[o.cls];
            const uint64_t values = instanceValuesAt(o.where, ids_);
            if (values + c.value_bytes > bytes_.size()) return;
            for (const ClassInfo::RefSlot& s : c.refs)
                fn(be(data + values + s.at, ids_), &s);
            return;
        }
        case ObjKind::kObjectArray: {
            const uint64_t elements = objectElementsAt(o.where, ids_);
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
    std::vector<uint64_t> absent;
    auto note = [&](uint64_t target) {
        if (target != 0 && !holds(target)) absent.push_back(target);
    };
    for (const Obj& o : d_.objects)
        forEachReference(o, [&](uint64_t target, const ClassInfo::RefSlot*) { note(target); });
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
    if (added) sortObjects();
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
    if (o.kind != ObjKind::kInstance) return false;
    const uint64_t values = instanceValuesAt(o.where, ids_);
    uint64_t at = values;
    for (uint32_t k = o.cls; k != kNone; k = d_.classes[k].super) {
        for (const ClassField& f : d_.classes[k].fields) {
            const uint32_t n = valueSize(f.type, ids_);
            if (at + n > bytes_.size()) return false;
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
    if (a == kNone || d_.objects[a].kind != ObjKind::kPrimitiveArray) return {};
    const Obj& arr = d_.objects[a];
    const uint64_t data = primitiveElementsAt(arr.where, ids_);
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

void DumpImport::writeObjects() {
    TraceWriter& w = *st_.writer;
    const int64_t time = time_ns_;
    const uint32_t class_type = d_.classes[class_class_].type;
    for (const Obj& o : d_.objects) {
        AllocEvent e;
        e.id = idOf(o.address);
        e.time_ns = time;
        const uint64_t size = sizeOf(o);
        switch (o.kind) {
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
    for (const Obj& o : d_.objects) {
        edges.clear();
        switch (o.kind) {
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
    if (Status s = prepare(); !s.ok()) return s;
    layOutAll();  // (the values' layout in the dump, for the reference slots)
    findReferenceSlots();
    addUnlistedMirrors();
    pickModel();
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
    writeObjects();
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
    writeAddresses();
    st_.previous_ids.clear();
    st_.previous_ids.reserve(d_.objects.size());
    for (const Obj& o : d_.objects)
        st_.previous_ids.push_back(idOf(o.address));
    writeSnapshot();
    st_.next_id = end.next_object_id;
    st_.last_end_ns = end.time_ns;
    return w.status();
}

}  // namespace

Result<std::vector<uint8_t>> readDumpFile(const std::string& path, bool* gzip) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{path + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error{path + ": not a regular file"};
    }
    std::vector<uint8_t> raw(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < raw.size()) {
        const ssize_t n = ::read(fd, raw.data() + got, raw.size() - got);
        if (n <= 0) {
            ::close(fd);
            return Error{path + ": read failed at offset " + std::to_string(got)};
        }
        got += static_cast<size_t>(n);
    }
    ::close(fd);
    const bool compressed = raw.size() >= 2 && raw[0] == 0x1f && raw[1] == 0x8b;
    if (gzip) *gzip = compressed;
    if (!compressed) return raw;
    // jcmd GC.heap_dump -gz writes many gzip members one after another: inflate each.
    std::vector<uint8_t> out;
    out.reserve(raw.size() * 4);
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return Error{path + ": zlib failed to start"};
    z.next_in = raw.data();
    z.avail_in = static_cast<uInt>(std::min<size_t>(raw.size(), UINT32_MAX));
    size_t fed = z.avail_in;
    std::vector<uint8_t> buffer(1 << 20);
    for (;;) {
        z.next_out = buffer.data();
        z.avail_out = static_cast<uInt>(buffer.size());
        const int rc = inflate(&z, Z_NO_FLUSH);
        out.insert(out.end(), buffer.data(), buffer.data() + (buffer.size() - z.avail_out));
        if (z.avail_in == 0 && fed < raw.size()) {
            const size_t more = std::min<size_t>(raw.size() - fed, UINT32_MAX);
            z.next_in = raw.data() + fed;
            z.avail_in = static_cast<uInt>(more);
            fed += more;
        }
        if (rc == Z_STREAM_END) {
            if (z.avail_in == 0) break;
            inflateReset(&z);
            continue;
        }
        if (rc == Z_BUF_ERROR && z.avail_in == 0) {
            inflateEnd(&z);
            return Error{path + ": gzip data cut off at offset " + std::to_string(fed) + " (inflated " +
                         std::to_string(out.size()) + " bytes)"};
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            const uint64_t at = fed - z.avail_in;
            inflateEnd(&z);
            return Error{path + ": bad gzip data at offset " + std::to_string(at) + " (" +
                         (z.msg ? z.msg : "zlib error") + ")"};
        }
    }
    inflateEnd(&z);
    return out;
}

bool looksLikeDump(std::span<const uint8_t> head) {
    static constexpr std::string_view magic = "JAVA PROFILE ";
    if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) return true;
    return head.size() >= magic.size() && std::memcmp(head.data(), magic.data(), magic.size()) == 0;
}

Importer::~Importer() = default;

Result<std::unique_ptr<Importer>> Importer::create(const std::string& trace_path,
                                                   const std::string& producer) {
    // The trace's header holds the first dump's time: the writer starts with the first dump. Its
    // file must be writable now.
    const int fd = ::open(trace_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Error{trace_path + ": " + std::strerror(errno)};
    ::close(fd);
    std::unique_ptr<Importer> im(new Importer());
    im->state_ = std::make_unique<State>();
    im->state_->path = trace_path;
    im->state_->producer = producer;
    return im;
}

Result<DumpStats> Importer::add(const std::string& dump_path, uint64_t pause_ns) {
    // A plain dump is mapped (a copy of a gigabyte costs seconds); a gzip one is inflated.
    const int fd = ::open(dump_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{dump_path + ": " + std::strerror(errno)};
    struct stat st {};
    uint8_t magic[2] = {0, 0};
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    const bool gzip = regular && ::pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (regular && !gzip && st.st_size > 0) {
        const auto size = static_cast<size_t>(st.st_size);
        void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
        ::close(fd);
        if (map == MAP_FAILED) return Error{dump_path + ": cannot be mapped: " + std::strerror(errno)};
        ::madvise(map, size, MADV_SEQUENTIAL);
        auto stats =
            add(dump_path, std::span<const uint8_t>(static_cast<const uint8_t*>(map), size), pause_ns);
        ::munmap(map, size);
        return stats;
    }
    ::close(fd);
    auto bytes = readDumpFile(dump_path);
    if (!bytes) return bytes.error();
    auto stats = add(dump_path, *bytes, pause_ns);
    if (stats) stats->gzip = gzip;
    return stats;
}

Result<DumpStats> Importer::add(const std::string& name, std::span<const uint8_t> bytes, uint64_t pause_ns) {
    const auto t0 = std::chrono::steady_clock::now();
    State& st = *state_;
    DumpStats stats;
    stats.path = name;
    stats.file_bytes = bytes.size();
    Dump dump;
    // An object takes 30 to 60 bytes of a dump: reserve for them all (untouched pages cost nothing).
    dump.objects.reserve(bytes.size() / 24 + 1024);
    if (Status s = read(bytes, dump); !s.ok()) return Error{name + ": " + s.error().message};
    if (dump.head.id_size == 0) return Error{name + ": not a heap dump"};
    if (!st.writer) {
        WriterOptions options;
        options.start_wall_ns = dump.head.timestamp_ms * 1'000'000;
        auto w = TraceWriter::create(st.path, options);
        if (!w) return w.error();
        st.writer = std::move(*w);
        st.writer->meta("producer", st.producer);
        st.writer->meta("source", "heap dumps (HPROF): no allocation sites, no object identity across dumps");
        st.symbols.cause = ++st.symbols.next_string;
        st.writer->defineString(st.symbols.cause, "Heap Dump");
    }
    stats.gc = st.gc;
    DumpImport import(st, dump, bytes, stats, pause_ns);
    if (Status s = import.run(); !s.ok()) return s.error();
    st.writer->meta("dump " + std::to_string(st.gc), name);
    ++st.gc;
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return stats;
}

void Importer::flush() {
    if (state_->writer) state_->writer->flush();
}

Status Importer::close() {
    if (!state_->writer) return Error{state_->path + ": no heap dump was imported"};
    return state_->writer->close();
}

}  // namespace memcity::hprof
