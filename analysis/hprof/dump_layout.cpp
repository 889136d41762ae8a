// DumpImport, its first half: the classes named and chained, the objects in address order, the
// object model and @Contended, the classes' sizes from the layout model and the gaps between
// addresses (dump_import.h).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "hprof/dump_import.h"
#include "trace/java_names.h"

namespace memcity::hprof::detail {

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
    // Super chains must end: a cycle (a corrupt dump) is cut where it closes. Each class is
    // walked once: 1 while on the chain being walked, 2 once its chain is known to end.
    {
        std::vector<uint8_t> state(d_.classes.size(), 0);
        std::vector<uint32_t> path;
        for (uint32_t i = 0; i < d_.classes.size(); ++i) {
            path.clear();
            for (uint32_t c = i; c != kNone && state[c] != 2; c = d_.classes[c].super) {
                state[c] = 1;
                path.push_back(c);
                const uint32_t s = d_.classes[c].super;
                if (s != kNone && state[s] == 1) {
                    d_.classes[c].super = kNone;
                    break;
                }
            }
            for (uint32_t c : path)
                state[c] = 2;
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
    sortObjects(0, 0.55);
    if (st_.progress.cancelled()) return {};  // (run() returns at its next step)
    // Ids: one per alignment unit of the address span, above the last dump's.
    if (!d_.objects.empty() && ((max_address_ - min_address_) >> shift_) >= (uint64_t{1} << 56) - base_)
        return Error{"the objects' addresses span " + std::to_string(max_address_ - min_address_) +
                     " bytes in units of " + std::to_string(uint64_t{1} << shift_) +
                     ": too wide for object ids"};
    return Status{};
}

void DumpImport::sortObjects(double progress_from, double progress_to) {
    auto& objs = d_.objects;
    // Address 0 is no object (a corrupt dump).
    objs.erase(std::remove_if(objs.begin(), objs.end(), [](const Obj& o) { return o.address == 0; }),
               objs.end());
    present_.clear();
    if (objs.empty()) {
        min_address_ = max_address_ = 0;
        shift_ = 3;
        return;
    }
    // The span, the alignment every address shares (the lowest bit where two addresses differ
    // is the lowest set bit of their difference) and whether they are in order, in one pass.
    uint64_t lo = ~uint64_t{0}, hi = 0, bits = 0;
    bool in_order = true;
    const uint64_t first = objs.front().address;
    uint64_t previous = 0;
    for (const Obj& o : objs) {
        lo = std::min(lo, o.address);
        hi = std::max(hi, o.address);
        bits |= o.address ^ first;
        in_order = in_order && o.address >= previous;
        previous = o.address;
    }
    min_address_ = lo;
    max_address_ = hi;
    shift_ = bits ? static_cast<uint32_t>(std::countr_zero(bits)) : 3;
    // (Each pass over a big dump's objects takes a tenth of a second or more: a cancel is heard
    // between them.)
    if (!st_.step(ImportStep::kLayingOut, progress_from + (progress_to - progress_from) * 0.3)) return;
    // Membership of an address, by a bit per alignment unit where that is at most 64 bits per
    // object (a heap's span in its alignment units is a few times its objects); else a search.
    const uint64_t units = ((hi - lo) >> shift_) + 1;
    auto byAddress = [](const Obj& a, const Obj& b) { return a.address < b.address; };
    uint64_t repeats = 1;  // (unknown without the bits)
    if (units <= 64 * uint64_t{objs.size()} + (uint64_t{1} << 20)) {
        present_.assign((units + 63) / 64, 0);
        repeats = 0;
        for (const Obj& o : objs) {
            const uint64_t bit = (o.address - lo) >> shift_;
            uint64_t& word = present_[bit >> 6];
            repeats += word >> (bit & 63) & 1;
            word |= uint64_t{1} << (bit & 63);
        }
        if (!st_.step(ImportStep::kLayingOut, progress_from + (progress_to - progress_from) * 0.6)) return;
        if (!in_order) {
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
                // Each place is some object's alone: the halves scatter apart.
                inTwoHalves(objs.size(), [&](size_t from, size_t to, int) {
                    for (size_t i = from; i < to; ++i) {
                        const Obj& o = objs[i];
                        const uint64_t bit = (o.address - lo) >> shift_;
                        const uint64_t below = present_[bit >> 6] & ((uint64_t{1} << (bit & 63)) - 1);
                        sorted[rank[bit >> 6] + static_cast<uint64_t>(std::popcount(below))] = o;
                    }
                });
                objs.swap(sorted);
            } else {
                std::sort(objs.begin(), objs.end(), byAddress);
            }
        }
    } else if (!in_order) {
        std::sort(objs.begin(), objs.end(), byAddress);
    }
    // One object per address: a repeat (a corrupt dump) is dropped.
    if (repeats > 0)
        objs.erase(std::unique(objs.begin(), objs.end(),
                               [](const Obj& a, const Obj& b) { return a.address == b.address; }),
                   objs.end());
}

uint32_t DumpImport::elementBytes(const ClassInfo& c) const {
    return memcity::elementBytes(c.internal, model_.oop);
}

void DumpImport::pickModel() {
    // The arrays' sizes are exact in every model: the one the most arrays fill their gap with.
    std::span<const ObjectModel> models = objectModels();
    std::vector<uint64_t> votes(models.size(), 0);
    // Each class's element size in each model (by its name: looked up once, not per array).
    std::vector<uint32_t> element(d_.classes.size() * models.size());
    for (size_t c = 0; c < d_.classes.size(); ++c)
        for (size_t m = 0; m < models.size(); ++m)
            element[c * models.size() + m] = memcity::elementBytes(d_.classes[c].internal, models[m].oop);
    std::vector<uint64_t> second_votes(models.size(), 0);
    inTwoHalves(d_.objects.size(), [&](size_t from, size_t to, int half) {
        std::vector<uint64_t>& v = half == 0 ? votes : second_votes;
        for (size_t i = from; i < to; ++i) {
            const Obj& o = d_.objects[i];
            const uint64_t gap = gapAt(i);
            if (gap == 0 || (o.kind() != ObjKind::kObjectArray && o.kind() != ObjKind::kPrimitiveArray))
                continue;
            const uint32_t* bytes = &element[o.cls * models.size()];
            for (size_t m = 0; m < models.size(); ++m)
                if (models[m].arraySize(o.length, bytes[m]) == gap) ++v[m];
        }
    });
    for (size_t m = 0; m < models.size(); ++m)
        votes[m] += second_votes[m];
    size_t best = 0;
    for (size_t m = 1; m < models.size(); ++m)
        if (votes[m] > votes[best]) best = m;
    model_ = models[best];
}

void DumpImport::layOut(uint32_t ci) {
    // Its superclasses first, from the highest not laid out yet.
    superFirst(
        ci, [&](uint32_t k) { return d_.classes[k].laid_out; }, [&](uint32_t k) { layOutOne(k); });
}

void DumpImport::layOutOne(uint32_t ci) {
    ClassInfo& c = d_.classes[ci];
    c.laid_out = true;
    FieldLayout base(model_.header);
    if (c.super != kNone) base = *d_.classes[c.super].layout;
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
        const uint64_t gap = gapAt(i);
        if (o.kind() != ObjKind::kInstance || gap == 0 || sizes[0][o.cls] == sizes[1][o.cls]) continue;
        for (int on = 0; on < 2; ++on)
            score[on] += gap == sizes[on][o.cls] ? 1 : gap < sizes[on][o.cls] ? -1 : 0;
    }
    contended_ = score[1] >= score[0];
    layOutAll();
}

