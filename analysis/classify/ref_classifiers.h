// Classifiers that read the heap's references (graph/heap_graph.h), so they need a reference
// snapshot: the GC roots that reference an object directly (ManLang18 §4.3.1) and its closest
// roots (§4.3.2), the data structure it is contained in (STAG20 §7.2), the type of its
// top-level dominator (what holds it, graph/dominator_view.h), its in- and out-degree,
// and the points-to and pointed-from transformers (ICPE18 §3.7), which classify the objects an
// object references, or that reference it, by an inner chain. Each is in its own file in
// classify/classifiers/, with ClassifierNeeds::kReferences in its entry.
//
// A sampled trace's graph at a snapshot GC (HeapGraph::whole()) is the heap made whole: the
// view they are given is the samples' (its positions are the graph's first ones), but an
// object's neighbours and its data structure's head may be objects the snapshot alone listed.
// Those are read through the graph's heap, each standing for itself (its site and thread unknown).
#pragma once

#include <string_view>

namespace memcity {

// True when `name` is one of these classifiers: its entry in builtinClassifiers() needs
// ClassifierNeeds::kReferences.
bool isReferenceClassifier(std::string_view name);

}  // namespace memcity
