/*
 * probe_lmem.c -- diagnostic (not part of the build): does the OpenCL driver of the first GPU
 * run a kernel with more dynamic local memory (a __local kernel argument) than the
 * CL_DEVICE_LOCAL_MEM_SIZE it reports? The tensor-core GEMM kernel's depth is bounded by that
 * figure (48 KiB on NVIDIA's OpenCL, against 227 KiB of shared memory per H100 SM that CUDA can
 * opt into), so this settles whether a deeper pipeline is reachable from OpenCL at all. For each
 * size it reports clSetKernelArg, clEnqueueNDRangeKernel and clFinish, and checks the result.
 *   cc -O2 -o /tmp/probe_lmem bench/probe/probe_lmem.c -lOpenCL && /tmp/probe_lmem
 */
#include "probe_common.h"
#include <stdio.h>
#include <stdlib.h>

static const char *src =
    "__kernel void k(__global double *out, __local double *buf, const int n)\n"
    "{\n"
    "    const int l = get_local_id(0), ls = get_local_size(0);\n"
    "    for (int i = l; i < n; i += ls) buf[i] = (double)i;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    double s = 0;\n"
    "    for (int i = l; i < n; i += ls) s += buf[n - 1 - i];\n"
    "    out[get_global_id(0)] = s;\n"
    "}\n";

int main(void)
{
    char name[256];
    cl_context ctx;
    cl_command_queue q;
    cl_device_id dev = probe_open(name, sizeof name, 0, &ctx, &q);
    if (!dev) return 77;
    cl_ulong lmem = 0;
    clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
    printf("%s: CL_DEVICE_LOCAL_MEM_SIZE %llu bytes\n", name, (unsigned long long)lmem);
    cl_int err;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    err = clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL);
    if (err != CL_SUCCESS) {
        printf("build failed %d\n", err);
        return 1;
    }
    cl_kernel k = clCreateKernel(prog, "k", &err);
    const size_t ls = 256, gs = 256;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(double) * gs, NULL, &err);
    static const size_t kib[] = {32, 48, 49, 64, 96, 128, 160, 200, 227};
    for (size_t s = 0; s < sizeof kib / sizeof kib[0]; s++) {
        const size_t bytes = kib[s] * 1024;
        const int n = (int)(bytes / sizeof(double));
        cl_int e1 = clSetKernelArg(k, 0, sizeof out, &out);
        cl_int e2 = clSetKernelArg(k, 1, bytes, NULL);
        cl_int e3 = clSetKernelArg(k, 2, sizeof n, &n);
        cl_int e4 = clEnqueueNDRangeKernel(q, k, 1, NULL, &gs, &ls, 0, NULL, NULL);
        cl_int e5 = clFinish(q);
        double got[256];
        cl_int e6 = clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        /* work-item 0 sums buf[n-1-i] for i = 0, 256, ...: the values n-1-i */
        double want = 0;
        for (int i = 0; i < n; i += 256) want += (double)(n - 1 - i);
        printf("%4zu KiB: setarg %d/%d/%d enqueue %d finish %d read %d -> %s\n", kib[s], e1, e2, e3, e4,
               e5, e6, e4 == CL_SUCCESS && e5 == CL_SUCCESS && e6 == CL_SUCCESS && got[0] == want ? "ran, correct" : "did not run");
    }
    return 0;
}
