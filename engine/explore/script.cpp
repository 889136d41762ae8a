#include "explore/script.h"

#include <cstdint>
#include <fstream>
#include <sstream>

namespace memcity::explore {
namespace {

std::string_view trim(std::string_view s) {
    const size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string_view::npos) return {};
    const size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
            ++i;
        const size_t start = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t')
            ++i;
        if (i > start) out.emplace_back(s.substr(start, i - start));
    }
    return out;
}

}  // namespace

Result<std::vector<ScriptCommand>> parseScript(std::string_view text, const std::string& name,
                                               std::span<const ScriptVerb* const> verbs) {
    std::vector<ScriptCommand> out;
    size_t line_no = 0;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t end = text.find('\n', start);
        const std::string_view raw =
            text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
        ++line_no;
        start = end == std::string_view::npos ? text.size() + 1 : end + 1;
        const std::string_view line = trim(raw);
        if (line.empty() || line[0] == '#') continue;
        ScriptCommand c;
        c.line = line_no;
        c.text = std::string(line);
        const size_t space = line.find_first_of(" \t");
        c.verb = std::string(line.substr(0, space));
        c.rest = space == std::string_view::npos ? std::string() : std::string(trim(line.substr(space)));
        c.args = words(c.rest);
        const ScriptVerb* verb = nullptr;
        for (const ScriptVerb* v : verbs)
            if (v->name == c.verb) verb = v;
        const std::string where = name + ":" + std::to_string(line_no) + ": ";
        if (!verb) {
            std::string names;
            for (const ScriptVerb* v : verbs)
                names += (names.empty() ? "" : ", ") + std::string(v->name);
            return Error{where + "unknown command '" + c.verb + "' (commands: " + names + ")"};
        }
        if (c.args.size() < verb->min_args || c.args.size() > verb->max_args) {
            const std::string want =
                verb->max_args == verb->min_args ? std::to_string(verb->min_args)
                : verb->max_args == kRestOfLine
                    ? "at least " + std::to_string(verb->min_args)
                    : std::to_string(verb->min_args) + " to " + std::to_string(verb->max_args);
            return Error{where + c.verb + " expects " + want + " argument" + (want == "1" ? "" : "s") +
                         ", got " + std::to_string(c.args.size()) + " (" + std::string(verb->usage) + ")"};
        }
        c.spec = verb;
        out.push_back(std::move(c));
    }
    return out;
}

Result<std::vector<ScriptCommand>> loadScript(const std::string& path,
                                              std::span<const ScriptVerb* const> verbs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot read the script " + path};
    std::stringstream ss;
    ss << in.rdbuf();
    return parseScript(ss.str(), path, verbs);
}

}  // namespace memcity::explore
