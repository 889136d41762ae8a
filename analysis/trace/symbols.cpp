#include "trace/symbols.h"

#include "util/bytes.h"

namespace memcity {
namespace {

template <class Vec>
void growTo(Vec& v, uint32_t id) {
    if (v.size() <= id) v.resize(size_t{id} + 1);
}

}  // namespace

SymbolTable::SymbolTable() {
    root_kind_names_.resize(static_cast<size_t>(format::RootKind::kBuiltinCount));
    root_kind_defined_.resize(root_kind_names_.size());
    for (uint32_t k = 1; k < root_kind_names_.size(); ++k) {
        root_kind_names_[k] = std::string(format::builtinRootKindName(k));
        root_kind_defined_[k] = true;
    }
}

Status SymbolTable::decode(std::span<const uint8_t> payload) {
    ByteReader r(payload.data(), payload.size());
    size_t record_start = 0;
    std::string problem;

    // Ids must be dense: an id may run ahead of twice the number of its kind defined so far by
    // kDenseSlack at most. Sequential producers always satisfy it, and it keeps the tables (dense
    // arrays indexed by id) proportional to the file, whatever the file claims.
    constexpr uint64_t kDenseSlack = 4096;
    auto dense = [&](const char* what, uint64_t id, size_t defined) {
        if (id <= 2 * defined + kDenseSlack) return true;
        problem = std::string(what) + " id " + std::to_string(id) + " is too far beyond the " +
                  std::to_string(defined) + " defined so far (ids must be dense)";
        return false;
    };
    // Reads a symbol id and checks its range.
    auto readId = [&](const char* what, size_t defined) -> uint32_t {
        uint64_t id = r.varint();
        if (r.failed()) return 0;
        if (id == 0 || id >= format::kMaxSymbolId) {
            problem = std::string(what) + " id " + std::to_string(id) + " is out of range (1.." +
                      std::to_string(format::kMaxSymbolId - 1) + ")";
            return 0;
        }
        if (!dense(what, id, defined)) return 0;
        return static_cast<uint32_t>(id);
    };
    auto readRef = [&](const char* what) -> uint32_t {  // a reference to another symbol, 0 allowed
        uint64_t id = r.varint();
        if (!r.failed() && id >= format::kMaxSymbolId) {
            problem = std::string(what) + " id " + std::to_string(id) + " is out of range";
            return 0;
        }
        return static_cast<uint32_t>(id);
    };
    auto redefined = [&](const char* what, uint32_t id) {
        problem = std::string(what) + " " + std::to_string(id) + " is defined twice";
    };

    while (!r.atEnd()) {
        record_start = r.offset();
        auto kind = static_cast<format::SymbolRecord>(r.u8());
        switch (kind) {
            case format::SymbolRecord::kString: {
                uint32_t id = readId("string", counts_.strings);
                std::string_view s = r.string(format::kMaxStringBytes);
                if (!problem.empty() || r.failed()) break;
                growTo(strings_, id);
                string_defined_.resize(strings_.size());
                if (string_defined_[id]) {
                    redefined("string", id);
                    break;
                }
                strings_[id] = std::string(s);
                string_defined_[id] = true;
                ++counts_.strings;
                break;
            }
            case format::SymbolRecord::kType: {
                uint32_t id = readId("type", counts_.types);
                TypeInfo t;
                t.name = std::string(r.string(format::kMaxStringBytes));
                uint8_t k = r.u8();
                t.super_type = readRef("super type");
                t.instance_size = r.varint32();
                t.array_header = r.varint32();
                t.element_size = r.varint32();
                t.element_type = readRef("element type");
                if (!problem.empty() || r.failed()) break;
                if (k > static_cast<uint8_t>(format::TypeKind::kReferenceArray)) {
                    problem = "type " + std::to_string(id) + " has unknown kind " + std::to_string(k);
                    break;
                }
                t.kind = static_cast<format::TypeKind>(k);
                growTo(types_, id);
                if (types_[id].defined) {
                    redefined("type", id);
                    break;
                }
                t.fields = std::move(types_[id].fields);  // fields may be defined before their type
                t.defined = true;
                growTo(layouts_, id);
                layouts_[id] = TypeLayout{t.instance_size, t.array_header, t.element_size};
                types_[id] = std::move(t);
                ++counts_.types;
                break;
            }
            case format::SymbolRecord::kField: {
                uint32_t id = readId("field", counts_.fields);
                FieldInfo f;
                f.owner = readRef("field owner");
                if (problem.empty() && !r.failed() && !dense("field owner type", f.owner, counts_.types))
                    break;
                f.name = std::string(r.string(format::kMaxStringBytes));
                f.type_name = std::string(r.string(format::kMaxStringBytes));
                f.flags = r.u8();
                if (!problem.empty() || r.failed()) break;
                growTo(fields_, id);
                if (fields_[id].defined) {
                    redefined("field", id);
                    break;
                }
                f.defined = true;
                fields_[id] = std::move(f);
                if (fields_[id].owner != 0) {
                    growTo(types_, fields_[id].owner);
                    types_[fields_[id].owner].fields.push_back(id);
                }
                ++counts_.fields;
                break;
            }
            case format::SymbolRecord::kMethod: {
                uint32_t id = readId("method", counts_.methods);
                MethodInfo m;
                m.class_name = std::string(r.string(format::kMaxStringBytes));
                m.name = std::string(r.string(format::kMaxStringBytes));
                m.signature = std::string(r.string(format::kMaxStringBytes));
                m.source_file = std::string(r.string(format::kMaxStringBytes));
                if (!problem.empty() || r.failed()) break;
                growTo(methods_, id);
                if (methods_[id].defined) {
                    redefined("method", id);
                    break;
                }
                m.defined = true;
                methods_[id] = std::move(m);
                ++counts_.methods;
                break;
            }
            case format::SymbolRecord::kSite: {
                uint32_t id = readId("site", counts_.sites);
                uint64_t n = r.varint();
                if (!problem.empty() || r.failed()) break;
                if (n > format::kMaxSiteFrames) {
                    problem = "site " + std::to_string(id) + " has " + std::to_string(n) +
                              " frames (at most " + std::to_string(format::kMaxSiteFrames) + ")";
                    break;
                }
                growTo(site_defined_, id);
                site_begin_.resize(site_defined_.size());
                site_count_.resize(site_defined_.size());
                if (site_defined_[id]) {
                    redefined("site", id);
                    break;
                }
                auto begin = static_cast<uint32_t>(site_frames_.size());
                for (uint64_t i = 0; i < n && !r.failed(); ++i) {
                    Frame f;
                    f.method = readRef("frame method");
                    uint64_t line = r.varint();
                    f.line = line == 0 || line > 0x7fffffff ? -1 : static_cast<int32_t>(line - 1);
                    site_frames_.push_back(f);
                }
                if (!problem.empty() || r.failed()) {
                    site_frames_.resize(begin);
                    break;
                }
                site_begin_[id] = begin;
                site_count_[id] = static_cast<uint32_t>(n);
                site_defined_[id] = true;
                ++counts_.sites;
                break;
            }
            case format::SymbolRecord::kThread: {
                uint32_t id = readId("thread", counts_.threads);
                ThreadInfo t;
                t.name = std::string(r.string(format::kMaxStringBytes));
                t.flags = r.u8();
                uint64_t obj = r.varint();
                t.java_object_id = obj == 0 ? 0 : obj - 1;
                if (!problem.empty() || r.failed()) break;
                growTo(threads_, id);
                if (threads_[id].defined) {
                    redefined("thread", id);
                    break;
                }
                t.defined = true;
                threads_[id] = std::move(t);
                ++counts_.threads;
                break;
            }
            case format::SymbolRecord::kRootKind: {
                uint32_t id = readId("root kind", counts_.root_kinds);
                std::string_view name = r.string(format::kMaxStringBytes);
                if (!problem.empty() || r.failed()) break;
                growTo(root_kind_names_, id);
                root_kind_defined_.resize(root_kind_names_.size());
                root_kind_names_[id] = std::string(name);  // may rename a builtin kind
                root_kind_defined_[id] = true;
                ++counts_.root_kinds;
                break;
            }
            case format::SymbolRecord::kSpace: {
                uint32_t id = readId("space", counts_.spaces);
                SpaceInfo s;
                s.name = std::string(r.string(format::kMaxStringBytes));
                s.start = r.varint();
                s.size = r.varint();
                if (!problem.empty() || r.failed()) break;
                growTo(spaces_, id);
                if (spaces_[id].defined) {
                    redefined("space", id);
                    break;
                }
                s.defined = true;
                spaces_[id] = std::move(s);
                ++counts_.spaces;
                break;
            }
            default:
                problem = "unknown symbol record kind " + std::to_string(static_cast<unsigned>(kind));
                break;
        }
        if (r.failed()) return Error::inData(r.failOffset(), std::string("symbol record: ") + r.failReason());
        if (!problem.empty()) return Error::inData(record_start, problem);
    }
    return {};
}

std::string_view SymbolTable::string(uint32_t id) const {
    return id < strings_.size() ? std::string_view(strings_[id]) : std::string_view();
}

std::span<const Frame> SymbolTable::siteFrames(uint32_t id) const {
    if (!hasSite(id)) return {};
    return {site_frames_.data() + site_begin_[id], site_count_[id]};
}

std::string_view SymbolTable::rootKindName(uint32_t id) const {
    if (id < root_kind_names_.size() && root_kind_defined_[id]) return root_kind_names_[id];
    return "unknown root kind";
}

bool SymbolTable::hasRootKind(uint32_t id) const {
    return id < root_kind_defined_.size() && root_kind_defined_[id];
}

std::string SymbolTable::frameLabel(const Frame& frame) const {
    const MethodInfo& m = method(frame.method);
    if (!m.defined) return "<unknown method " + std::to_string(frame.method) + ">";
    // Built with append(): GCC 12 warns falsely (-Wrestrict) on chains of operator+ at -O3.
    std::string s;
    s.reserve(m.class_name.size() + m.name.size() + m.source_file.size() + 24);
    s.append(m.class_name).append(".").append(m.name).append("(");
    s.append(m.source_file.empty() ? std::string_view("Unknown Source") : std::string_view(m.source_file));
    if (frame.line >= 0) s.append(":").append(std::to_string(frame.line));
    s.append(")");
    return s;
}

std::string SymbolTable::siteLabel(uint32_t id) const {
    auto frames = siteFrames(id);
    if (frames.empty()) return id == 0 ? "<unknown site>" : "<site " + std::to_string(id) + ">";
    return frameLabel(frames[0]);
}

}  // namespace memcity
