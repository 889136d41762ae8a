// The commands' help, made from their entries in the list (commands.cpp).
#include <algorithm>
#include <iostream>
#include <ostream>
#include <string>
#include <utility>

#include "cli/commands.h"

namespace memcity::cli {

namespace {

// "  -o, --output FILE", or "  --from A, --to B" for an option shown with the next.
std::string optionText(const std::vector<OptionSpec>& options, size_t i) {
    const OptionSpec& o = options[i];
    std::string text = o.short_name.empty() ? "" : std::string(o.short_name) + ", ";
    text += std::string(o.name) + (o.value.empty() ? "" : " " + std::string(o.value));
    if (o.help.empty() && i + 1 < options.size()) text += ", " + optionText(options, i + 1);
    return text;
}

}  // namespace

int printHelp(std::string_view name) {
    return printHelp(name, std::cout);
}

std::string usageOf(const Command& command) {
    std::string usage(command.usage);
    if (command.usage_end) usage += command.usage_end();
    return usage;
}

int printHelp(std::string_view name, std::ostream& out) {
    const Command* c = findCommand(name);
    if (!c) return 0;
    out << usageOf(*c) << "options:\n";
    // The options' texts, and the help of each in one column after the longest.
    std::vector<std::pair<std::string, std::string_view>> rows;
    for (size_t i = 0; i < c->options.size(); ++i) {
        const std::string text = optionText(c->options, i);
        if (c->options[i].help.empty() && i + 1 < c->options.size()) {
            rows.emplace_back(text, c->options[i + 1].help);
            ++i;
        } else {
            rows.emplace_back(text, c->options[i].help);
        }
    }
    rows.emplace_back("-h, --help", "this help");
    size_t width = 0;
    for (const auto& [text, help] : rows)
        width = std::max(width, text.size());
    const std::string indent(2 + width + 3, ' ');
    for (const auto& [text, help] : rows) {
        out << "  " << text << std::string(width + 3 - text.size(), ' ');
        for (size_t start = 0;;) {
            const size_t end = help.find('\n', start);
            out << help.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)
                << "\n";
            if (end == std::string_view::npos) break;
            out << indent;
            start = end + 1;
        }
    }
    return 0;
}

int runHelp(const Words& topic, std::string_view version, std::ostream& out, std::ostream& err) {
    if (!topic.empty()) {
        if (!findCommand(topic[0])) {
            err << "memcity: unknown command '" << topic[0] << "' (see 'memcity --help')\n";
            return 1;
        }
        return printHelp(topic[0], out);
    }
    out << "memcity " << version
        << " - explore how a garbage-collected heap evolves\n\n"
           "usage: memcity [FILE]                 explore a trace in a window (the bundled demo without "
           "FILE;\n"
           "                                      the terminal overview without a display or with --text)\n"
           "       memcity COMMAND [ARGS...]\n\ncommands:\n";
    for (const Command& c : commands())
        out << "  " << c.name << std::string(8 - std::min<size_t>(7, c.name.size()), ' ') << c.summary
            << "\n";
    out << "\n'memcity COMMAND --help' describes a command. Traces: docs/trace-format.md.\n";
    return 0;
}

}  // namespace memcity::cli
