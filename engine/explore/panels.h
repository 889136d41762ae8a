// The one list of the explorer's panels. Each line is one panel; from it come its flag in
// PanelSettings (settings.h), its row in panelTable() (the settings file, the View menu, the
// scripts' `panel` verb) and, in app/, its place in the draw table (app/ui.h panelDraws()).
// Plain macros and text: no UI here (explore/ includes none).
//
// X(field, Draw, name, key, menu, shown), in the View menu's order (and the settings file's, and
// the order the panels of one side of the window are drawn in):
//   field  its flag in PanelSettings (an identifier)
//   Draw   its drawing: app/panel_NAME.cpp defines `const PanelDraw k<Draw>Panel` (app/ui.h)
//   name   the scripts' word: `panel NAME on|off`
//   key    its settings key ("panel.chain_editor = true")
//   menu   its entry in the View menu
//   shown  whether it is shown when the settings do not say
//
// Adding a panel: its file app/panel_NAME.cpp and one line here.
#pragma once

// clang-format off
#define MEMCITY_PANELS(X)                                                              \
    X(chain_editor, Chain,     "chain",     "panel.chain_editor", "Classifiers",      true)  \
    X(table,        Table,     "table",     "panel.table",        "Tree table",       true)  \
    X(inspector,    Inspector, "inspector", "panel.inspector",    "Inspector",        true)  \
    X(timeline,     Timeline,  "timeline",  "panel.timeline",     "Timeline",         true)  \
    X(stats,        Stats,     "stats",     "panel.stats",        "Frame statistics", false)
// clang-format on
