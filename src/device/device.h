/*
 * device.h -- device discovery and capabilities (device.c owns them).
 *
 * Every vendor decision in the library is made here, once: chg_device_query() reads a device's
 * facts and turns them into feature flags (CHG_FEAT_*), and chg_device_feature_defines() turns
 * those flags into the macros that kernels test. Kernels and other modules never look at vendor
 * strings.
 */
#ifndef CHG_DEVICE_H
#define CHG_DEVICE_H

#include "clhgemm.h"
#include "base/util.h"

enum {
    CHG_FEAT_FP64 = 1u << 0,        /* cl_khr_fp64 (or OpenCL >= 1.2 double config) */
    CHG_FEAT_FMA_F32 = 1u << 1,     /* CL_FP_FMA in single config: fma() is a hardware op */
    CHG_FEAT_FMA_F64 = 1u << 2,
    CHG_FEAT_NV_UNROLL = 1u << 3,   /* cl_nv_pragma_unroll */
    CHG_FEAT_NV_PTX = 1u << 4,      /* NVIDIA driver: inline PTX asm accepted in OpenCL C */
    CHG_FEAT_NV_MMA_F64 = 1u << 5,  /* NVIDIA, compute capability >= 8.0: f64 mma.sync */
    CHG_FEAT_AMD = 1u << 6,         /* AMD GPU driver (wavefront 64 on GCN/CDNA) */
    CHG_FEAT_CPU = 1u << 7,         /* CPU device: small tiles, no local-memory staging */
    CHG_FEAT_GPU = 1u << 8,
    /* Host memory made pinned by ANOTHER context (a mapped CL_MEM_ALLOC_HOST_PTR buffer) is
     * copied to this device at its own pinned rate (bench/probe/probe_pinned_share.c: NVIDIA's
     * driver 1.00x on two H100s, PoCL 1.1x): one pinned staging may feed several devices
     * (host/shared_b.h) */
    CHG_FEAT_FOREIGN_PINNED = 1u << 9
};

typedef struct chg_device_s {
    clhgemm_device_info_t info;
    unsigned features;     /* CHG_FEAT_* */
    int cl_version;        /* 120, 200, 300 ... from CL_DEVICE_VERSION */
    /* Keys of the tuning database (src/tuning/resolve.c) below the exact device name + driver:
     * architecture ("nvidia:sm_90", "amd:gfx90a", "pocl:cpu", "intel:gpu", ...) and vendor
     * ("nvidia", "amd", "intel", "pocl", ...). Derived here, with the feature flags, so that no
     * other module reads vendor strings. */
    char arch_key[64];
    char vendor_key[32];
} chg_device_t;

/* Reads the facts of `device` and derives its features. */
clhgemm_status_t chg_device_query(cl_device_id device, chg_device_t *out);

/* Appends "#define CLHGEMM_FEATURE_X 1\n" lines for the device's features to `s`. */
void chg_device_feature_defines(const chg_device_t *dev, chg_str_t *s);

#endif
