#include "class_registry.h"

#include <algorithm>
#include <set>

#include "jvmti_util.h"
#include "trace/trace_writer.h"

namespace memcity::agent {

uint32_t ClassRegistry::add(std::unique_ptr<ClassEntry> entry) {
    const size_t n = count_.load(std::memory_order_relaxed);
    if ((n >> kBlockShift) >= kMaxBlocks) return kNoClass;
    auto& block = entries_[n >> kBlockShift];
    if (!block) block.reset(new std::unique_ptr<ClassEntry>[size_t{1} << kBlockShift]);
    block[n & kBlockMask] = std::move(entry);
    count_.store(n + 1, std::memory_order_release);
    return static_cast<uint32_t>(n);
}

bool ClassRegistry::isFiller(const std::string& name) const {
    if (filler_mode_.load(std::memory_order_acquire) == 2)
        return name == "int[]" || name == "java.lang.Object";
    return name == "jdk.internal.vm.FillerObject" || name == "jdk.internal.vm.FillerElement[]";
}

void ClassRegistry::markFillers() {
    std::lock_guard lock(prepare_mutex_);
    bool dedicated = false;
    for (size_t i = 0; i < size(); ++i)
        dedicated |= (*this)[static_cast<uint32_t>(i)].name == "jdk.internal.vm.FillerObject";
    filler_mode_.store(dedicated ? 1 : 2, std::memory_order_release);
    for (size_t i = 0; i < size(); ++i) {
        ClassEntry& e = (*this)[static_cast<uint32_t>(i)];
        e.filler = isFiller(e.name);
    }
}

uint32_t ClassRegistry::indexOf(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass) {
    jlong tag = 0;
    if (jvmti->GetTag(klass, &tag) == JVMTI_ERROR_NONE) {
        uint32_t index = indexFromTag(tag);
        if (index != kNoClass) return index;
    }
    std::lock_guard lock(prepare_mutex_);
    return registerLocked(jvmti, jni, klass, false);
}

uint32_t ClassRegistry::prepared(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass) {
    jlong tag = 0;
    if (jvmti->GetTag(klass, &tag) == JVMTI_ERROR_NONE) {
        uint32_t index = indexFromTag(tag);
        if (index != kNoClass && !(*this)[index].provisional) return index;
    }
    std::lock_guard lock(prepare_mutex_);
    return registerLocked(jvmti, jni, klass, true);
}

uint32_t ClassRegistry::registerLocked(jvmtiEnv* jvmti, JNIEnv* jni, jclass klass, bool complete) {
    // Another thread may have registered the class while this one waited for the lock.
    jlong previous_tag = 0;
    if (jvmti->GetTag(klass, &previous_tag) != JVMTI_ERROR_NONE) previous_tag = 0;
    uint64_t known_mirror = kNoObject;
    uint32_t replaces = kNoClass;
    if (uint32_t index = indexFromTag(previous_tag); index != kNoClass) {
        const ClassEntry& old = (*this)[index];
        if (!complete || !old.provisional) return index;
        known_mirror = old.mirror_id.load(std::memory_order_acquire);
        replaces = index;
    } else if (previous_tag > 0 && !(previous_tag & kClassTagBit)) {
        known_mirror = objectIdOfTag(previous_tag);  // a heap walk met the mirror first
    }

    auto e = std::make_unique<ClassEntry>();
    {
        JvmtiPtr<char> sig(jvmti);
        if (jvmti->GetClassSignature(klass, sig.out(), nullptr) != JVMTI_ERROR_NONE || !sig.get())
            return kNoClass;
        e->signature = sig.get();
    }
    e->name = javaName(e->signature);
    e->filler = isFiller(e->name);
    e->replaces = replaces;
    auto registered = [&](std::unique_ptr<ClassEntry> entry) {
        uint32_t index = add(std::move(entry));
        if (index == kNoClass) return kNoClass;
        if (replaces != kNoClass) (*this)[replaces].replaced_by.store(index, std::memory_order_release);
        jvmti->SetTag(klass, kClassTagBit | index);
        if (on_added_) on_added_(index, klass, known_mirror);
        return index;
    };

    if (e->signature[0] == '[') {
        const char c = e->signature.size() > 1 ? e->signature[1] : 'L';
        e->kind =
            c == 'L' || c == '[' ? format::TypeKind::kReferenceArray : format::TypeKind::kPrimitiveArray;
        e->element_bytes = elementBytes(e->signature, reference_bytes_);
        return registered(std::move(e));
    }
    e->variable_size = e->name == "java.lang.Class";

    // A class loaded but not yet prepared has no fields to read: a provisional entry until it is
    // (its instances are the VM's own, such as CDS-archived objects and fillers).
    jint status = 0;
    jvmti->GetClassStatus(klass, &status);
    if (!(status & JVMTI_CLASS_STATUS_PREPARED)) {
        e->provisional = true;
        return registered(std::move(e));
    }

    jboolean is_interface = JNI_FALSE;
    jvmti->IsInterface(klass, &is_interface);
    e->is_interface = is_interface == JNI_TRUE;

    // The superclass first: classes are prepared after their superclasses.
    if (jclass super = jni->GetSuperclass(klass)) {
        e->super = registerLocked(jvmti, jni, super, true);
        jni->DeleteLocalRef(super);
    }

    // Fields and interfaces name the edges of reference snapshots, and tell a weak reference's
    // referent: read for every class, since any recording may be asked for a snapshot.
    {
        jint n = 0;
        JvmtiPtr<jfieldID> fields(jvmti);
        if (jvmti->GetClassFields(klass, &n, fields.out()) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < n; ++i) {
                FieldEntry f;
                JvmtiPtr<char> name(jvmti), sig(jvmti);
                jint modifiers = 0;
                if (jvmti->GetFieldName(klass, fields[static_cast<size_t>(i)], name.out(), sig.out(),
                                        nullptr) != JVMTI_ERROR_NONE)
                    continue;
                jvmti->GetFieldModifiers(klass, fields[static_cast<size_t>(i)], &modifiers);
                f.name = name.get() ? name.get() : "?";
                std::string s = sig.get() ? sig.get() : "";
                f.type_name = javaName(s);
                f.is_static = (modifiers & 0x0008) != 0;
                f.is_reference = !s.empty() && (s[0] == 'L' || s[0] == '[');
                e->fields.push_back(std::move(f));
            }
        }
    }

