#include "stack_walker.h"

#include <cstring>

#include "hotspot.h"

namespace memcity::agent {
namespace {

template <class T>
T load(uintptr_t address) {
    T value;
    std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof value);
    return value;
}

// x86-64 interpreter frame slots, in words from its frame pointer (frame_x86.hpp, the same from
// JDK 17 to 25; HotSpot exports only some of them as constants).
constexpr intptr_t kReturnPc = 1, kLink = 0, kSenderSp = -1, kMethod = -3, kBcp = -8;
constexpr intptr_t kWord = sizeof(intptr_t);

// What each frame adds to the key; the markers keep a frame's kind apart from an address.
constexpr uint64_t kCompiledMark = 0x1b873593u, kInterpretedMark = 0xcc9e2d51u, kEndMark = 0xe6546b64u;

struct Mixer {
    uint64_t lo = 0x9e3779b97f4a7c15ull, hi = 0xc2b2ae3d27d4eb4full;
    void add(uint64_t w) {
        lo = (lo ^ w) * 0xff51afd7ed558ccdull;
        lo = lo << 31 | lo >> 33;
        hi = (hi + w) * 0xc4ceb9fe1a85ec53ull;
        hi ^= hi >> 29;
    }
    StackKey done() const {
        uint64_t a = lo ^ (hi >> 32), b = hi ^ (lo << 7);
        a = (a ^ (a >> 33)) * 0xff51afd7ed558ccdull;
        b = (b ^ (b >> 31)) * 0x94d049bb133111ebull;
        return {a ^ (a >> 33), b ^ (b >> 29)};
    }
};

}  // namespace

