/*
 * lower.h: lowering, from the flat IR (flat/flat.h) to λcu (lcu/lcu.h):
 * the one stage that sees both IRs.
 */
#ifndef NESSIE_LOWER_H
#define NESSIE_LOWER_H

#include "../flat/flat.h"
#include "../lcu/lcu.h"

/* λcu from the flat IR: every vector operation becomes a kernel of one
   SOAC (kernels that are equal are made once and run several times);
   scalar work and control stay at the CPU level.  Requires a checked
   'fp'; the result passes lcu_check. */
LcuProgram *lower_program(FlatProgram *fp);

#endif