    // Every interface implemented, transitively: the JVMTI field indices start after their fields.
    std::set<uint32_t> interfaces;
    if (e->super != kNoClass) {
        const ClassEntry& s = (*this)[e->super];
        interfaces.insert(s.interfaces.begin(), s.interfaces.end());
    }
    {
        jint n = 0;
        JvmtiPtr<jclass> direct(jvmti);
        if (jvmti->GetImplementedInterfaces(klass, &n, direct.out()) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < n; ++i) {
                jclass iface = direct[static_cast<size_t>(i)];
                uint32_t idx = registerLocked(jvmti, jni, iface, true);
                if (idx != kNoClass) {
                    interfaces.insert(idx);
                    const ClassEntry& ie = (*this)[idx];
                    interfaces.insert(ie.interfaces.begin(), ie.interfaces.end());
                }
                jni->DeleteLocalRef(iface);
            }
        }
    }
    e->interfaces.assign(interfaces.begin(), interfaces.end());
    for (uint32_t idx : e->interfaces)
        e->index_base += static_cast<uint32_t>((*this)[idx].fields.size());

    if (!e->is_interface && e->super != kNoClass) e->flat = (*this)[e->super].flat;

    // java.lang.ref.Reference subclasses hold their referent weakly (or softly...).
    const std::string& n = e->name;
    if (n == "java.lang.ref.WeakReference")
        e->ref_kind = RefKind::kWeak;
    else if (n == "java.lang.ref.SoftReference")
        e->ref_kind = RefKind::kSoft;
    else if (n == "java.lang.ref.PhantomReference")
        e->ref_kind = RefKind::kPhantom;
    else if (n == "java.lang.ref.FinalReference")
        e->ref_kind = RefKind::kFinal;
    else if (e->super != kNoClass)
        e->ref_kind = (*this)[e->super].ref_kind;
    e->thread = n == "java.lang.Thread" || (e->super != kNoClass && (*this)[e->super].thread);

    const size_t own = e->fields.size();
    ClassEntry* raw = e.get();
    // The flat field list names the entry's own index: fill it in before the class is tagged.
    const uint32_t index = static_cast<uint32_t>(size());
    for (size_t i = 0; i < own; ++i)
        raw->flat.emplace_back(index, static_cast<uint32_t>(i));
    // Where java.lang.ref.Reference.referent sits, so heap walks spot weak edges with one compare.
    for (size_t k = 0; k < raw->flat.size(); ++k) {
        auto [cls, f] = raw->flat[k];
        const ClassEntry& owner = cls == index ? *raw : (*this)[cls];
        if (owner.name == "java.lang.ref.Reference" && owner.fields[f].name == "referent") {
            raw->referent_index = static_cast<int32_t>(raw->index_base + k);
            break;
        }
    }
    return registered(std::move(e));
}

