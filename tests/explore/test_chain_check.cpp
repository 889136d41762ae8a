// The chain editor's check (checkChain), run every frame while an entry is typed: a plugin entry
// is checked, never loaded, and the editor takes absolute plugin paths only.
#include <gtest/gtest.h>
#include <unistd.h>

#include "classify/plugin_classifier.h"
#include "explore/chain_config.h"

namespace memcity::explore {
namespace {

TEST(ChainCheck, APluginIsNotLoadedWhileItsPathIsTyped) {
    // A library that exists but is no plugin: loading it would fail ("no symbol ...").
    const std::string library = "/lib/x86_64-linux-gnu/libm.so.6";
    if (::access(library.c_str(), R_OK) != 0) GTEST_SKIP() << library << " is not here";
    ChainConfig config;
    config.classifiers = {"plugin(path=" + library + ")"};
    const size_t before = pluginLibraryLoads();
    for (int frame = 0; frame < 10; ++frame) {
        const ChainCheck check = checkChain(config, {}, true);
        ASSERT_EQ(check.classifier_errors.size(), 1u);
        EXPECT_EQ(check.classifier_errors[0], "");
    }
    EXPECT_EQ(pluginLibraryLoads(), before);
    // Applied, it loads (and says what is wrong with it).
    auto chain = buildChain(config);
    ASSERT_FALSE(chain);
    EXPECT_NE(chain.error().message.find("no symbol"), std::string::npos) << chain.error().message;
    EXPECT_EQ(pluginLibraryLoads(), before + 1);
}

TEST(ChainCheck, TheEditorRefusesARelativePluginPath) {
    ChainConfig config;
    config.classifiers = {"plugin(path=./x.so)", "type"};
    const ChainCheck editor = checkChain(config, {}, true);
    ASSERT_EQ(editor.classifier_errors.size(), 2u);
    EXPECT_EQ(editor.classifier_errors[0],
              "classifier 'plugin(path=./x.so)': ./x.so: a relative path; give the plugin's absolute path "
              "(/.../x.so)");
    EXPECT_FALSE(editor.ok());
    // The command line's chains take it from the current directory (checked when loaded).
    EXPECT_EQ(checkChain(config).classifier_errors[0], "");
}

}  // namespace
}  // namespace memcity::explore
