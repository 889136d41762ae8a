// StackWalker: a key for the calling thread's Java stack, read straight from HotSpot's frames.
//
// JVMTI's GetStackTrace costs about 0.6 us + 0.25 us a frame (a RegisterMap, a vframe per frame
// and a jmethodID per frame). An allocation site only needs GetStackTrace the first time its
// stack is seen: the walker reads the physical frames from the thread's last Java frame, using
// the layout HotSpot exports for its Serviceability Agent (see hotspot.h), and mixes into a
// 128-bit key what fixes each frame's place in the program:
//   - a compiled frame: its return pc (through the nmethod's debug information, the chain of
//     inlined methods and their bytecode indices) and the nmethod's compile id, unique for the
//     JVM's life: once HotSpot frees an nmethod, another may take its memory and its pcs;
//   - an interpreted frame: its Method* and bytecode pointer;
//   - the end of the Java stack (an entry frame with no Java caller).
// Every physical Java frame gives at least one of GetStackTrace's frames, so a walk that took
// `depth` Java frames, or reached the stack's end, covers every frame GetStackTrace(depth)
// reports: equal keys, equal traces, as long as no method an interpreted frame names was freed
// and its memory reused (callers drop their keys when classes are unloaded: Recorder::stack_generation_).
//
// The walker never guesses: a frame it cannot place (a deoptimized frame, an unknown code blob,
// a stack pointer outside the thread's stack, a bytecode pointer outside its method) makes
// key() return false, and the caller asks GetStackTrace. It is only made where the layout it
// relies on was verified: HotSpot on x86-64, JDK 17 to 25 (create() returns nullptr otherwise).
#pragma once

#include <jni.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "stack_key_table.h"

namespace memcity::agent {

class VmStructs;

class StackWalker {
public:
    // Why key() gave up, counted for the recorder's summary and the benchmark.
    enum class Miss : uint8_t {
        kNoJavaFrame,  // the thread has no last Java frame (an attached thread before its first call)
        kUnknownCode,  // a pc in no code blob the walker can place (a stub, a blob it does not know)
        kDeoptimized,  // a return pc outside an nmethod's instructions (its deoptimization handler)
        kBadFrame,     // a stack or bytecode pointer out of range, or a frame of size 0
        kTooDeep,      // more physical frames than the walker follows without finding `depth`
        kCount,
    };

    // The walker for the running JVM; nullptr where it cannot be made (not HotSpot, not x86-64,
    // a version not verified, a field it needs not exported), with the reason in *why.
    // `jni` and `thread` are the calling thread's: they find where HotSpot keeps JNIEnv in its
    // JavaThread.
    static std::unique_ptr<StackWalker> create(const VmStructs& vm, JNIEnv* jni, jobject thread,
                                               std::string* why);

    // What the walker learnt of the code blobs its thread's return pcs lie in, direct-mapped by
    // pc: one thread's (no locks). Entries hold for one generation of the caller's (see
    // Recorder::stack_generation_, moved when classes may have been unloaded); an nmethod's
    // entry also holds only while its header is still there (code is freed without a word).
    class BlobCache;

    // The key of the calling thread's innermost `depth` Java frames. False (and *miss set) when
    // the stack cannot be keyed: the caller then reads it with GetStackTrace. `cache` (the
    // thread's own, or nullptr) spares the code cache's segment map for pcs met in `generation`.
    // Safe only on the thread `jni` belongs to, while it is in a JVMTI callback.
    bool key(JNIEnv* jni, uint32_t depth, BlobCache* cache, uint32_t generation, StackKey* out,
             Miss* miss) const;

    // JVM major version the walker was made for.
    int jdk() const { return jdk_; }

    struct Blob {
        enum class Kind : uint8_t { kNmethod, kStub, kOther } kind = Kind::kOther;
        int32_t frame_words = 0;
        int32_t size = 0, compile_id = 0;          // the blob's bytes; an nmethod's compile id
        uintptr_t start = 0;                       // the blob's address
        uintptr_t code_begin = 0, stub_begin = 0;  // an nmethod's instructions: [code_begin, stub_begin)
    };

private:
    StackWalker() = default;
    bool findBlob(uintptr_t pc, Blob* out) const;
    bool blobAt(uintptr_t pc, BlobCache* cache, uint32_t generation, Blob* out) const;
    // Whether the nmethod a cache slot remembers is still at its address.
    bool stillThere(const Blob& blob) const;

    int jdk_ = 0;
    intptr_t env_offset_ = 0;  // JNIEnv* minus JavaThread*
    // JavaThread
    int64_t anchor_ = -1, stack_base_ = -1, stack_size_ = -1;
    // JavaFrameAnchor (also inside JavaCallWrapper)
    int64_t last_sp_ = -1, last_pc_ = -1, last_fp_ = -1, wrapper_anchor_ = -1;
    // Method, ConstMethod
    int64_t const_method_ = -1, code_size_ = -1, const_method_size_ = 0;
    // The interpreter's code, and the return address of calls into Java from the VM.
    uintptr_t interpreter_begin_ = 0, interpreter_end_ = 0, call_stub_return_ = 0;
    // The code cache: its heaps, each a range with a segment map.
    const void* heaps_ = nullptr;  // GrowableArray<CodeHeap*>**
    int64_t array_len_ = -1, array_data_ = -1;
    int64_t heap_memory_ = -1, heap_segmap_ = -1, heap_log2_segment_ = -1, space_low_ = -1, space_high_ = -1;
    int64_t block_used_ = -1, block_size_ = 0;
    // CodeBlob and nmethod
    int64_t blob_size_ = -1, blob_frame_size_ = -1, blob_name_ = -1, blob_kind_ = -1;
    int64_t blob_code_begin_ = -1;   // JDK 17: an address
    int64_t blob_code_offset_ = -1;  // JDK 21 and later: an offset from the blob
    int64_t nmethod_stub_offset_ = -1, nmethod_compile_id_ = -1;
    int kind_nmethod_ = -1, kind_runtime_stub_ = -1;
};

class StackWalker::BlobCache {
    friend class StackWalker;
    struct Slot {
        uintptr_t pc = 0;
        uint32_t generation = 0;  // 0: empty
        Blob blob;
    };
    // 56 bytes a slot, 28 KiB: room for the few hundred return pcs of a program's hot stacks.
    static constexpr size_t kSlots = 512;
    std::array<Slot, kSlots> slots_{};
};

}  // namespace memcity::agent