std::unique_ptr<StackWalker> StackWalker::create(const VmStructs& vm, JNIEnv* jni, jobject thread,
                                                 std::string* why) {
#if !defined(__x86_64__)
    (void)vm, (void)jni, (void)thread;
    *why = "the frame layout it reads is x86-64's";
    return nullptr;
#else
    auto w = std::unique_ptr<StackWalker>(new StackWalker());
    const void* major = vm.address("Abstract_VM_Version", "_vm_major_version");
    w->jdk_ = major ? load<int>(reinterpret_cast<uintptr_t>(major)) : 0;
    if (w->jdk_ < 17 || w->jdk_ > 25) {
        *why = "JDK " + std::to_string(w->jdk_) + " is not one it was verified on (17 to 25)";
        return nullptr;
    }
    w->anchor_ = vm.offset("JavaThread", "_anchor");
    w->stack_base_ = vm.offset("JavaThread", "_stack_base");
    w->stack_size_ = vm.offset("JavaThread", "_stack_size");
    w->last_sp_ = vm.offset("JavaFrameAnchor", "_last_Java_sp");
    w->last_pc_ = vm.offset("JavaFrameAnchor", "_last_Java_pc");
    w->last_fp_ = vm.offset("JavaFrameAnchor", "_last_Java_fp");
    w->wrapper_anchor_ = vm.offset("JavaCallWrapper", "_anchor");
    w->const_method_ = vm.offset("Method", "_constMethod");
    w->code_size_ = vm.offset("ConstMethod", "_code_size");
    w->const_method_size_ = static_cast<int64_t>(vm.size("ConstMethod"));
    w->array_len_ = vm.offset("GrowableArrayBase", "_len");
    w->array_data_ = vm.offset("GrowableArray<int>", "_data");
    w->heap_memory_ = vm.offset("CodeHeap", "_memory");
    w->heap_segmap_ = vm.offset("CodeHeap", "_segmap");
    w->heap_log2_segment_ = vm.offset("CodeHeap", "_log2_segment_size");
    w->space_low_ = vm.offset("VirtualSpace", "_low");
    w->space_high_ = vm.offset("VirtualSpace", "_high");
    w->block_used_ = vm.offset("HeapBlock::Header", "_used");
    w->block_size_ = static_cast<int64_t>(vm.size("HeapBlock"));
    w->blob_size_ = vm.offset("CodeBlob", "_size");
    w->blob_frame_size_ = vm.offset("CodeBlob", "_frame_size");
    w->blob_name_ = vm.offset("CodeBlob", "_name");
    w->blob_kind_ = vm.offset("CodeBlob", "_kind");
    w->blob_code_begin_ = vm.offset("CodeBlob", "_code_begin");
    w->blob_code_offset_ = vm.offset("CodeBlob", "_code_offset");
    w->nmethod_stub_offset_ = vm.offset("nmethod", "_stub_offset");
    w->nmethod_compile_id_ = vm.offset("nmethod", "_compile_id");
    w->kind_nmethod_ = vm.constant("CodeBlobKind::Nmethod", -1);
    w->kind_runtime_stub_ = vm.constant("CodeBlobKind::RuntimeStub", -1);
    w->heaps_ = vm.address("CodeCache", "_heaps");
    const void* interpreter = vm.address("AbstractInterpreter", "_code");
    const void* call_stub = vm.address("StubRoutines", "_call_stub_return_address");
    const int64_t buffer = vm.offset("StubQueue", "_stub_buffer"),
                  limit = vm.offset("StubQueue", "_buffer_limit");
    const bool kinds =
        w->blob_kind_ >= 0 ? w->kind_nmethod_ >= 0 && w->kind_runtime_stub_ >= 0 : w->blob_name_ >= 0;
    if (w->anchor_ < 0 || w->stack_base_ < 0 || w->stack_size_ < 0 || w->last_sp_ < 0 || w->last_pc_ < 0 ||
        w->last_fp_ < 0 || w->wrapper_anchor_ < 0 || w->const_method_ < 0 || w->code_size_ < 0 ||
        w->const_method_size_ <= 0 || w->array_len_ < 0 || w->array_data_ < 0 || w->heap_memory_ < 0 ||
        w->heap_segmap_ < 0 || w->heap_log2_segment_ < 0 || w->space_low_ < 0 || w->space_high_ < 0 ||
        w->block_used_ < 0 || w->block_size_ <= 0 || w->blob_size_ < 0 || w->blob_frame_size_ < 0 ||
        (w->blob_code_begin_ < 0 && w->blob_code_offset_ < 0) || w->nmethod_stub_offset_ < 0 ||
        w->nmethod_compile_id_ < 0 || !kinds || !w->heaps_ || !interpreter || !call_stub || buffer < 0 ||
        limit < 0) {
        *why = "the JVM does not export a field of its frames or code cache that it reads";
        return nullptr;
    }
    const uintptr_t queue = load<uintptr_t>(reinterpret_cast<uintptr_t>(interpreter));
    if (!queue) {
        *why = "the JVM has no template interpreter";
        return nullptr;
    }
    w->interpreter_begin_ = load<uintptr_t>(queue + static_cast<uintptr_t>(buffer));
    w->interpreter_end_ =
        w->interpreter_begin_ + static_cast<uintptr_t>(load<int>(queue + static_cast<uintptr_t>(limit)));
    w->call_stub_return_ = load<uintptr_t>(reinterpret_cast<uintptr_t>(call_stub));
    // JNIEnv is a field of HotSpot's JavaThread: the thread is at a fixed distance before it.
    // java.lang.Thread.eetop holds the JavaThread of a running thread.
    jclass thread_class = jni->FindClass("java/lang/Thread");
    jfieldID eetop = thread_class ? jni->GetFieldID(thread_class, "eetop", "J") : nullptr;
    if (jni->ExceptionCheck()) jni->ExceptionClear();
    const jlong java_thread = eetop ? jni->GetLongField(thread, eetop) : 0;
    if (thread_class) jni->DeleteLocalRef(thread_class);
    w->env_offset_ = reinterpret_cast<intptr_t>(jni) - static_cast<intptr_t>(java_thread);
    const uint64_t thread_size = vm.size("JavaThread");
    if (!java_thread || w->env_offset_ <= 0 || static_cast<uint64_t>(w->env_offset_) >= thread_size) {
        *why = "it cannot find the JavaThread of a JNIEnv";
        return nullptr;
    }
    return w;
#endif
}

