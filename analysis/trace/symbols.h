// Symbol tables of a trace: strings, types (with array layout and fields), fields, methods,
// allocation sites (call chains), threads, root kinds and spaces. Ids are small dense integers
// starting at 1; 0 means "none". Decoded from SYMBOLS chunks.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace_format.h"
#include "util/result.h"

namespace memcity {

struct TypeInfo {
    std::string name;  // Java-style: "java.util.HashMap", "int[]", "java.lang.String[][]"
    format::TypeKind kind = format::TypeKind::kInstance;
    uint32_t super_type = 0;       // type id, 0 = none or unknown
    uint32_t instance_size = 0;    // bytes, instances only; 0 = varies (each allocation gives it)
    uint32_t array_header = 0;     // bytes before the first element, arrays only
    uint32_t element_size = 0;     // bytes per element, arrays only
    uint32_t element_type = 0;     // type id of the element type, 0 = primitive or unknown
    std::vector<uint32_t> fields;  // field ids declared by this type, in definition order
    bool defined = false;

    bool isArray() const { return kind != format::TypeKind::kInstance; }
};

// The part of a type that sizes its objects, kept apart from the names so that sizing millions of
// objects reads 12 bytes per type.
struct TypeLayout {
    uint32_t instance_size = 0;
    uint32_t array_header = 0;
    uint32_t element_size = 0;
};

struct FieldInfo {
    uint32_t owner = 0;     // type id
    std::string name;       // "table", "value"
    std::string type_name;  // declared type, "java.util.HashMap$Node[]"
    uint8_t flags = 0;      // format::kFieldStatic | format::kFieldReference
    bool defined = false;
};

struct MethodInfo {
    std::string class_name;   // "java.util.HashMap"
    std::string name;         // "resize"
    std::string signature;    // "()[Ljava/util/HashMap$Node;"
    std::string source_file;  // "HashMap.java", may be empty
    bool defined = false;
};

struct Frame {
    uint32_t method = 0;  // method id
    int32_t line = -1;    // source line, -1 = unknown
};

struct ThreadInfo {
    std::string name;
    uint8_t flags = 0;            // format::kThreadDaemon
    uint64_t java_object_id = 0;  // id of the java.lang.Thread object, 0 = unknown
    bool defined = false;
};

struct SpaceInfo {
    std::string name;
    uint64_t start = 0;  // address
    uint64_t size = 0;   // bytes
    bool defined = false;
};

class SymbolTable {
public:
    SymbolTable();

    // Decodes one SYMBOLS payload. On failure, an Error naming what is wrong at its offset within
    // `payload` (Error::inData): where the bad record starts, or where a read ran out.
    Status decode(std::span<const uint8_t> payload);

    // Lookups; each returns an empty/default record for an undefined id within range.
    std::string_view string(uint32_t id) const;
    bool hasString(uint32_t id) const { return id < string_defined_.size() && string_defined_[id]; }

    const std::vector<TypeInfo>& types() const { return types_; }  // index = id; [0] unused
    const TypeInfo& type(uint32_t id) const { return id < types_.size() ? types_[id] : empty_type_; }
    // Layouts by type id (same indices as types()).
    const std::vector<TypeLayout>& layouts() const { return layouts_; }
    bool hasType(uint32_t id) const { return id < types_.size() && types_[id].defined; }

    const FieldInfo& field(uint32_t id) const { return id < fields_.size() ? fields_[id] : empty_field_; }
    bool hasField(uint32_t id) const { return id < fields_.size() && fields_[id].defined; }

    const MethodInfo& method(uint32_t id) const {
        return id < methods_.size() ? methods_[id] : empty_method_;
    }
    bool hasMethod(uint32_t id) const { return id < methods_.size() && methods_[id].defined; }

    // Frames of a site, innermost (the allocating frame) first.
    std::span<const Frame> siteFrames(uint32_t id) const;
    bool hasSite(uint32_t id) const { return id < site_defined_.size() && site_defined_[id]; }
    size_t siteSlots() const { return site_defined_.size(); }

    const ThreadInfo& thread(uint32_t id) const {
        return id < threads_.size() ? threads_[id] : empty_thread_;
    }
    bool hasThread(uint32_t id) const { return id < threads_.size() && threads_[id].defined; }

    // Root kind names: builtin kinds are named without a symbol; ROOT_KIND records add more.
    std::string_view rootKindName(uint32_t id) const;
    bool hasRootKind(uint32_t id) const;

    const SpaceInfo& space(uint32_t id) const { return id < spaces_.size() ? spaces_[id] : empty_space_; }

    // Counts of defined symbols, for summaries.
    struct Counts {
        size_t strings = 0, types = 0, fields = 0, methods = 0, sites = 0, threads = 0, root_kinds = 0,
               spaces = 0;
    };
    const Counts& counts() const { return counts_; }

    // "java.util.HashMap.resize(HashMap.java:704)"; "<unknown site>" for id 0.
    std::string frameLabel(const Frame& frame) const;
    std::string siteLabel(uint32_t id) const;  // the allocating frame's label

private:
    std::vector<std::string> strings_;
    std::vector<bool> string_defined_;
    std::vector<TypeInfo> types_;
    std::vector<TypeLayout> layouts_;
    std::vector<FieldInfo> fields_;
    std::vector<MethodInfo> methods_;
    std::vector<uint32_t> site_begin_;  // index into site_frames_, per site id
    std::vector<uint32_t> site_count_;
    std::vector<bool> site_defined_;
    std::vector<Frame> site_frames_;
    std::vector<ThreadInfo> threads_;
    std::vector<std::string> root_kind_names_;
    std::vector<bool> root_kind_defined_;
    std::vector<SpaceInfo> spaces_;
    Counts counts_;

    TypeInfo empty_type_;
    FieldInfo empty_field_;
    MethodInfo empty_method_;
    ThreadInfo empty_thread_;
    SpaceInfo empty_space_;
};

}  // namespace memcity
