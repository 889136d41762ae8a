#include "hotspot.h"

#include <dlfcn.h>

#include <cstring>

namespace memcity::agent {
namespace {

void* jvmHandle() {
    // libjvm is loaded already; RTLD_NOLOAD only finds it (by its soname).
    if (void* h = dlopen("libjvm.so", RTLD_NOLOAD | RTLD_NOW)) return h;
    return RTLD_DEFAULT;
}

template <class T>
bool exported(void* handle, const char* name, T* out) {
    const void* p = dlsym(handle, name);
    if (!p) return false;
    std::memcpy(out, p, sizeof(T));
    return true;
}

// Reads one of HotSpot's exported tables of (name, value) entries into `out`: the table, the
// offsets of an entry's name and value, and the entries' stride are exported symbols; the
// table ends with an entry whose name is null. Nothing is read where a symbol is missing.
template <class Value>
void readNamedValues(void* handle, const char* table_symbol, const char* name_symbol,
                     const char* value_symbol, const char* stride_symbol,
                     std::unordered_map<std::string, Value>* out) {
    const char* table = nullptr;
    uint64_t name_at = 0, value_at = 0, stride = 0;
    if (!exported(handle, table_symbol, &table) || !table || !exported(handle, name_symbol, &name_at) ||
        !exported(handle, value_symbol, &value_at) || !exported(handle, stride_symbol, &stride) ||
        stride == 0)
        return;
    for (const char* e = table; e < table + (uint64_t{1} << 24) * stride; e += stride) {
        const char* name = nullptr;
        Value value{};
        std::memcpy(&name, e + name_at, sizeof name);
        if (!name) break;
        std::memcpy(&value, e + value_at, sizeof value);
        out->emplace(name, value);
    }
}

}  // namespace

std::unique_ptr<VmStructs> VmStructs::load() {
    void* h = jvmHandle();
    const char* table = nullptr;
    uint64_t type_at = 0, field_at = 0, static_at = 0, offset_at = 0, address_at = 0, stride = 0;
    if (!exported(h, "gHotSpotVMStructs", &table) || !table ||
        !exported(h, "gHotSpotVMStructEntryTypeNameOffset", &type_at) ||
        !exported(h, "gHotSpotVMStructEntryFieldNameOffset", &field_at) ||
        !exported(h, "gHotSpotVMStructEntryIsStaticOffset", &static_at) ||
        !exported(h, "gHotSpotVMStructEntryOffsetOffset", &offset_at) ||
        !exported(h, "gHotSpotVMStructEntryAddressOffset", &address_at) ||
        !exported(h, "gHotSpotVMStructEntryArrayStride", &stride) || stride == 0)
        return nullptr;
    auto vm = std::unique_ptr<VmStructs>(new VmStructs());
    // The table ends with an entry whose type name is null.
    for (const char* e = table; e < table + (uint64_t{1} << 24) * stride; e += stride) {
        const char* type = nullptr;
        const char* field = nullptr;
        int32_t is_static = 0;
        uint64_t offset = 0;
        const void* address = nullptr;
        std::memcpy(&type, e + type_at, sizeof type);
        if (!type) break;
        std::memcpy(&field, e + field_at, sizeof field);
        std::memcpy(&is_static, e + static_at, sizeof is_static);
        std::memcpy(&offset, e + offset_at, sizeof offset);
        std::memcpy(&address, e + address_at, sizeof address);
        if (!field) continue;
        Field f;
        if (is_static)
            f.address = address;
        else
            f.offset = static_cast<int64_t>(offset);
        vm->fields_.emplace(std::string(type) + "::" + field, f);
    }
    // Type sizes (JVMFlag's among them: the flags are an array of JVMFlag), and int constants.
    readNamedValues<uint64_t>(h, "gHotSpotVMTypes", "gHotSpotVMTypeEntryTypeNameOffset",
                              "gHotSpotVMTypeEntrySizeOffset", "gHotSpotVMTypeEntryArrayStride", &vm->sizes_);
    readNamedValues<int32_t>(h, "gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryNameOffset",
                             "gHotSpotVMIntConstantEntryValueOffset", "gHotSpotVMIntConstantEntryArrayStride",
                             &vm->constants_);
    return vm;
}

int64_t VmStructs::offset(std::string_view type, std::string_view field) const {
    auto it = fields_.find(std::string(type) + "::" + std::string(field));
    return it == fields_.end() ? -1 : it->second.offset;
}

const void* VmStructs::address(std::string_view type, std::string_view field) const {
    auto it = fields_.find(std::string(type) + "::" + std::string(field));
    return it == fields_.end() ? nullptr : it->second.address;
}

int32_t VmStructs::constant(std::string_view name, int32_t fallback) const {
    auto it = constants_.find(std::string(name));
    return it == constants_.end() ? fallback : it->second;
}

uint64_t VmStructs::size(std::string_view type) const {
    auto it = sizes_.find(std::string(type));
    return it == sizes_.end() ? 0 : it->second;
}

bool VmStructs::flag(std::string_view name) const {
    const void* flags_at = address("JVMFlag", "flags");
    const void* count_at = address("JVMFlag", "numFlags");
    const int64_t name_off = offset("JVMFlag", "_name"), addr_off = offset("JVMFlag", "_addr");
    const int64_t size = static_cast<int64_t>(this->size("JVMFlag"));
    if (!flags_at || !count_at || name_off < 0 || addr_off < 0 || size <= 0) return false;
    const char* flags = nullptr;
    uint64_t count = 0;
    std::memcpy(&flags, flags_at, sizeof flags);
    std::memcpy(&count, count_at, sizeof count);
    for (uint64_t i = 0; flags && i < count; ++i) {
        const char* f = flags + i * static_cast<uint64_t>(size);
        const char* n = nullptr;
        const bool* value = nullptr;
        std::memcpy(&n, f + name_off, sizeof n);
        if (!n || name != n) continue;
        std::memcpy(&value, f + addr_off, sizeof value);
        return value && *value;
    }
    return false;
}

std::unique_ptr<PerfCounters> PerfCounters::open(const VmStructs& vm) {
    const void* start_at = vm.address("PerfMemory", "_start");
    const void* capacity_at = vm.address("PerfMemory", "_capacity");
    if (!start_at || !capacity_at) return nullptr;
    const char* start = nullptr;
    uint64_t capacity = 0;
    std::memcpy(&start, start_at, sizeof start);
    std::memcpy(&capacity, capacity_at, sizeof capacity);
    // The prologue: magic, byte order, versions, accessible, used, overflow, modification time,
    // offset of the first entry, number of entries.
    if (!start || capacity < 32) return nullptr;
    uint32_t magic = 0;
    int32_t first = 0, count = 0;
    std::memcpy(&magic, start, sizeof magic);
    std::memcpy(&first, start + 24, sizeof first);
    std::memcpy(&count, start + 28, sizeof count);
    if (magic != 0xc0c0feca || first < 32 || count < 0) return nullptr;
    auto perf = std::unique_ptr<PerfCounters>(new PerfCounters());
    // Each entry: length, name offset, vector length, type, flags, units, variability, data
    // offset; the name and the data follow, at offsets from the entry's start.
    const char* e = start + first;
    for (int32_t i = 0; i < count; ++i) {
        int32_t length = 0, name_at = 0, vector = 0, data_at = 0;
        if (e + 20 > start + capacity) break;
        std::memcpy(&length, e, sizeof length);
        std::memcpy(&name_at, e + 4, sizeof name_at);
        std::memcpy(&vector, e + 8, sizeof vector);
        std::memcpy(&data_at, e + 16, sizeof data_at);
        if (length <= 0 || e + length > start + capacity || name_at <= 0 || name_at >= length ||
            data_at <= 0 || data_at >= length)
            break;
        const char* name = e + name_at;
        if (std::memchr(name, 0, static_cast<size_t>(length - name_at)))
            perf->entries_.emplace(name, Entry{e + data_at, e[12], vector});
        e += length;
    }
    return perf;
}

const volatile int64_t* PerfCounters::number(std::string_view name) const {
    auto it = entries_.find(std::string(name));
    if (it == entries_.end() || it->second.type != 'J' || it->second.length != 0) return nullptr;
    return reinterpret_cast<const volatile int64_t*>(it->second.data);
}

const volatile char* PerfCounters::text(std::string_view name, size_t* capacity) const {
    auto it = entries_.find(std::string(name));
    if (it == entries_.end() || it->second.type != 'B' || it->second.length <= 0) return nullptr;
    if (capacity) *capacity = static_cast<size_t>(it->second.length);
    return it->second.data;
}

}  // namespace memcity::agent
