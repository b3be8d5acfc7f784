// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The graph kfuncs for tests/progs/graph_run*.bpf.c: graph.h's declarations and macros, with the globals of
 * `private(X)` in `.data.X` sections (graph.h's are in `.bss.X`). */
#ifndef STRBPF_GRAPH_RUN_H
#define STRBPF_GRAPH_RUN_H

#include <stdbool.h>
#include "strbpf_test.h"
#include "graph.h"

#undef private
#define private(name) SEC(".data." #name) __hidden __attribute__((aligned(8)))

#endif