bool StackWalker::findBlob(uintptr_t pc, Blob* out) const {
    const uintptr_t heaps = load<uintptr_t>(reinterpret_cast<uintptr_t>(heaps_));
    if (!heaps) return false;
    const int count = load<int>(heaps + static_cast<uintptr_t>(array_len_));
    const uintptr_t data = load<uintptr_t>(heaps + static_cast<uintptr_t>(array_data_));
    for (int i = 0; i < count; ++i) {
        const uintptr_t heap = load<uintptr_t>(data + static_cast<uintptr_t>(i) * sizeof(uintptr_t));
        const uintptr_t memory = heap + static_cast<uintptr_t>(heap_memory_);
        const uintptr_t low = load<uintptr_t>(memory + static_cast<uintptr_t>(space_low_));
        const uintptr_t high = load<uintptr_t>(memory + static_cast<uintptr_t>(space_high_));
        if (pc < low || pc >= high) continue;
        // The segment map: a block's first segment holds 0, a later one how many segments to go
        // back (in hops), an unused one 0xff (CodeHeap::find_start).
        const int log2 = load<int>(heap + static_cast<uintptr_t>(heap_log2_segment_));
        const auto* map = reinterpret_cast<const uint8_t*>(load<uintptr_t>(
            heap + static_cast<uintptr_t>(heap_segmap_) + static_cast<uintptr_t>(space_low_)));
        size_t segment = (pc - low) >> log2;
        if (map[segment] == 0xff) return false;
        while (map[segment] > 0)
            segment -= map[segment];
        const uintptr_t block = low + (segment << log2);
        if (!load<bool>(block + static_cast<uintptr_t>(block_used_))) return false;
        const uintptr_t blob = block + static_cast<uintptr_t>(block_size_);
        const int size = load<int>(blob + static_cast<uintptr_t>(blob_size_));
        if (size <= 0 || pc >= blob + static_cast<uintptr_t>(size)) return false;
        out->frame_words = load<int>(blob + static_cast<uintptr_t>(blob_frame_size_));
        bool nmethod = false, stub = false;
        if (blob_kind_ >= 0) {
            const int kind = load<uint8_t>(blob + static_cast<uintptr_t>(blob_kind_));
            nmethod = kind == kind_nmethod_;
            stub = kind == kind_runtime_stub_;
        } else {
            // JDK 17 tells its blobs apart by class only; nmethods are named so.
            const char* name = load<const char*>(blob + static_cast<uintptr_t>(blob_name_));
            nmethod = name && (std::strcmp(name, "nmethod") == 0 || std::strcmp(name, "native nmethod") == 0);
            // The special blobs (deoptimization, uncommon trap, safepoint, exception) end in "Blob";
            // the interpreter, adapters and buffers are no frame a JVMTI callback starts from.
            const size_t n = name ? std::strlen(name) : 0;
            stub = !nmethod && n > 0 && !(n >= 4 && std::strcmp(name + n - 4, "Blob") == 0) &&
                   std::strcmp(name, "Interpreter") != 0 && std::strstr(name, "dapter") == nullptr;
        }
        out->kind = nmethod ? Blob::Kind::kNmethod : stub ? Blob::Kind::kStub : Blob::Kind::kOther;
        out->start = blob;
        out->size = size;
        if (nmethod) {
            out->compile_id = load<int>(blob + static_cast<uintptr_t>(nmethod_compile_id_));
            out->code_begin = blob_code_begin_ >= 0
                                  ? load<uintptr_t>(blob + static_cast<uintptr_t>(blob_code_begin_))
                                  : blob + static_cast<uintptr_t>(
                                               load<int>(blob + static_cast<uintptr_t>(blob_code_offset_)));
            out->stub_begin =
                blob + static_cast<uintptr_t>(load<int>(blob + static_cast<uintptr_t>(nmethod_stub_offset_)));
            if (out->code_begin < blob || out->stub_begin <= out->code_begin ||
                out->stub_begin > blob + static_cast<uintptr_t>(size))
                out->kind = Blob::Kind::kOther;
        }
        return true;
    }
    return false;
}

bool StackWalker::stillThere(const Blob& blob) const {
    return load<int>(blob.start + static_cast<uintptr_t>(nmethod_compile_id_)) == blob.compile_id &&
           load<int>(blob.start + static_cast<uintptr_t>(blob_size_)) == blob.size;
}

bool StackWalker::blobAt(uintptr_t pc, BlobCache* cache, uint32_t generation, Blob* out) const {
    if (!cache) return findBlob(pc, out);
    BlobCache::Slot& slot = cache->slots_[(pc ^ (pc >> 9)) % BlobCache::kSlots];
    // An nmethod may have been freed since, and its memory be another's: the one met before is
    // still there if its header still says so (its compile id is its own for the JVM's life).
    if (slot.pc == pc && slot.generation == generation &&
        (slot.blob.kind != Blob::Kind::kNmethod || stillThere(slot.blob))) {
        *out = slot.blob;
        return true;
    }
    if (!findBlob(pc, out)) return false;
    slot = {pc, generation, *out};
    return true;
}

