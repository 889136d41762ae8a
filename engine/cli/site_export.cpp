#include "cli/site_export.h"

#include <zlib.h>

#include <map>
#include <unordered_map>
#include <utility>

#include "cli/profile.pb.h"

namespace memcity::cli {
namespace {

constexpr std::string_view kUnknownSite = "<unknown site>";
constexpr std::string_view kOtherStacks = "<other stacks>";

std::string sampleTypePrefix(StackValue what) {
    switch (what) {
        case StackValue::kLive: return "inuse";
        case StackValue::kAllocated: return "alloc";
        case StackValue::kRetained: return "retained";
        case StackValue::kChurn: return "churn";
    }
    return "?";
}

// The profile's string table: each string once, "" at index 0 as the format requires.
class Strings {
public:
    explicit Strings(pprof::Profile& p) : profile_(p) { index(""); }
    int64_t index(const std::string& s) {
        auto [it, added] = ids_.try_emplace(s, static_cast<int64_t>(ids_.size()));
        if (added) profile_.add_string_table(s);
        return it->second;
    }

private:
    pprof::Profile& profile_;
    std::unordered_map<std::string, int64_t> ids_;
};

Result<std::string> gzip(const std::string& data) {
    z_stream z{};
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return Error{"zlib: cannot start compressing"};
    std::string out(deflateBound(&z, static_cast<uLong>(data.size())) + 32, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) return Error{"zlib: compressing the profile failed"};
    return out;
}

}  // namespace

std::string collapsedStacks(const SiteProfile& profile, const SymbolTable& symbols, Metric unit) {
    std::string out;
    for (const SiteStack& s : profile.stacks) {
        const uint64_t v = unit == Metric::kObjects ? s.objects : s.bytes;
        if (v == 0) continue;
        if (s.frames.empty()) out.append(s.other ? kOtherStacks : kUnknownSite);
        for (size_t i = 0; i < s.frames.size(); ++i) {
            if (i) out.push_back(';');
            std::string label = printable(symbols.frameLabel(s.frames[i]), 400);
            for (char& c : label)  // ';' separates frames
                if (c == ';') c = ':';
            out.append(label);
        }
        out.append(" ").append(std::to_string(v)).append("\n");
    }
    return out;
}

Result<std::string> pprofProfile(const SiteProfile& profile, const SymbolTable& symbols,
                                 const PprofOptions& options) {
    pprof::Profile p;
    Strings strings(p);
    const std::string prefix = sampleTypePrefix(options.what);
    auto sampleType = [&](const std::string& type, const std::string& unit) {
        pprof::ValueType* t = p.add_sample_type();
        t->set_type(strings.index(type));
        t->set_unit(strings.index(unit));
    };
    sampleType(prefix + "_objects", "count");
    sampleType(prefix + "_space", "bytes");
    p.set_default_sample_type(
        strings.index(prefix + (options.default_unit == Metric::kObjects ? "_objects" : "_space")));
    p.mutable_period_type()->set_type(strings.index("space"));
    p.mutable_period_type()->set_unit(strings.index("bytes"));
    p.set_period(1);
    p.set_duration_nanos(options.duration_ns);
    for (const std::string& c : options.comments)
        p.add_comment(strings.index(c));

    std::map<uint32_t, uint64_t> functions;                  // method id -> function id
    std::map<std::pair<uint32_t, int32_t>, uint64_t> lines;  // (method, line) -> location id
    // Ids 1 and 2: the unknown site and the other stacks, each a function and a location of its own.
    auto special = [&](uint64_t id, std::string_view name) {
        pprof::Function* f = p.add_function();
        f->set_id(id);
        f->set_name(strings.index(std::string(name)));
        f->set_system_name(strings.index(std::string(name)));
        pprof::Location* l = p.add_location();
        l->set_id(id);
        l->add_line()->set_function_id(id);
        return id;
    };
    uint64_t unknown_location = 0, other_location = 0;
    auto function = [&](uint32_t method) {
        auto [it, added] = functions.try_emplace(method, functions.size() + 3);
        if (added) {
            const MethodInfo& m = symbols.method(method);
            pprof::Function* f = p.add_function();
            f->set_id(it->second);
            const std::string name =
                m.defined ? m.class_name + "." + m.name : "<unknown method " + std::to_string(method) + ">";
            f->set_name(strings.index(name));
            f->set_system_name(strings.index(name + m.signature));
            f->set_filename(strings.index(m.source_file));
        }
        return it->second;
    };
    auto location = [&](const Frame& fr) {
        auto [it, added] = lines.try_emplace({fr.method, fr.line}, lines.size() + 3);
        if (added) {
            pprof::Location* l = p.add_location();
            l->set_id(it->second);
            pprof::Line* line = l->add_line();
            line->set_function_id(function(fr.method));
            line->set_line(fr.line < 0 ? 0 : fr.line);
        }
        return it->second;
    };
    for (const SiteStack& s : profile.stacks) {
        pprof::Sample* sample = p.add_sample();
        if (s.frames.empty() && s.other) {
            if (!other_location) other_location = special(2, kOtherStacks);
            sample->add_location_id(other_location);
        } else if (s.frames.empty()) {
            if (!unknown_location) unknown_location = special(1, kUnknownSite);
            sample->add_location_id(unknown_location);
        }
        for (auto it = s.frames.rbegin(); it != s.frames.rend(); ++it)  // innermost first
            sample->add_location_id(location(*it));
        sample->add_value(static_cast<int64_t>(s.objects));
        sample->add_value(static_cast<int64_t>(s.bytes));
    }
    std::string raw;
    if (!p.SerializeToString(&raw)) return Error{"the profile could not be encoded"};
    return gzip(raw);
}

}  // namespace memcity::cli
