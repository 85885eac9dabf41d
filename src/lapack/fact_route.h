/*
 * fact_route.h -- where a host-memory factorization runs, and the CPU route itself
 * (fact_route.c owns both).
 *
 * The decision (chg_fact_route_cpu), per call and without the handle's lock: the CPU LAPACK on
 * the calling thread when CLHGEMM_ROUTE=cpu, when the handle has no device left, or (auto) when
 * every device is itself a CPU (PoCL: the devices would be the same cores, slower) -- as the
 * BLAS routing (host/route.h) decides; CLHGEMM_ROUTE=device sends every call to the driver.
 * Otherwise a model, a first cut until the driver's own rates are measured:
 *
 *   CPU      flops / (0.6 x OpenBLAS's GEMM rate at the factorization's size), the rate the
 *            handle's routing model already has (host/route.h chg_route_cpu_time: the tuning
 *            entry's, else measured once per process); a blocked LAPACK factorization spends
 *            most of its time in GEMM-like updates, its panels and pivoting the rest
 *   devices  the handle's latency + flops / the devices' GEMM rate + the matrix up and back
 *            over the bus (the handle's measured h2d and d2h rates)
 *
 * with LAPACK's flop counts: potrf n^3/3, getrf p q^2 - q^3/3, geqrf 2 p q^2 - 2 q^3/3 (p, q
 * the larger and smaller of m, n). CLHGEMM_VERBOSE=1 logs each decision with both times.
 *
 * The CPU route (chg_fact_cpu) calls the CPU LAPACK (cpu/lapack_link.h) on the caller's data on
 * the calling thread, no lock: column-major directly; row-major as LAPACKE does (A and B
 * transposed into column-major temporaries, the call, what the routine writes transposed back;
 * CLHGEMM_OUT_OF_HOST_MEMORY, nothing written, when a temporary cannot be had), except the
 * Cholesky, which is the other triangle of the same storage (no copy). ipiv, tau and info are
 * LAPACK's.
 */
#ifndef CHG_LAPACK_FACT_ROUTE_H
#define CHG_LAPACK_FACT_ROUTE_H

#include "host/handle.h"
#include "lapack/fact_check.h"

/* 1 when the factorization c (a checked call's view, m, n > 0) goes to the CPU LAPACK. */
int chg_fact_route_cpu(clhgemm_handle_t h, const chg_fact_call_t *c);

/* The solvers' route without a model (potrs, getrs, ormqr, orgqr, whose devices' parts route
 * themselves): 1 when CLHGEMM_ROUTE=cpu, the handle has no device left, or (auto) every device
 * is a CPU -- and the CPU LAPACK is there. */
int chg_fact_route_fixed_cpu(clhgemm_handle_t h, const char *name);

/* The CPU route: a checked call (chg_fact_check_shape) with something to do, on the CPU LAPACK
 * in the layouts a_row and b_row say. CLHGEMM_NO_CPU_LAPACK without one. */
clhgemm_status_t chg_fact_cpu(const chg_fact_args_t *a);

/* The factorization c on the CPU LAPACK, in its view (a Cholesky stored transposed as the
 * other triangle; LU and QR of a transposed view as a row-major call); c->info set. */
clhgemm_status_t chg_fact_cpu_view(chg_fact_call_t *c);

/* The factorization c on the handle's devices (fact_driver.h); a matrix the driver says does
 * not fit (CLHGEMM_WORKSPACE_TOO_SMALL, nothing written) runs on the CPU LAPACK instead. */
clhgemm_status_t chg_fact_devices(clhgemm_handle_t h, chg_fact_call_t *c);

#endif
