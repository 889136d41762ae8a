// The table of built-in classifiers (classify/classifier.h): every entry makes its classifier
// and says truly what it needs; lookups, isReferenceClassifier and the help's list come from it.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "classify/classifier.h"
#include "classify/ref_classifiers.h"
#include "cli/run_memcity.h"

namespace memcity {
namespace {

TEST(ClassifierTable, EveryEntryMakesItsClassifierAndSaysWhatItNeeds) {
    ASSERT_EQ(builtinClassifiers().size(), 19u);
    for (const ClassifierInfo& c : builtinClassifiers()) {
        const std::string spec = c.name == "{EXPR}" ? "{size > 1k}" : std::string(c.name);
        auto made = c.make(spec);
        ASSERT_TRUE(made.ok()) << spec << ": " << made.error().message;
        EXPECT_EQ((*made)->needsReferences(), c.needs == ClassifierNeeds::kReferences) << spec;
        EXPECT_EQ((*made)->shapeOnly(), c.needs == ClassifierNeeds::kShape) << spec;
        // Its spec begins with its name ("points-to(type)": the default inner chain spelled out).
        EXPECT_TRUE((*made)->spec().starts_with(spec)) << (*made)->spec();
        auto chain = parseChain(spec);
        ASSERT_TRUE(chain.ok()) << spec;
        EXPECT_EQ(chain->spec(), (*made)->spec());
    }
}

TEST(ClassifierTable, LookupsComeFromTheTable) {
    ASSERT_NE(findClassifier("site"), nullptr);
    EXPECT_EQ(findClassifier("site")->usage, "site(callers=N)");
    EXPECT_EQ(findClassifier("sitee"), nullptr);
    EXPECT_EQ(findClassifier("{EXPR}"), nullptr);  // an expression is known by its braces
    EXPECT_EQ(findClassifier(""), nullptr);
    for (const char* name : {"rooted", "roots", "structure", "dominator", "in-degree", "out-degree",
                             "points-to", "pointed-from"})
        EXPECT_TRUE(isReferenceClassifier(name)) << name;
    for (const char* name : {"type", "package", "site", "domain-site", "age", "{EXPR}", "plugin", "bogus"})
        EXPECT_FALSE(isReferenceClassifier(name)) << name;
}

TEST(ClassifierTable, ErrorsNameTheSpecAndTheTable) {
    EXPECT_EQ(
        parseChain("sitee").error().message,
        "classifier 'sitee': unknown (classifiers: type, package, site, domain-site, calls, thread, age, "
        "length, kind, size, rooted, roots, structure, dominator, in-degree, out-degree, points-to, "
        "pointed-from, {EXPR})");
    EXPECT_EQ(parseChain("site(depth=1)").error().message,
              "classifier 'site(depth=1)': unknown parameter 'depth' (parameters: callers)");
    EXPECT_EQ(parseChain("kind(big=0)").error().message, "classifier 'kind(big=0)': big must be at least 1");
    EXPECT_EQ(parseChain("roots(a=1)").error().message,
              "classifier 'roots(a=1)': unknown parameter (it takes none)");
    EXPECT_EQ(parseChain("size>3").error().message,
              "classifier 'size>3': unknown; an expression goes in braces: {size>3}");
}

// The table is built from one list of entries, one file each: no name twice, and each name finds
// its own entry.
TEST(ClassifierTable, EachEntryIsListedOnceAndFoundByItsName) {
    std::set<std::string_view> names;
    for (const ClassifierInfo& c : builtinClassifiers()) {
        EXPECT_TRUE(names.insert(c.name).second) << c.name << " is in the list twice";
        EXPECT_NE(c.make, nullptr) << c.name;
        EXPECT_FALSE(c.summary.empty()) << c.name;
        if (c.name != "{EXPR}") {
            EXPECT_EQ(findClassifier(c.name), &c) << c.name;
        }
    }
}

// Every entry's factory refuses a parameter it does not take, and the error names the spec.
TEST(ClassifierTable, EveryFactoryRefusesAnUnknownParameter) {
    for (const ClassifierInfo& c : builtinClassifiers()) {
        if (c.name == "{EXPR}") continue;
        const std::string spec = std::string(c.name) + "(bogus=1)";
        auto chain = parseChain(spec);
        ASSERT_FALSE(chain.ok()) << spec;
        EXPECT_TRUE(chain.error().message.starts_with("classifier '" + spec + "': "))
            << chain.error().message;
    }
    EXPECT_EQ(parseChain("in-degree(x=1)").error().message,
              "classifier 'in-degree(x=1)': unknown parameter (it takes none)");
    EXPECT_EQ(parseChain("out-degree(x=1)").error().message,
              "classifier 'out-degree(x=1)': unknown parameter (it takes none)");
    EXPECT_EQ(parseChain("pointed-from(type)x").error().message,
              "classifier 'pointed-from(type)x': expected ')' at the end");
}

const char* const kListing =
    "  type             the object's type\n"
    "  package(depth=N) the type's package, outermost first (default: all levels)\n"
    "  site(callers=N)  the allocating frame, then N of its callers (default 0)\n"
    "  calls            every method on the allocating stack (an object counts under each once)\n"
    "  thread           the allocating thread\n"
    "  age              GCs survived (1: born since the previous GC)\n"
    "  length(buckets=1) array length, exact or in power-of-two buckets\n"
    "  kind(big=N)      instance, small array, big array (length >= N, default 256)\n"
    "  size             object size in power-of-two buckets\n"
    "  {EXPR}           the value of an expression, e.g. {site.method} or {size > 1k}\n"
    "  plugin(path=F,...) a classifier from a shared library F (docs/plugins.md)\n"
    "These read the references, so they need a GC with a reference snapshot:\n"
    "  rooted           the GC roots referencing the object: kind, class, static field / thread, method\n"
    "  roots            the closest GC roots reaching it (\"alive, root not reported\" when none)\n"
    "  structure        the data structure holding it: java.util.HashMap (allocated in ...)\n"
    "  in-degree        references to it, in buckets; out-degree: references it holds\n"
    "  points-to(C)     the objects it references, classified by chain C (default type)\n"
    "  pointed-from(C)  the objects referencing it, classified by chain C\n";

TEST(ClassifierTable, TheListingIsTheTableAndTheReportHelpShowsIt) {
    EXPECT_EQ(classifierListing(), kListing);
    const testing::Outcome help = testing::runMemcity("report --help");
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find(std::string("describes each:\n") + kListing + "\n"), std::string::npos)
        << help.out;
}

}  // namespace
}  // namespace memcity