uint32_t ClassRegistry::defineLocked(uint32_t index, uint64_t instance_size, TraceWriter& w) {
    ClassEntry& e = (*this)[index];
    if (uint32_t id = e.type_id.load(std::memory_order_acquire)) return id;
    // A provisional entry replaced since: its objects are of the class's one type.
    if (uint32_t by = e.replaced_by.load(std::memory_order_acquire); by != kNoClass) {
        const uint32_t id = defineLocked(by, instance_size, w);
        e.type_id.store(id, std::memory_order_release);
        return id;
    }
    // Replacing a provisional entry whose objects the trace has typed already: that type, with
    // the fields now known (its definition, written then, has no superclass).
    if (e.replaces != kNoClass) {
        if (const uint32_t id = (*this)[e.replaces].type_id.load(std::memory_order_acquire)) {
            if (e.kind == format::TypeKind::kInstance)
                e.instance_size = e.variable_size ? 0 : (*this)[e.replaces].instance_size;
            defineFields(e, id, w);
            e.type_id.store(id, std::memory_order_release);
            return id;
        }
    }
    uint32_t super_id = e.super != kNoClass ? defineLocked(e.super, 0, w) : 0;
    uint32_t id = ++next_type_;
    TypeDef def;
    def.name = e.name;
    def.kind = e.kind;
    def.super_type = super_id;
    if (e.kind == format::TypeKind::kInstance) {
        e.instance_size = e.variable_size ? 0 : static_cast<uint32_t>(instance_size);
        def.instance_size = e.instance_size;
    } else {
        def.array_header = 16;  // compressed class pointers; other layouts give explicit sizes
        def.element_size = e.element_bytes;
    }
    w.defineType(id, def);
    defineFields(e, id, w);
    e.type_id.store(id, std::memory_order_release);
    return id;
}

void ClassRegistry::defineFields(ClassEntry& e, uint32_t type, TraceWriter& w) {
    for (FieldEntry& f : e.fields) {
        f.symbol = ++next_field_;
        uint8_t flags = static_cast<uint8_t>((f.is_static ? format::kFieldStatic : 0) |
                                             (f.is_reference ? format::kFieldReference : 0));
        w.defineField(f.symbol, type, f.name, f.type_name, flags);
    }
}

uint32_t ClassRegistry::typeId(uint32_t index, uint64_t instance_size, const WithWriter& write) {
    if (index == kNoClass) return 0;
    if (uint32_t id = (*this)[index].type_id.load(std::memory_order_acquire)) return id;
    uint32_t id = 0;
    write([&](TraceWriter& w) {
        std::lock_guard lock(define_mutex_);
        id = defineLocked(index, instance_size, w);
    });
    return id;
}

uint32_t ClassRegistry::fieldSymbol(uint32_t index, int32_t jvmti_index, const WithWriter& write) {
    if (index == kNoClass) return 0;
    const ClassEntry& e = (*this)[index];
    int64_t k = int64_t{jvmti_index} - e.index_base;
    if (k < 0 || static_cast<size_t>(k) >= e.flat.size()) return 0;
    auto [cls, f] = e.flat[static_cast<size_t>(k)];
    if (typeId(cls, 0, write) == 0) return 0;
    return (*this)[cls].fields[f].symbol;
}

bool ClassRegistry::isReferent(uint32_t index, int32_t jvmti_index) const {
    return index != kNoClass && (*this)[index].referent_index == jvmti_index;
}

}  // namespace memcity::agent
