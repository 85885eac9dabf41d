/*
 * interpose.h -- what the ScaLAPACK benchmark's timing wrappers (interpose.c) give its driver
 * (bench_scalapack.c): the per-rank time and call counters, by group.
 */
#ifndef CLHGEMM_BENCH_SCALAPACK_INTERPOSE_H
#define CLHGEMM_BENCH_SCALAPACK_INTERPOSE_H

enum {
    BSP_BLAS3,  /* local level-3 calls: the updates and solves a drop-in may offload */
    BSP_BLAS12, /* local levels 1 and 2: the panels */
    BSP_LAPACK, /* local LAPACK: row interchanges (and the band drivers' factorizations) */
    BSP_MPI,    /* BLACS's MPI calls: sends, receives, waits, collectives */
    BSP_GROUPS
};

extern double bsp_time[BSP_GROUPS]; /* seconds since bsp_reset */
extern long bsp_calls[BSP_GROUPS];
void bsp_reset(void);

#endif
