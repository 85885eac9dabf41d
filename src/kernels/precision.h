/*
 * precision.h -- the two precisions of every routine, shared by the kernels, the tuning
 * database, the CPU share and the pipelines (a type of its own so that none of them depends on
 * another only for it).
 */
#ifndef CHG_PRECISION_H
#define CHG_PRECISION_H

#include <stddef.h>

typedef enum { CHG_F32 = 0, CHG_F64 = 1 } chg_precision_t;
static inline size_t chg_elem_size(chg_precision_t p) { return p == CHG_F64 ? 8 : 4; }

/* X(prefix, element type, precision): every routine is written once and its s/d entry points
 * generated over this list. */
#define CHG_PRECISIONS(X) X(s, float, CHG_F32) X(d, double, CHG_F64)

#endif
