// The agent's options: -agentpath:libmemcity_agent.so=file=app.mct,depth=8,refs=1,finalgc=yes
#pragma once

#include <cstdint>
#include <string>

#include "util/result.h"

namespace memcity::agent {

// How allocation sites are read (see stack_walker.h).
enum class SiteMode : uint8_t {
    kWalk,   // from HotSpot's frames, GetStackTrace for a stack not seen before (and 1 in 4096 checked)
    kJvmti,  // GetStackTrace for every allocation (where the walker cannot be used, the same)
    kCheck,  // as kWalk, and every site checked against GetStackTrace: mismatches are reported
};

// How deaths are told (see Recorder::scanWeak).
enum class DeathMode : uint8_t {
    kWeak,  // a weak reference per object, read at each GC's end (Serial, Parallel, G1; else tags)
    kTags,  // a tag per object, and HotSpot's ObjectFree events
};

struct AgentOptions {
    std::string file = "memcity.mct";  // where the trace goes
    uint32_t depth = 8;                // frames per allocation site
    uint32_t refs_every = 1;           // reference snapshot after every Nth GC; 0 = off
    // refs=P%: snapshots at GCs while the walks so far and the next take at most P percent of
    // the run (a budget; with refs_every 0); 0 = none.
    double refs_percent = 0;
    bool final_gc = true;  // a last GC at exit, so the last deaths are recorded
    SiteMode sites = SiteMode::kWalk;
    DeathMode deaths = DeathMode::kWeak;
    bool quiet = false;  // no summary line on stderr at exit
    // Several JVMs may be given this file (memcity record of a script or build tool): the first
    // creates it, each later one writes STEM.PID.mct beside it instead of overwriting it.
    bool shared = false;
    // A live control channel (live_control.h): a local socket only this user can open.
    bool control = true;
    // Attached by a client that owns the recording (memcity attach): the recording ends, as at
    // a detach, when the client's owner connection closes (it died, or its session ended), or
    // when no client claims it within LiveControl::kOwnerWaitSeconds of the start.
    bool owned = false;
    // Sampled recording (docs/recorder.md, "Sampled recording"): the JVM's heap sampler reports
    // one allocation per `interval` bytes on average, and each stands for the others; 0 records
    // every allocation. Reference snapshots are then off unless refs= asks for them (or a
    // client does, through the control channel).
    uint64_t interval = 0;
    // Sampled recording: the share of the run (percent) that class censuses at young GCs may
    // take; a census follows every full GC whatever it says. 0: full GCs only.
    double census_percent = 1.0;
    bool sampled() const { return interval != 0; }
};

// Where a JVM with process id `pid` writes when `file` is taken: app.mct -> app.1234.mct.
std::string sharedTracePath(const std::string& file, long pid);

// Parses "key=value,key=value". Errors name the option and what was expected.
Result<AgentOptions> parseAgentOptions(const char* text);

}  // namespace memcity::agent