uint8_t DumpImport::ownStrength(const ClassInfo& c) const {
    // java.lang.ref.Reference's subclasses hold their referent weakly, softly or as a phantom
    // (a class's strength: its own, else its superclass's).
    const std::string& n = c.internal;
    if (n == "java/lang/ref/WeakReference") return static_cast<uint8_t>(format::RefStrength::kWeak);
    if (n == "java/lang/ref/SoftReference") return static_cast<uint8_t>(format::RefStrength::kSoft);
    if (n == "java/lang/ref/PhantomReference" || n == "java/lang/ref/FinalReference")
        return static_cast<uint8_t>(format::RefStrength::kPhantom);
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
    struct Counts {
        uint64_t instances = 0, gaps = 0, exact = 0, min_gap = ~uint64_t{0};
    };
    std::vector<Counts> halves[2] = {std::vector<Counts>(d_.classes.size()),
                                     std::vector<Counts>(d_.classes.size())};
    inTwoHalves(d_.objects.size(), [&](size_t from, size_t to, int half) {
        std::vector<Counts>& counts = halves[half];
        for (size_t i = from; i < to; ++i) {
            const Obj& o = d_.objects[i];
            if (o.kind() != ObjKind::kInstance) continue;
            Counts& c = counts[o.cls];
            ++c.instances;
            const uint64_t gap = gapAt(i);
            if (gap == 0) continue;
            ++c.gaps;
            c.exact += gap == d_.classes[o.cls].layout_size;
            c.min_gap = std::min(c.min_gap, gap);
        }
    });
    for (size_t k = 0; k < d_.classes.size(); ++k) {
        ClassInfo& c = d_.classes[k];
        const Counts &a = halves[0][k], &b = halves[1][k];
        c.instances = a.instances + b.instances;
        c.gaps = a.gaps + b.gaps;
        c.exact = a.exact + b.exact;
        c.min_gap = std::min(a.min_gap, b.min_gap);
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
        if (d_.objects[i].kind() == ObjKind::kMirror)
            mirrors.emplace_back(i, staticFields(d_.classes[d_.objects[i].cls]));
    auto mirrorSize = [&](uint64_t base, const std::vector<FieldSpec>& statics) {
        return alignUp(FieldLayout::staticsEnd(base, statics), model_.alignment);
    };
    uint64_t best_base = klass.base_layout_size, best_votes = 0;
    for (uint64_t base = klass.base_layout_size; base <= klass.base_layout_size + 64;
         base += model_.alignment) {
        uint64_t votes = 0;
        for (const auto& [i, statics] : mirrors)
            votes += gapAt(i) != 0 && mirrorSize(base, statics) == gapAt(i);
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
        if (const uint64_t gap = gapAt(i); gap != 0 && gap < size) size = gap;
        mirror_sizes_[d_.objects[i].cls] = size;
    }
    // A mirror the dump does not list: as long as its gap, where that is a mirror's size at most
    // (statics of 64 KiB), else java.lang.Class's own size.
    for (size_t i = 0; i < d_.objects.size(); ++i) {
        Obj& o = d_.objects[i];
        if (o.kind() != ObjKind::kUnlisted) continue;
        const uint64_t gap = gapAt(i);
        o.length = static_cast<uint32_t>(gap >= best_base && gap <= (64u << 10) ? gap : best_base);
    }
}

uint64_t DumpImport::sizeOf(const Obj& o) const {
    switch (o.kind()) {
        case ObjKind::kInstance: return d_.classes[o.cls].size;
        case ObjKind::kMirror: return mirror_sizes_[o.cls];
        case ObjKind::kUnlisted: return o.length;
        default: return model_.arraySize(o.length, elementBytes(d_.classes[o.cls]));
    }
}

}  // namespace memcity::hprof::detail
