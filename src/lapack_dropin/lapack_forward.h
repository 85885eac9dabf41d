/*
 * lapack_forward.h -- the LAPACK drop-in's forwarding: every function of the reference
 * liblapack.so.3 that the drop-in does not implement itself (src/lapack_dropin/lapack_symbols.txt)
 * is an exported trampoline that jumps through chg_lapack_fwd_table[i] into the CPU LAPACK
 * (src/cpu/blas_dlopen.c). cmake/dropin_forward.cmake generates the trampolines, the two stubs
 * below (assembly), the table, the names and their resolution (C), as for the BLAS drop-in;
 * lapack_forward.c looks each name up and reports a missing one.
 */
#ifndef CHG_LAPACK_DROPIN_FORWARD_H
#define CHG_LAPACK_DROPIN_FORWARD_H

#define CHG_LAPACK_HIDDEN __attribute__((visibility("hidden")))

/* Generated C: the number of forwarded names, the jump table (entry i is where the trampoline
 * of chg_lapack_fwd_names[i] goes) and the names. */
extern CHG_LAPACK_HIDDEN const unsigned chg_lapack_fwd_count;
extern CHG_LAPACK_HIDDEN void *chg_lapack_fwd_table[];
extern CHG_LAPACK_HIDDEN const char *const chg_lapack_fwd_names[];

/* Generated assembly (addresses only, never called from C): every entry's first target, which
 * resolves the table and goes on with the call, and the target of a name that the CPU LAPACK
 * lacks (it calls chg_lapack_fwd_missing). */
extern CHG_LAPACK_HIDDEN char chg_lapack_fwd_lazy[];
extern CHG_LAPACK_HIDDEN char chg_lapack_fwd_missing_stub[];

/* Generated C: fills every entry once (thread-safe) with chg_lapack_fwd_lookup's answer, else
 * the missing stub; an ELF constructor of the drop-in calls it at load. */
CHG_LAPACK_HIDDEN void chg_lapack_fwd_resolve(void);

/* lapack_forward.c: the CPU LAPACK's symbol `name`, NULL when it lacks it. */
CHG_LAPACK_HIDDEN void *chg_lapack_fwd_lookup(const char *name);

/* Called by the missing stub with the entry's index: says which function is missing from which
 * CPU LAPACK (or why none is loaded) on stderr, then aborts. */
CHG_LAPACK_HIDDEN void chg_lapack_fwd_missing(unsigned index) __attribute__((noreturn));

#endif