bool StackWalker::key(JNIEnv* jni, uint32_t depth, BlobCache* cache, uint32_t generation, StackKey* out,
                      Miss* miss) const {
    const uintptr_t thread = reinterpret_cast<uintptr_t>(jni) - static_cast<uintptr_t>(env_offset_);
    const uintptr_t stack_top = load<uintptr_t>(thread + static_cast<uintptr_t>(stack_base_));
    const uintptr_t stack_bottom = stack_top - load<size_t>(thread + static_cast<uintptr_t>(stack_size_));
    // A frame's words from fp - 8 to fp + 1 (an interpreter frame), or sp - 2 (a compiled one's
    // return pc and link) must lie in the thread's stack.
    auto on_stack = [&](uintptr_t lo, uintptr_t hi) {
        return lo >= stack_bottom && lo < hi && hi <= stack_top;
    };
    auto slot = [](uintptr_t fp, intptr_t index) {
        return load<uintptr_t>(fp + static_cast<uintptr_t>(index * kWord));
    };

    uintptr_t anchor = thread + static_cast<uintptr_t>(anchor_);
    uintptr_t sp = load<uintptr_t>(anchor + static_cast<uintptr_t>(last_sp_));
    if (!sp) return *miss = Miss::kNoJavaFrame, false;
    uintptr_t fp = load<uintptr_t>(anchor + static_cast<uintptr_t>(last_fp_));
    uintptr_t pc = load<uintptr_t>(anchor + static_cast<uintptr_t>(last_pc_));
    if (!on_stack(sp - 2 * kWord, sp)) return *miss = Miss::kBadFrame, false;
    if (!pc) pc = load<uintptr_t>(sp - kWord);

    Mixer mix;
    uint32_t java = 0;
    const uint32_t max_frames = 2 * depth + 32;
    for (uint32_t frames = 0; java < depth; ++frames) {
        if (frames == max_frames) return *miss = Miss::kTooDeep, false;
        if (pc >= interpreter_begin_ && pc < interpreter_end_) {
            if (!on_stack(fp + static_cast<uintptr_t>(kBcp * kWord), fp + 2 * kWord))
                return *miss = Miss::kBadFrame, false;
            const uintptr_t method = slot(fp, kMethod), bcp = slot(fp, kBcp);
            if (!method) return *miss = Miss::kBadFrame, false;
            // The bytecode pointer lies in the method's code (0 in a native method's frame).
            const uintptr_t code = load<uintptr_t>(method + static_cast<uintptr_t>(const_method_)) +
                                   static_cast<uintptr_t>(const_method_size_);
            const uintptr_t code_size = load<uint16_t>(code - static_cast<uintptr_t>(const_method_size_) +
                                                       static_cast<uintptr_t>(code_size_));
            if (bcp != 0 && (bcp < code || bcp >= code + code_size)) return *miss = Miss::kBadFrame, false;
            mix.add(kInterpretedMark);
            mix.add(method);
            mix.add(bcp);
            ++java;
            sp = slot(fp, kSenderSp);  // the caller's sp before it was extended for the call
            pc = slot(fp, kReturnPc);
            fp = slot(fp, kLink);
        } else if (pc == call_stub_return_) {
            // An entry frame: Java called from the VM. The Java frames before that call, if any,
            // are where the call's wrapper saved the thread's anchor.
            if (!on_stack(fp - 6 * kWord, fp)) return *miss = Miss::kBadFrame, false;
            const uintptr_t wrapper = slot(fp, -6);
            if (!on_stack(wrapper, wrapper + kWord)) return *miss = Miss::kBadFrame, false;
            anchor = wrapper + static_cast<uintptr_t>(wrapper_anchor_);
            sp = load<uintptr_t>(anchor + static_cast<uintptr_t>(last_sp_));
            if (!sp) {
                mix.add(kEndMark);
                break;
            }
            fp = load<uintptr_t>(anchor + static_cast<uintptr_t>(last_fp_));
            pc = load<uintptr_t>(anchor + static_cast<uintptr_t>(last_pc_));
            if (!on_stack(sp - 2 * kWord, sp)) return *miss = Miss::kBadFrame, false;
            if (!pc) pc = load<uintptr_t>(sp - kWord);
            continue;
        } else {
            Blob blob;
            if (!blobAt(pc, cache, generation, &blob)) return *miss = Miss::kUnknownCode, false;
            if (blob.kind == Blob::Kind::kNmethod) {
                // A return pc inside the instructions names one call site; past them it is the
                // deoptimization handler, which every call site of a deoptimized frame shares.
                if (pc < blob.code_begin || pc >= blob.stub_begin) return *miss = Miss::kDeoptimized, false;
                mix.add(kCompiledMark);
                mix.add(pc);
                mix.add(static_cast<uint32_t>(blob.compile_id));
                ++java;
            } else if (blob.kind != Blob::Kind::kStub || frames != 0) {
                return *miss = Miss::kUnknownCode, false;
            }
            if (blob.frame_words <= 0) return *miss = Miss::kBadFrame, false;
            const uintptr_t sender_sp = sp + static_cast<uintptr_t>(blob.frame_words) * kWord;
            if (!on_stack(sender_sp - 2 * kWord, sender_sp)) return *miss = Miss::kBadFrame, false;
            pc = load<uintptr_t>(sender_sp - kWord);
            fp = load<uintptr_t>(sender_sp - 2 * kWord);
            sp = sender_sp;
        }
        if (!on_stack(sp - 2 * kWord, sp + kWord)) {
            // The sender's sp is the caller's; past the thread's stack there is no caller.
            return *miss = Miss::kBadFrame, false;
        }
    }
    mix.add(java);
    *out = mix.done();
    return true;
}

}  // namespace memcity::agent
