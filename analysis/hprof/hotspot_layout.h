// How HotSpot lays out an object's fields, to give a heap dump's objects the sizes the JVM counts.
// A dump lists each class's fields with their types but not where they sit, and an instance's
// size is its layout's end: the header, then the fields packed as HotSpot's field layout builder
// (JDK 15 and later) packs them. Primitive fields go largest first, each into the smallest hole
// that fits it (the superclass's holes too), else at the end; references after them the same way.
// A class's static fields live in its java.lang.Class mirror, after the mirror's own fields:
// references first, side by side, then primitives largest first, each after the last.
//
// What a dump does not say (fields the VM injects, @Contended padding, the header's size) the
// importer learns from the objects' addresses (hprof_import.cpp): this file is the model.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace memcity::hprof {

// The shape of HotSpot's objects: compressed class pointers and oops give the 64-bit defaults.
struct ObjectModel {
    uint32_t header = 12;        // mark word and class pointer: the first field's earliest offset
    uint32_t array_length = 12;  // where an array's length is; its elements follow, aligned to their size
    uint32_t oop = 4;            // bytes of a reference field or element
    uint32_t alignment = 8;      // objects start and end at multiples of it

    // Bytes before an array's first element: its length, then the elements aligned to their size.
    uint32_t arrayHeader(uint32_t element_bytes) const;
    uint64_t arraySize(uint64_t length, uint32_t element_bytes) const;
    bool operator==(const ObjectModel&) const = default;
};

// The candidates the importer tries against a dump's addresses, the JVM's default first:
// compressed oops and class pointers; compressed class pointers only (-XX:-UseCompressedOops);
// neither; compact headers (JDK 24 and later, -XX:+UseCompactObjectHeaders).
std::span<const ObjectModel> objectModels();

// A field as the layout sees it: its bytes (primitives 1..8, references the model's oop size).
struct FieldSpec {
    uint8_t size = 0;
    bool reference = false;
    bool contended = false;  // in the class's @Contended group (padded off from the others)
};

// The JDK's classes HotSpot pads (@jdk.internal.vm.annotation.Contended, honoured for the JDK's
// own classes only): the whole class, or the named fields, as one group.
bool isContendedClass(std::string_view internal_name);
bool isContendedField(std::string_view internal_class_name, std::string_view field);
inline constexpr uint32_t kContendedPadding = 128;  // -XX:ContendedPaddingWidth's default

// The fields HotSpot adds to some of the JDK's classes, which a dump does not list.
struct InjectedField {
    std::string_view name;
    uint8_t size;
    bool reference;
};
std::span<const InjectedField> injectedFields(std::string_view internal_class_name);

// A class's fields laid out: occupied byte ranges, sorted, and the end of the last one.
class FieldLayout {
public:
    // A class without a superclass: only the header.
    explicit FieldLayout(uint32_t header_bytes);
    // The layout of a subclass whose own instance fields are `fields`.
    FieldLayout extend(std::span<const FieldSpec> fields) const;
    // Reserves `bytes` at the end, 8-aligned (what a dump does not list: a pointer the VM
    // injects), and seals the layout: where the missing bytes sit is not known, so no hole is.
    void reserve(uint64_t bytes);
    // Whether a subclass may fill this layout's holes (not after @Contended padding).
    bool sealed() const { return floor_ > 0; }
    // Static fields laid out from `start` (the mirror's instance size): the mirror's end.
    static uint64_t staticsEnd(uint64_t start, std::span<const FieldSpec> fields);

    uint64_t end() const { return end_; }
    // The instance size: the end rounded up to the alignment.
    uint64_t instanceSize(uint32_t alignment) const;

private:
    struct Range {
        uint64_t begin, end;
    };
    FieldLayout() = default;
    // Places a field of `size` bytes (aligned to its size) into the smallest hole that fits it,
    // the last of equal holes, or at the end.
    void place(uint64_t size);
    void placeAt(uint64_t offset, uint64_t size);
    // Sets the floor at the end: the layout so far is one range.
    void seal();

    std::vector<Range> used_;  // sorted, disjoint, none touching the next
    uint64_t end_ = 0;
    uint64_t floor_ = 0;  // holes below it are not searched
};

}  // namespace memcity::hprof
