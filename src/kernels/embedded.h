/*
 * embedded.h -- the .cl files under cl/, embedded at build time by cmake/embed_kernels.cmake
 * into the generated source kernels_embedded.c (a byte array per file and a name table).
 */
#ifndef CHG_EMBEDDED_H
#define CHG_EMBEDDED_H

#include <stddef.h>

/* NUL-terminated text of cl/<name> (e.g. "gemm.cl"), or NULL if there is no such file.
 * *len (if not NULL) receives the length without the NUL. */
const char *chg_embedded_source(const char *name, size_t *len);

#endif
