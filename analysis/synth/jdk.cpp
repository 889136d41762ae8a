#include "synth/jdk.h"

namespace memcity::synth {

Jdk::Jdk(SimHeap& h) : h_(h) {
    using K = FieldKind;
    byte_array = h.defineArray("byte[]", K::kByte);
    char_array = h.defineArray("char[]", K::kChar);
    int_array = h.defineArray("int[]", K::kInt);
    long_array = h.defineArray("long[]", K::kLong);
    object_array = h.defineArray("java.lang.Object[]", K::kRef, 1);
    string = h.defineClass("java.lang.String", {{"value", "byte[]", K::kRef},
                                                {"hash", "int", K::kInt},
                                                {"coder", "byte", K::kByte},
                                                {"hashIsZero", "boolean", K::kBool}});
    integer = h.defineClass("java.lang.Integer", {{"value", "int", K::kInt}});
    long_box = h.defineClass("java.lang.Long", {{"value", "long", K::kLong}});
    date = h.defineClass("java.util.Date", {{"fastTime", "long", K::kLong},
                                            {"cdate", "sun.util.calendar.BaseCalendar$Date", K::kRef}});
    array_list = h.defineClass("java.util.ArrayList", {{"modCount", "int", K::kInt},
                                                       {"elementData", "java.lang.Object[]", K::kRef},
                                                       {"size", "int", K::kInt}});
    hash_map_node = h.defineClass("java.util.HashMap$Node", {{"hash", "int", K::kInt},
                                                             {"key", "java.lang.Object", K::kRef},
                                                             {"value", "java.lang.Object", K::kRef},
                                                             {"next", "java.util.HashMap$Node", K::kRef}});
    hash_map_node_array = h.defineArray("java.util.HashMap$Node[]", K::kRef, hash_map_node);
    hash_map = h.defineClass("java.util.HashMap", {{"keySet", "java.util.Set", K::kRef},
                                                   {"values", "java.util.Collection", K::kRef},
                                                   {"table", "java.util.HashMap$Node[]", K::kRef},
                                                   {"entrySet", "java.util.Set", K::kRef},
                                                   {"size", "int", K::kInt},
                                                   {"modCount", "int", K::kInt},
                                                   {"threshold", "int", K::kInt},
                                                   {"loadFactor", "float", K::kFloat}});
    chm_node = h.defineClass("java.util.concurrent.ConcurrentHashMap$Node",
                             {{"hash", "int", K::kInt},
                              {"key", "java.lang.Object", K::kRef},
                              {"val", "java.lang.Object", K::kRef},
                              {"next", "java.util.concurrent.ConcurrentHashMap$Node", K::kRef}});
    chm_node_array = h.defineArray("java.util.concurrent.ConcurrentHashMap$Node[]", K::kRef, chm_node);
    chm = h.defineClass("java.util.concurrent.ConcurrentHashMap",
                        {{"table", "java.util.concurrent.ConcurrentHashMap$Node[]", K::kRef},
                         {"nextTable", "java.util.concurrent.ConcurrentHashMap$Node[]", K::kRef},
                         {"baseCount", "long", K::kLong},
                         {"sizeCtl", "int", K::kInt},
                         {"transferIndex", "int", K::kInt},
                         {"counterCells", "java.util.concurrent.ConcurrentHashMap$CounterCell[]", K::kRef},
                         {"keySet", "java.util.concurrent.ConcurrentHashMap$KeySetView", K::kRef},
                         {"values", "java.util.concurrent.ConcurrentHashMap$ValuesView", K::kRef},
                         {"entrySet", "java.util.concurrent.ConcurrentHashMap$EntrySetView", K::kRef}});
    weak_reference =
        h.defineClass("java.lang.ref.WeakReference", {{"referent", "java.lang.Object", K::kWeakRef},
                                                      {"queue", "java.lang.ref.ReferenceQueue", K::kRef},
                                                      {"next", "java.lang.ref.Reference", K::kRef},
                                                      {"discovered", "java.lang.ref.Reference", K::kRef}});

    m_string_init_ = h.defineMethod("java.lang.String", "<init>", "([BB)V", "String.java");
    m_string_latin1_ = h.defineMethod("java.lang.StringLatin1", "newString", "([BII)Ljava/lang/String;",
                                      "StringLatin1.java");
    m_integer_value_of_ =
        h.defineMethod("java.lang.Integer", "valueOf", "(I)Ljava/lang/Integer;", "Integer.java");
    m_long_value_of_ = h.defineMethod("java.lang.Long", "valueOf", "(J)Ljava/lang/Long;", "Long.java");
    m_date_init_ = h.defineMethod("java.util.Date", "<init>", "(J)V", "Date.java");
    m_weak_init_ = h.defineMethod("java.lang.ref.WeakReference", "<init>", "(Ljava/lang/Object;)V",
                                  "WeakReference.java");
    m_list_init_ = h.defineMethod("java.util.ArrayList", "<init>", "()V", "ArrayList.java");
    m_list_add_ = h.defineMethod("java.util.ArrayList", "add", "(Ljava/lang/Object;)Z", "ArrayList.java");
    m_list_grow_ = h.defineMethod("java.util.ArrayList", "grow", "(I)[Ljava/lang/Object;", "ArrayList.java");
    m_arrays_copy_of_ = h.defineMethod("java.util.Arrays", "copyOf",
                                       "([Ljava/lang/Object;I)[Ljava/lang/Object;", "Arrays.java");
    m_map_init_ = h.defineMethod("java.util.HashMap", "<init>", "()V", "HashMap.java");
    m_map_put_ = h.defineMethod("java.util.HashMap", "put",
                                "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", "HashMap.java");
    m_map_put_val_ =
        h.defineMethod("java.util.HashMap", "putVal",
                       "(ILjava/lang/Object;Ljava/lang/Object;ZZ)Ljava/lang/Object;", "HashMap.java");
    m_map_new_node_ = h.defineMethod(
        "java.util.HashMap", "newNode",
        "(ILjava/lang/Object;Ljava/lang/Object;Ljava/util/HashMap$Node;)Ljava/util/HashMap$Node;",
        "HashMap.java");
    m_map_resize_ =
        h.defineMethod("java.util.HashMap", "resize", "()[Ljava/util/HashMap$Node;", "HashMap.java");
    m_chm_init_ =
        h.defineMethod("java.util.concurrent.ConcurrentHashMap", "<init>", "()V", "ConcurrentHashMap.java");
    m_chm_put_ =
        h.defineMethod("java.util.concurrent.ConcurrentHashMap", "put",
                       "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", "ConcurrentHashMap.java");
    m_chm_put_val_ =
        h.defineMethod("java.util.concurrent.ConcurrentHashMap", "putVal",
                       "(Ljava/lang/Object;Ljava/lang/Object;Z)Ljava/lang/Object;", "ConcurrentHashMap.java");
    m_chm_init_table_ =
        h.defineMethod("java.util.concurrent.ConcurrentHashMap", "initTable",
                       "()[Ljava/util/concurrent/ConcurrentHashMap$Node;", "ConcurrentHashMap.java");
    m_chm_transfer_ = h.defineMethod(
        "java.util.concurrent.ConcurrentHashMap", "transfer",
        "([Ljava/util/concurrent/ConcurrentHashMap$Node;[Ljava/util/concurrent/ConcurrentHashMap$Node;)V",
        "ConcurrentHashMap.java");

    s_string_value_ = h.refSlot(string, "value");
    s_list_data_ = h.refSlot(array_list, "elementData");
    s_map_table_ = h.refSlot(hash_map, "table");
    s_chm_table_ = h.refSlot(chm, "table");
    s_node_key_ = h.refSlot(hash_map_node, "key");
    s_node_value_ = h.refSlot(hash_map_node, "value");
    s_node_next_ = h.refSlot(hash_map_node, "next");
    s_weak_referent_ = h.refSlot(weak_reference, "referent");
}

uint32_t Jdk::site(std::initializer_list<FrameSpec> own, const Caller& at) {
    std::vector<FrameSpec> frames(own);
    frames.insert(frames.end(), at.begin(), at.end());
    if (frames.size() > 8) frames.resize(8);
    return h_.site(frames);
}

Ref Jdk::newString(const Caller& at, uint32_t length) {
    Ref bytes = h_.allocArray(byte_array, site({{m_string_latin1_, 769}}, at), length);
    Ref s = h_.alloc(string, site({}, at));
    h_.set(s, s_string_value_, bytes);
    return s;
}

Ref Jdk::newInteger(const Caller& at) {
    return h_.alloc(integer, site({{m_integer_value_of_, 1081}}, at));
}
Ref Jdk::newLong(const Caller& at) {
    return h_.alloc(long_box, site({{m_long_value_of_, 1205}}, at));
}
Ref Jdk::newDate(const Caller& at) {
    return h_.alloc(date, site({}, at));
}

Ref Jdk::newWeakReference(const Caller& at, Ref referent) {
    Ref w = h_.alloc(weak_reference, site({}, at));
    h_.set(w, s_weak_referent_, referent);
    return w;
}

SimList Jdk::newArrayList(const Caller& at) {
    SimList l;
    l.object = h_.alloc(array_list, site({}, at));
    return l;
}

void Jdk::add(SimList& list, Ref value, const Caller& at) {
    if (list.size == list.capacity) {
        uint32_t cap = list.capacity == 0 ? 10 : list.capacity + list.capacity / 2;
        Ref data = h_.allocArray(
            object_array, site({{m_arrays_copy_of_, 3481}, {m_list_grow_, 237}, {m_list_add_, 455}}, at),
            cap);
        Ref old = h_.get(list.object, s_list_data_);
        for (uint32_t i = 0; i < list.size; ++i)
            h_.set(data, i, h_.get(old, i));
        h_.set(list.object, s_list_data_, data);
        list.capacity = cap;
    }
    h_.set(h_.get(list.object, s_list_data_), list.size++, value);
}

SimMap Jdk::newHashMap(const Caller& at) {
    SimMap m;
    m.object = h_.alloc(hash_map, site({}, at));
    return m;
}

SimMap Jdk::newConcurrentHashMap(const Caller& at) {
    SimMap m;
    m.concurrent = true;
    m.object = h_.alloc(chm, site({}, at));
    return m;
}

void Jdk::resize(SimMap& m, const Caller& at) {
    uint32_t cap = m.capacity == 0 ? 16 : m.capacity * 2;
    Ref table;
    if (m.concurrent) {
        table = h_.allocArray(
            chm_node_array,
            m.capacity == 0
                ? site({{m_chm_init_table_, 2296}, {m_chm_put_val_, 1018}, {m_chm_put_, 1006}}, at)
                : site({{m_chm_transfer_, 2455}, {m_chm_put_val_, 1075}, {m_chm_put_, 1006}}, at),
            cap);
    } else {
        table =
            h_.allocArray(hash_map_node_array,
                          site({{m_map_resize_, 702}, {m_map_put_val_, 627}, {m_map_put_, 610}}, at), cap);
    }
    for (auto& [key, e] : m.entries)
        h_.set(e.node, s_node_next_, kNull);
    for (auto& [key, e] : m.entries) {
        uint32_t bin = e.hash & (cap - 1);
        h_.set(e.node, s_node_next_, h_.get(table, bin));
        h_.set(table, bin, e.node);
    }
    h_.set(m.object, m.concurrent ? s_chm_table_ : s_map_table_, table);
    m.capacity = cap;
}

void Jdk::put(SimMap& m, uint64_t key_identity, Ref key, Ref value, const Caller& at) {
    auto it = m.entries.find(key_identity);
    if (it != m.entries.end()) {
        h_.set(it->second.node, s_node_value_, value);
        return;
    }
    if (m.capacity == 0) resize(m, at);
    auto hash = static_cast<uint32_t>((key_identity * 0x9e3779b97f4a7c15ull) >> 32);
    Ref node = m.concurrent
                   ? h_.alloc(chm_node, site({{m_chm_put_val_, 1040}, {m_chm_put_, 1006}}, at))
                   : h_.alloc(hash_map_node,
                              site({{m_map_new_node_, 1901}, {m_map_put_val_, 631}, {m_map_put_, 610}}, at));
    Ref table = h_.get(m.object, m.concurrent ? s_chm_table_ : s_map_table_);
    uint32_t bin = hash & (m.capacity - 1);
    h_.set(node, s_node_key_, key);
    h_.set(node, s_node_value_, value);
    h_.set(node, s_node_next_, h_.get(table, bin));
    h_.set(table, bin, node);
    m.entries.emplace(key_identity, SimMap::Entry{node, hash});
    if (m.entries.size() > m.capacity / 4 * 3) resize(m, at);
}

bool Jdk::remove(SimMap& m, uint64_t key_identity) {
    auto it = m.entries.find(key_identity);
    if (it == m.entries.end()) return false;
    Ref node = it->second.node;
    Ref table = h_.get(m.object, m.concurrent ? s_chm_table_ : s_map_table_);
    uint32_t bin = it->second.hash & (m.capacity - 1);
    Ref prev = kNull;
    for (Ref n = h_.get(table, bin); n != kNull; prev = n, n = h_.get(n, s_node_next_)) {
        if (n != node) continue;
        Ref next = h_.get(n, s_node_next_);
        if (prev == kNull)
            h_.set(table, bin, next);
        else
            h_.set(prev, s_node_next_, next);
        break;
    }
    m.entries.erase(it);
    return true;
}

Ref Jdk::getValue(const SimMap& m, uint64_t key_identity) const {
    auto it = m.entries.find(key_identity);
    return it == m.entries.end() ? kNull : h_.get(it->second.node, s_node_value_);
}

}  // namespace memcity::synth
