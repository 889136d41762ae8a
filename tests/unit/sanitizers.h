// Whether this build runs under a sanitizer: tests that set an address-space limit skip the
// limit there (a sanitizer's shadow memory alone is larger), and tests that expect a signal
// accept the sanitizer's report and exit instead.
#pragma once

namespace memcity::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kOtherSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kOtherSanitizer = true;
#else
inline constexpr bool kOtherSanitizer = false;
#endif
#else
inline constexpr bool kOtherSanitizer = false;
#endif

// Under any sanitizer whose shadow memory does not fit an address-space limit.
inline constexpr bool kUnderSanitizer = kAddressSanitizer || kOtherSanitizer;

}  // namespace memcity::testing
