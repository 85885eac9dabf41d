/*
 * probe_mma.c -- diagnostic (not part of the build): the FP64 tensor-core ceiling seen from
 * OpenCL on the first NVIDIA GPU. Each f64 mma.sync shape the GEMM kernel can use (m8n8k4,
 * m16n8k4, m16n8k8, m16n8k16) runs in a loop on register operands only -- no memory traffic, NACC
 * independent accumulators per warp so that no instruction waits for another -- on every SM with
 * 4, 8 or 16 warps per work-group, and the rate is timed with profiling events. It bounds what any
 * GEMM kernel built on that instruction can reach (docs/PERFORMANCE.md compares the GEMM kernel
 * with it). nvidia-smi's SM clock during the run tells the clock the rate was reached at.
 *   cc -O2 -o /tmp/probe_mma bench/probe/probe_mma.c -lOpenCL && /tmp/probe_mma
 */
#include "probe_common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *src =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#if SHAPE == 1\n"
    "#define NA 1\n#define NB 1\n#define NC 2\n#define FL (2 * 8 * 8 * 4)\n"
    "#define OP(c, a, b) asm volatile(\"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\" \\\n"
    "    : \"+d\"(c[0]), \"+d\"(c[1]) : \"d\"(a[0]), \"d\"(b[0]))\n"
    "#elif SHAPE == 2\n"
    "#define NA 2\n#define NB 1\n#define NC 4\n#define FL (2 * 16 * 8 * 4)\n"
    "#define OP(c, a, b) asm volatile(\"mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\" \\\n"
    "    : \"+d\"(c[0]), \"+d\"(c[1]), \"+d\"(c[2]), \"+d\"(c[3]) : \"d\"(a[0]), \"d\"(a[1]), \"d\"(b[0]))\n"
    "#elif SHAPE == 3\n"
    "#define NA 4\n#define NB 2\n#define NC 4\n#define FL (2 * 16 * 8 * 8)\n"
    "#define OP(c, a, b) asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\" \\\n"
    "    : \"+d\"(c[0]), \"+d\"(c[1]), \"+d\"(c[2]), \"+d\"(c[3]) : \"d\"(a[0]), \"d\"(a[1]), \"d\"(a[2]), \"d\"(a[3]), \"d\"(b[0]), \"d\"(b[1]))\n"
    "#else\n"
    "#define NA 8\n#define NB 4\n#define NC 4\n#define FL (2 * 16 * 8 * 16)\n"
    "#define OP(c, a, b) asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\" \\\n"
    "    : \"+d\"(c[0]), \"+d\"(c[1]), \"+d\"(c[2]), \"+d\"(c[3]) : \"d\"(a[0]), \"d\"(a[1]), \"d\"(a[2]), \"d\"(a[3]), \"d\"(a[4]), \"d\"(a[5]), \"d\"(a[6]), \"d\"(a[7]), \"d\"(b[0]), \"d\"(b[1]), \"d\"(b[2]), \"d\"(b[3]))\n"
    "#endif\n"
    "__kernel void peak(__global double *out, const int iters, const double seed)\n"
    "{\n"
    "    const int lane = get_local_id(0) % 32;\n"
    "    double a[NA], b[NB], c[NACC][NC];\n"
    "    for (int r = 0; r < NA; r++) a[r] = seed * (lane + r + 1);\n"
    "    for (int r = 0; r < NB; r++) b[r] = seed / (lane + r + 2);\n"
    "    for (int j = 0; j < NACC; j++) for (int r = 0; r < NC; r++) c[j][r] = 0.0;\n"
    "    for (int it = 0; it < iters; it++) {\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < NACC; j++) OP(c[j], a, b);\n"
    "    }\n"
    "    double s = 0;\n"
    "    for (int j = 0; j < NACC; j++) for (int r = 0; r < NC; r++) s += c[j][r];\n"
    "    out[get_global_id(0)] = s;\n"
    "}\n";

int main(void)
{
    char name[256];
    cl_context ctx;
    cl_command_queue q;
    cl_device_id dev = probe_open(name, sizeof name, CL_QUEUE_PROFILING_ENABLE, &ctx, &q);
    if (!dev) return 77;
    cl_uint cus = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    cl_int err;
    static const char *names[] = {"", "m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"};
    static const int warps[] = {4, 8, 16};
    printf("%s, %u SMs: f64 mma.sync on registers, TFLOP/s (median of 5 launches)\n", name, cus);
    for (int shape = 1; shape <= 4; shape++) {
        const int nacc = shape == 4 ? 4 : 8;
        char opts[128];
        snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DSHAPE=%d -DNACC=%d", shape, nacc);
        cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
        err = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
        if (err != CL_SUCCESS) {
            char log[4096] = "";
            clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            printf("  %-9s build failed %d: %.300s\n", names[shape], err, log);
            continue;
        }
        cl_kernel k = clCreateKernel(prog, "peak", &err);
        const int fl = shape == 1 ? 512 : shape == 2 ? 1024 : shape == 3 ? 2048 : 4096;
        printf("  %-9s", names[shape]);
        for (size_t w = 0; w < sizeof warps / sizeof warps[0]; w++) {
            const size_t ls = 32 * (size_t)warps[w], groups = (size_t)cus * (16 / (size_t)warps[w]) * 4;
            const size_t gs = ls * groups;
            cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof(double) * gs, NULL, &err);
            const int iters = 4096;
            const double seed = 1e-3;
            clSetKernelArg(k, 0, sizeof out, &out);
            clSetKernelArg(k, 1, sizeof iters, &iters);
            clSetKernelArg(k, 2, sizeof seed, &seed);
            double t[5];
            int ok = 1;
            for (int r = 0; r < 6 && ok; r++) {
                cl_event ev;
                err = clEnqueueNDRangeKernel(q, k, 1, NULL, &gs, &ls, 0, NULL, &ev);
                if (err == CL_SUCCESS) err = clWaitForEvents(1, &ev);
                cl_ulong a = 0, b = 0;
                if (err == CL_SUCCESS) {
                    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
                    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
                    clReleaseEvent(ev);
                    if (r) t[r - 1] = (double)(b - a) * 1e-9;
                } else {
                    ok = 0;
                }
            }
            for (int i = 0; i < 5; i++)
                for (int j = i + 1; j < 5; j++)
                    if (t[j] < t[i]) { double x = t[i]; t[i] = t[j]; t[j] = x; }
            const double flops = (double)fl * nacc * iters * (double)(gs / 32);
            if (ok) printf("  %2d warps/WG %6.1f", warps[w], flops / t[2] * 1e-12);
            else printf("  %2d warps/WG  error %d", warps[w], err);
            clReleaseMemObject(out);
        }
        printf("\n");
        clReleaseKernel(k);
        clReleaseProgram(prog);
    }
    return 0;
}
