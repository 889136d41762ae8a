// Under LeakSanitizer: the Vulkan loader unloads the driver (lavapipe) and the validation layer
// when the instance is destroyed, so leaks inside them are reported at exit with stacks in
// unmapped memory that no suppression can name. Keeping them mapped (RTLD_NODELETE) lets
// tests/render/lsan.supp suppress them by library. Harmless elsewhere: a library that is not
// installed is simply not pinned.
#include <dlfcn.h>

#include <initializer_list>

namespace {

bool pinDriverLibraries() {
    for (const char* name : {"libvulkan_lvp.so", "libVkLayer_khronos_validation.so"}) {
        if (void* handle = dlopen(name, RTLD_NOW | RTLD_NODELETE)) dlclose(handle);
    }
    return true;
}

[[maybe_unused]] const bool kPinned = pinDriverLibraries();

}  // namespace
