/*
 * forward.h -- the BLAS drop-in's forwarding: every function of the reference
 * libblas.so.3 that clhgemm does not implement itself (src/blas/forward_symbols.txt) is an
 * exported trampoline that jumps through chg_blas_fwd_table[i] into the CPU BLAS
 * (src/cpu/blas_dlopen.c). cmake/dropin_forward.cmake generates the trampolines, the two stubs
 * below (assembly), the table, the names and their resolution (C); forward.c looks each name up
 * and supplies what OpenBLAS lacks.
 */
#ifndef CHG_BLAS_FORWARD_H
#define CHG_BLAS_FORWARD_H

#define CHG_BLAS_HIDDEN __attribute__((visibility("hidden")))

/* Generated C: the number of forwarded names, the jump table (entry i is where the trampoline
 * of chg_blas_fwd_names[i] goes) and the names. */
extern CHG_BLAS_HIDDEN const unsigned chg_blas_fwd_count;
extern CHG_BLAS_HIDDEN void *chg_blas_fwd_table[];
extern CHG_BLAS_HIDDEN const char *const chg_blas_fwd_names[];

/* Generated assembly (addresses only, never called from C): every entry's first target, which
 * resolves the table and goes on with the call (a call before the constructor below ran), and
 * the target of a name that the CPU BLAS lacks (it calls chg_blas_fwd_missing). */
extern CHG_BLAS_HIDDEN char chg_blas_fwd_lazy[];
extern CHG_BLAS_HIDDEN char chg_blas_fwd_missing_stub[];

/* Generated C: fills every entry of the table once (thread-safe; later calls return at once)
 * with chg_blas_fwd_lookup's answer, else the missing stub. Prints nothing. An ELF constructor
 * of the drop-in calls it at load. */
CHG_BLAS_HIDDEN void chg_blas_fwd_resolve(void);

/* forward.c: where the entry of `name` goes -- the CPU BLAS's symbol, else forward.c's own
 * version of it; NULL when neither exists. */
CHG_BLAS_HIDDEN void *chg_blas_fwd_lookup(const char *name);

/* Called by the missing stub with the entry's index: says which function is missing from which
 * CPU BLAS (or why none is loaded) on stderr, then aborts. */
CHG_BLAS_HIDDEN void chg_blas_fwd_missing(unsigned index) __attribute__((noreturn));

#endif
