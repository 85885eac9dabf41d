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

/* X(prefix, type of the real and imaginary parts, precision of the parts): the complex entry
 * points (c, z), generated from the same bodies as the real ones with a complex flag (the
 * complex element is two of the precision's reals; chg_struct_t.cplx below the API). */
#define CHG_CPRECISIONS(X) X(c, float, CHG_F32) X(z, double, CHG_F64)

/* The complex scalar a caller passes as a pointer to its (re, im) pair of the precision's type,
 * as CBLAS does, read into out as doubles; NULL when z is NULL (out otherwise). */
static inline const double *chg_scalar_read(chg_precision_t p, const void *z, double out[2])
{
    if (!z) return NULL;
    if (p == CHG_F64) {
        out[0] = ((const double *)z)[0];
        out[1] = ((const double *)z)[1];
    } else {
        out[0] = ((const float *)z)[0];
        out[1] = ((const float *)z)[1];
    }
    return out;
}

#endif
