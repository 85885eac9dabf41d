/*
 * probe_common.h -- shared by the GPU diagnostics bench/probe/probe_*.c (standalone programs,
 * not part of the build): the first GPU of any platform, its name, a context and a queue on it.
 */
#ifndef CLHGEMM_PROBE_COMMON_H
#define CLHGEMM_PROBE_COMMON_H
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

/* The first GPU over all platforms, its name in name[len]; NULL when there is none. */
static cl_device_id probe_first_gpu(char *name, size_t len)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    cl_device_id dev = NULL;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS) return NULL;
    for (cl_uint i = 0; i < np && i < 8 && !dev; i++)
        if (clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    name[0] = '\0';
    if (dev) clGetDeviceInfo(dev, CL_DEVICE_NAME, len, name, NULL);
    return dev;
}

/* The first GPU (name in name[len]) with a context and a queue of the given properties;
 * NULL (after printing "no GPU") when there is none. */
static cl_device_id probe_open(char *name, size_t len, cl_command_queue_properties props,
                               cl_context *ctx, cl_command_queue *q)
{
    cl_device_id dev = probe_first_gpu(name, len);
    if (!dev) {
        printf("no GPU\n");
        return NULL;
    }
    cl_int err;
    *ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    *q = clCreateCommandQueue(*ctx, dev, props, &err);
    return dev;
}

/* probe_open, or where there is no GPU the first device of the first platform (a CPU OpenCL
 * device such as PoCL, where a probe's plumbing can run); NULL (after printing "no device")
 * when there is none. */
static inline cl_device_id probe_open_any(char *name, size_t len,
                                          cl_command_queue_properties props, cl_context *ctx,
                                          cl_command_queue *q)
{
    if (probe_first_gpu(name, len)) return probe_open(name, len, props, ctx, q);
    cl_platform_id plat;
    cl_device_id dev = NULL;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS || !dev) {
        printf("no device\n");
        return NULL;
    }
    clGetDeviceInfo(dev, CL_DEVICE_NAME, len, name, NULL);
    cl_int err;
    *ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    *q = clCreateCommandQueue(*ctx, dev, props, &err);
    return dev;
}
#endif
