#include "hprof/hotspot_layout.h"

#include <algorithm>
#include <array>
#include <iterator>

namespace memcity::hprof {

namespace {

uint64_t alignUp(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}

// Indices of the primitive fields, largest first (equal sizes keep their order).
std::vector<uint8_t> primitivesLargestFirst(std::span<const FieldSpec> fields, bool contended = false) {
    std::vector<uint8_t> sizes;
    for (const FieldSpec& f : fields)
        if (!f.reference && f.contended == contended) sizes.push_back(f.size);
    std::stable_sort(sizes.begin(), sizes.end(), [](uint8_t a, uint8_t b) { return a > b; });
    return sizes;
}

}  // namespace

uint32_t ObjectModel::arrayHeader(uint32_t element_bytes) const {
    return static_cast<uint32_t>(alignUp(array_length + 4, std::max<uint32_t>(element_bytes, 4)));
}

uint64_t ObjectModel::arraySize(uint64_t length, uint32_t element_bytes) const {
    return alignUp(arrayHeader(element_bytes) + length * element_bytes, alignment);
}

std::span<const ObjectModel> objectModels() {
    static constexpr std::array<ObjectModel, 4> models = {{
        {12, 12, 4, 8},  // compressed oops and class pointers
        {12, 12, 8, 8},  // -XX:-UseCompressedOops
        {16, 16, 8, 8},  // -XX:-UseCompressedClassPointers as well
        {8, 8, 4, 8},    // -XX:+UseCompactObjectHeaders
    }};
    return models;
}

FieldLayout::FieldLayout(uint32_t header_bytes) {
    if (header_bytes > 0) used_.push_back({0, header_bytes});
    end_ = header_bytes;
}

void FieldLayout::placeAt(uint64_t offset, uint64_t size) {
    // Touching ranges are one: a layout keeps its holes, not its fields (a class of 65,535
    // fields is a few ranges, and so is every subclass's copy of it).
    const Range r{offset, offset + size};
    auto it = std::lower_bound(used_.begin(), used_.end(), r.begin,
                               [](const Range& u, uint64_t b) { return u.begin < b; });
    const bool joins_previous = it != used_.begin() && std::prev(it)->end == r.begin;
    const bool joins_next = it != used_.end() && it->begin == r.end;
    if (joins_previous && joins_next) {
        std::prev(it)->end = it->end;
        used_.erase(it);
    } else if (joins_previous) {
        std::prev(it)->end = r.end;
    } else if (joins_next) {
        it->begin = r.begin;
    } else {
        used_.insert(it, r);
    }
    end_ = std::max(end_, r.end);
}

void FieldLayout::seal() {
    // No hole below the floor is searched again: all of it is one range.
    floor_ = end_;
    used_.assign(1, Range{0, end_});
}

void FieldLayout::place(uint64_t size) {
    // The holes between used ranges, searched from the last to the first as HotSpot does: the
    // smallest that fits wins, and of equal ones the first met (the last in the layout).
    uint64_t best_offset = 0, best_size = 0;
    bool found = false;
    for (size_t i = used_.size(); i-- > 1;) {
        if (used_[i].begin <= floor_) break;
        const uint64_t hole_begin = used_[i - 1].end, hole_end = used_[i].begin;
        if (hole_end <= hole_begin) continue;
        const uint64_t at = alignUp(std::max(hole_begin, floor_), size);
        if (at + size > hole_end) continue;
        if (!found || hole_end - hole_begin < best_size) {
            found = true;
            best_size = hole_end - hole_begin;
            best_offset = at;
        }
    }
    placeAt(found ? best_offset : alignUp(end_, size), size);
}

FieldLayout FieldLayout::extend(std::span<const FieldSpec> fields) const {
    FieldLayout out = *this;
    // After a superclass's @Contended padding, fields only go after its end.
    if (out.sealed()) out.seal();
    for (uint8_t size : primitivesLargestFirst(fields))
        out.place(size);
    for (const FieldSpec& f : fields)
        if (f.reference && !f.contended) out.place(f.size);
    // A @Contended group: padding, the group, padding again.
    if (std::any_of(fields.begin(), fields.end(), [](const FieldSpec& f) { return f.contended; })) {
        // The group is appended, field after field: HotSpot searches no hole for it.
        out.end_ += kContendedPadding;
        for (uint8_t size : primitivesLargestFirst(fields, true))
            out.placeAt(alignUp(out.end_, size), size);
        for (const FieldSpec& f : fields)
            if (f.reference && f.contended) out.placeAt(alignUp(out.end_, f.size), f.size);
        out.end_ += kContendedPadding;
        out.seal();
    }
    return out;
}

void FieldLayout::reserve(uint64_t bytes) {
    placeAt(alignUp(end_, 8), bytes);
    seal();
}

bool isContendedClass(std::string_view name) {
    return name == "java/util/concurrent/ConcurrentHashMap$CounterCell" ||
           name == "java/util/concurrent/atomic/Striped64$Cell" ||
           name == "java/util/concurrent/Exchanger$Node";
}

bool isContendedField(std::string_view name, std::string_view field) {
    // java.lang.Thread's ThreadLocalRandom state, @Contended("tlr").
    return name == "java/lang/Thread" &&
           (field == "threadLocalRandomSeed" || field == "threadLocalRandomProbe" ||
            field == "threadLocalRandomSecondarySeed");
}

std::span<const InjectedField> injectedFields(std::string_view name) {
    // HotSpot's javaClasses.hpp (JDK 17 to 25): a pointer to VM data is a long.
    static constexpr InjectedField loader[] = {{"loader_data", 8, false}};
    static constexpr InjectedField module[] = {{"module_entry", 8, false}};
    static constexpr InjectedField member_name[] = {{"vmindex", 8, false}};
    static constexpr InjectedField resolved[] = {{"vmholder", 0, true}, {"vmtarget", 8, false}};
    static constexpr InjectedField context[] = {{"vmdependencies", 8, false}, {"last_cleanup", 8, false}};
    static constexpr InjectedField frame_info[] = {{"version", 2, false}};
    if (name == "java/lang/ClassLoader") return loader;
    if (name == "java/lang/Module") return module;
    if (name == "java/lang/invoke/MemberName") return member_name;
    if (name == "java/lang/invoke/ResolvedMethodName") return resolved;
    if (name == "java/lang/invoke/MethodHandleNatives$CallSiteContext") return context;
    if (name == "java/lang/StackFrameInfo") return frame_info;
    return {};
}

uint64_t FieldLayout::staticsEnd(uint64_t start, std::span<const FieldSpec> fields) {
    FieldLayout out;
    out.used_.push_back({0, start});
    out.end_ = start;
    // References side by side at the start, then the primitives, largest first, each after the
    // last: no hole is searched (the layout's start is its end).
    for (const FieldSpec& f : fields)
        if (f.reference) out.placeAt(alignUp(out.end_, f.size), f.size);
    for (uint8_t size : primitivesLargestFirst(fields))
        out.placeAt(alignUp(out.end_, size), size);
    return out.end_;
}

uint64_t FieldLayout::instanceSize(uint32_t alignment) const {
    return alignUp(end_, alignment);
}

}  // namespace memcity::hprof
